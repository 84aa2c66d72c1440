import assert from "node:assert/strict";
import { chain, Context, get, router } from "../../mod.ts";
import {
  deleteCookie,
  getCookie,
  getCookies,
  parseCookies,
  serializeCookie,
  setCookie,
} from "../../lib/security/cookie.ts";

function ctxWith(cookie: string): Context {
  return new Context(new Request("http://localhost/", { headers: { cookie } }));
}

Deno.test("parseCookies() trims blanks, skips pairs without a name or '=', keeps the first duplicate", () => {
  const cookies = parseCookies(" a = 1 ;\tb=2;;c;=orphan; a=3 ; d=");
  assert.deepEqual({ ...cookies }, { a: "1", b: "2", d: "" });
  assert.equal(Object.getPrototypeOf(cookies), null);
});

Deno.test("parseCookies() decodes percent-encoding and leaves invalid encoding as sent", () => {
  const cookies = parseCookies("ok=caf%C3%A9; bad=%E0%A4%A; lone=%; half=%ZZ; utf=%C3");
  assert.deepEqual({ ...cookies }, {
    ok: "café",
    bad: "%E0%A4%A",
    lone: "%",
    half: "%ZZ",
    utf: "%C3",
  });
});

Deno.test("parseCookies() keeps quotes and does not let __proto__ reach Object.prototype", () => {
  const cookies = parseCookies('q="quoted"; __proto__=x; constructor=y');
  assert.equal(cookies.q, '"quoted"');
  assert.equal(cookies["__proto__"], "x");
  assert.equal(({} as Record<string, unknown>).x, undefined);
});

Deno.test("parseCookies() reads a 64 KiB header and thousands of cookies", () => {
  const many = Array.from({ length: 5000 }, (_, i) => `c${i}=${i}`).join("; ");
  const cookies = parseCookies(many);
  assert.equal(Object.keys(cookies).length, 5000);
  assert.equal(cookies.c4999, "4999");
  const big = "x=" + "a".repeat(65_536);
  assert.equal(parseCookies(big).x.length, 65_536);
  // no "=" anywhere: every pair is skipped, in one pass
  assert.deepEqual({ ...parseCookies("a;".repeat(32_768)) }, {});
  // duplicate names: the first one wins, whatever the count
  assert.equal(parseCookies("d=1; " + "d=2; ".repeat(10_000)).d, "1");
});

Deno.test("getCookie() and getCookies() read the request's Cookie header", () => {
  const ctx = ctxWith("theme=dark; lang=en");
  assert.equal(getCookie(ctx, "theme"), "dark");
  assert.equal(getCookie(ctx, "missing"), undefined);
  assert.deepEqual({ ...getCookies(ctx) }, { theme: "dark", lang: "en" });
  assert.deepEqual({ ...getCookies(new Context(new Request("http://localhost/"))) }, {});
});

Deno.test("serializeCookie() writes every attribute", () => {
  const expires = new Date(Date.UTC(2030, 0, 2, 3, 4, 5));
  assert.equal(
    serializeCookie("id", "v", {
      domain: "example.com",
      path: "/app",
      expires,
      maxAge: 60,
      secure: true,
      httpOnly: true,
      sameSite: "none",
      partitioned: true,
    }),
    "id=v; Max-Age=60; Domain=example.com; Path=/app; Expires=Wed, 02 Jan 2030 03:04:05 GMT; " +
      "HttpOnly; Secure; Partitioned; SameSite=None",
  );
  assert.equal(serializeCookie("a", "b"), "a=b; Path=/");
});

Deno.test("serializeCookie() encodes values that need it, symmetrically with parseCookies()", () => {
  for (const value of ["a b", "semi;colon", "comma,", 'quote"', "100%", "é ✓ 🍪", "=x=", ""]) {
    const header = serializeCookie("v", value).split("; ")[0];
    assert.equal(parseCookies(header).v, value, header);
  }
});

Deno.test("serializeCookie() enforces the __Secure- and __Host- prefix rules at the call", () => {
  assert.throws(() => serializeCookie("__Secure-a", "1"), /__Secure- cookie needs secure/);
  assert.throws(() => serializeCookie("__secure-a", "1"), /__Secure- cookie needs secure/);
  assert.ok(serializeCookie("__Secure-a", "1", { secure: true, domain: "example.com" }));
  assert.throws(() => serializeCookie("__Host-a", "1"), /__Host- cookie needs secure/);
  assert.throws(
    () => serializeCookie("__Host-a", "1", { secure: true, domain: "example.com" }),
    /__Host- cookie cannot have a domain/,
  );
  assert.throws(
    () => serializeCookie("__HOST-a", "1", { secure: true, path: "/app" }),
    /__Host- cookie needs path "\/"/,
  );
  assert.equal(serializeCookie("__Host-a", "1", { secure: true }), "__Host-a=1; Path=/; Secure");
});

Deno.test("serializeCookie() refuses invalid names, values and attributes with a TypeError", () => {
  const bad: [string, string, Parameters<typeof serializeCookie>[2]][] = [
    ["", "v", {}],
    ["a b", "v", {}],
    ["a;b", "v", {}],
    ["a,b", "v", {}],
    ["a=b", "v", {}],
    ["a\u0001", "v", {}],
    ["é", "v", {}],
    ["a", "\ud800", {}],
    ["a", "v", { domain: "exa mple.com" }],
    ["a", "v", { domain: "example.com; Secure" }],
    ["a", "v", { path: "/a;b" }],
    ["a", "v", { path: "/a\nb" }],
    // a browser takes a path that does not start with "/" for the default path (RFC 6265bis §5.7)
    ["a", "v", { path: "api" }],
    ["a", "v", { path: " /api" }],
    ["a", "v", { maxAge: 1.5 }],
    ["a", "v", { maxAge: 1e300 }], // would print as "1e+300", which no browser reads
    ["a", "v", { expires: new Date(NaN) }],
    // a browser reads a cookie-date's year as 2 to 4 digits, none before 1601 (RFC 6265bis
    // §5.1.1): these would be ignored, and "0050" read as 2050
    ["a", "v", { expires: new Date("1600-12-31T23:59:59Z") }],
    ["a", "v", { expires: new Date("0050-01-01T00:00:00Z") }],
    ["a", "v", { expires: new Date("+010000-01-01T00:00:00Z") }],
    ["a", "v", { expires: new Date(-8.64e15) }],
    ["a", "v", { sameSite: "nope" as "Lax" }],
    ["a", "v", { sameSite: "None" }],
    ["a", "v", { partitioned: true }],
    ["a", "x".repeat(4096), {}],
  ];
  for (const [name, value, options] of bad) {
    assert.throws(
      () => serializeCookie(name, value, options),
      TypeError,
      `${JSON.stringify(name)} ${JSON.stringify(options)}`,
    );
  }
});

Deno.test("serializeCookie() writes an expires from 1601 to 9999 as an IMF-fixdate", () => {
  assert.equal(
    serializeCookie("a", "v", { expires: new Date("1601-01-01T00:00:00Z") }),
    "a=v; Path=/; Expires=Mon, 01 Jan 1601 00:00:00 GMT",
  );
  assert.equal(
    serializeCookie("a", "v", { expires: new Date("9999-12-31T23:59:59Z") }),
    "a=v; Path=/; Expires=Fri, 31 Dec 9999 23:59:59 GMT",
  );
});

Deno.test("setCookie() and deleteCookie() add one Set-Cookie header each, through middleware", async () => {
  const app = chain(
    [
      async (ctx, next) => {
        setCookie(ctx, "outer", "1");
        const res = await next();
        res.headers.append("set-cookie", "late=1; Path=/");
        return res;
      },
      async (ctx, next) => {
        const res = await next();
        setCookie(ctx, "after", "1", { httpOnly: true });
        return res;
      },
    ],
    router([
      get("/", (ctx) => {
        setCookie(ctx, "inner", "x y", { sameSite: "Strict" });
        deleteCookie(ctx, "__Host-old");
        return new Response("built by hand", { headers: { "set-cookie": "own=1" } });
      }),
    ]),
  );
  const res = await app.fetch(new Request("http://localhost/"));
  assert.deepEqual(res.headers.getSetCookie().sort(), [
    "__Host-old=; Max-Age=0; Path=/; Expires=Thu, 01 Jan 1970 00:00:00 GMT; Secure",
    "after=1; Path=/; HttpOnly",
    "inner=x%20y; Path=/; SameSite=Strict",
    "late=1; Path=/",
    "outer=1; Path=/",
    "own=1",
  ]);
});
