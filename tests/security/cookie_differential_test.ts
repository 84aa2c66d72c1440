// Weft's cookie code against the `cookie` package from npm (the parser and serialiser of
// Express, Fastify and many more), on inputs fast-check generates. Where Weft differs on
// purpose, the difference is stated here and applied to the package's answer:
//
//   - a pair with an empty name ("=v") is ignored by Weft (getCookie(ctx, "") means nothing);
//   - Weft writes Path=/ when no path is given;
//   - Weft throws where a browser would drop the cookie: prefix rules, SameSite=None or
//     Partitioned without Secure, a name and value over 4096 bytes; and where it would replace
//     the path: one that does not start with "/".
import assert from "node:assert/strict";
import fc from "fast-check";
import * as cookie from "cookie";
import {
  type CookieOptions,
  findCookie,
  parseCookies,
  serializeCookie,
} from "../../lib/security/cookie.ts";

// Characters that matter to the grammar, often, and anything else, sometimes.
const grammarChar = fc.constantFrom(
  ";",
  "=",
  " ",
  "\t",
  "%",
  '"',
  ",",
  "a",
  "b",
  "0",
  "%20",
  "%C3%A9",
  "%E0%A4%A",
  "%%",
  "é",
  "__proto__",
);
const headerText = fc.array(fc.oneof(grammarChar, fc.string({ maxLength: 3 })), {
  maxLength: 40,
}).map((parts) => parts.join(""));

function withoutEmptyName(parsed: Record<string, string | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(parsed)) {
    if (name !== "" && value !== undefined) out[name] = value;
  }
  return out;
}

Deno.test("parseCookies() agrees with the cookie package on generated Cookie headers", () => {
  fc.assert(
    fc.property(headerText, (header) => {
      assert.deepEqual({ ...parseCookies(header) }, withoutEmptyName(cookie.parse(header)));
    }),
    { numRuns: 5000 },
  );
});

Deno.test("findCookie() finds what parseCookies() parsed, for every name and some absent ones", () => {
  fc.assert(
    fc.property(
      headerText,
      fc.constantFrom("a", "b", "ab", "a b", "__proto__", "", "%20"),
      (header, absent) => {
        const all = parseCookies(header);
        for (const name of [...Object.keys(all), absent]) {
          assert.equal(findCookie(header, name), all[name], `${JSON.stringify(header)} ${name}`);
        }
      },
    ),
    { numRuns: 5000 },
  );
});

Deno.test("parseCookies() agrees with the cookie package on well-formed cookie lists", () => {
  const pair = fc.tuple(
    fc.stringMatching(/^[A-Za-z0-9!#$&'*+\-.^_`|~]{1,8}$/),
    fc.string({ maxLength: 12 }),
  );
  fc.assert(
    fc.property(
      fc.array(pair, { maxLength: 20 }),
      fc.constantFrom("; ", ";", " ;  "),
      (pairs, sep) => {
        const header = pairs.map(([n, v]) => {
          try {
            return `${n}=${encodeURIComponent(v)}`;
          } catch {
            return `${n}=x`; // a lone surrogate cannot be encoded
          }
        }).join(sep);
        assert.deepEqual({ ...parseCookies(header) }, withoutEmptyName(cookie.parse(header)));
      },
    ),
    { numRuns: 3000 },
  );
});

const options: fc.Arbitrary<CookieOptions> = fc.record({
  domain: fc.constantFrom("example.com", ".example.com", "a-b.example", "exa mple", "x;y"),
  path: fc.constantFrom("/", "/app", "/a b", "/a;b", "", "app"),
  expires: fc.constantFrom(new Date(0), new Date(Date.UTC(2030, 5, 1)), new Date(NaN)),
  maxAge: fc.constantFrom(0, 60, -1, 1.5),
  secure: fc.boolean(),
  httpOnly: fc.boolean(),
  sameSite: fc.constantFrom("Strict", "Lax", "None", "lax", "strict", "none"),
  partitioned: fc.boolean(),
}, { requiredKeys: [] }) as fc.Arbitrary<CookieOptions>;

const cookieName = fc.oneof(
  fc.stringMatching(/^[A-Za-z0-9!#$&'*+\-.^_`|~]{1,10}$/),
  fc.constantFrom("__Host-id", "__Secure-id", "__host-x", "a b", "a;b", "a=b", "é", ""),
);

Deno.test("serializeCookie() writes what the cookie package writes, or refuses what it must", () => {
  let compared = 0;
  fc.assert(
    fc.property(cookieName, fc.string({ maxLength: 20 }), options, (name, value, opts) => {
      let ours: string | Error;
      try {
        ours = serializeCookie(name, value, opts);
      } catch (error) {
        assert.ok(error instanceof TypeError, String(error));
        ours = error;
      }
      let theirs: string | Error;
      try {
        const pathed = { ...opts, path: opts.path ?? "/" } as cookie.SerializeOptions;
        theirs = cookie.serialize(name, value, pathed);
      } catch (error) {
        theirs = error as Error;
      }
      if (typeof theirs !== "string") {
        // what the package refuses, Weft refuses too
        assert.ok(ours instanceof TypeError, `${name} ${JSON.stringify(opts)}: ${ours}`);
        return;
      }
      if (ours instanceof TypeError) {
        // Weft refuses more: only for the documented reasons
        assert.match(
          ours.message,
          /__Secure-|__Host-|SameSite=None|Partitioned|path|over the 4096/,
          `${name} ${JSON.stringify(opts)}`,
        );
        if (/path/.test(ours.message)) {
          // "app" is a path a browser replaces with the default path (RFC 6265bis §5.7)
          assert.ok(opts.path === "" || opts.path === "app" || /__host-/i.test(name));
        }
        return;
      }
      // "" is no path for the package; for Weft it is refused, so never here
      assert.equal(ours, theirs);
      compared++;
    }),
    { numRuns: 5000 },
  );
  assert.ok(compared > 100, `only ${compared} of 5000 cookies were compared`);
});
