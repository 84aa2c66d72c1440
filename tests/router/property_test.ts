import assert from "node:assert/strict";
import fc from "fast-check";
import { get, type Handler, router } from "../../mod.ts";
import { RadixTree } from "../../lib/router/radix.ts";

const RUNS = 2_000;
const echo = (name: string): Handler => (ctx) => ctx.json({ route: name, params: ctx.params });

const ROUTES = [
  get("/", echo("root")),
  get("/users/:id", echo("user")),
  get("/users/:id/posts/:post", echo("post")),
  get("/files/*path", echo("files")),
  get("/a/b/c", echo("abc")),
];
// The compiled matcher (the default) and the radix tree walk.
const MATCHERS = [["compiled", true], ["tree", false]] as const;

// Any path the URL parser accepts, including hostile percent-encodings and odd characters.
const pathChars = fc.constantFrom(
  ..."abcXYZ019-._~!$&'()*+,;=:@/%".split(""),
  "%2F",
  "%25",
  "%zz",
  "%c0%af",
  "%E2%82%AC",
  "%00",
  "..",
  "//",
  "é",
  "\u{1F600}",
);
const anyPath = fc.array(pathChars, { maxLength: 40 }).map((parts) => "/" + parts.join(""));

for (const [matcher, compile] of MATCHERS) {
  const app = router(ROUTES, { compile });

  Deno.test(`router() answers any path with a match, 404, 405 or 400 and never throws [${matcher}]`, async () => {
    await fc.assert(
      fc.asyncProperty(
        anyPath,
        fc.constantFrom("GET", "POST", "HEAD", "OPTIONS"),
        async (path, method) => {
          let url: string;
          try {
            url = new URL(path, "http://localhost").href;
          } catch {
            return; // not a request a client can send
          }
          const res = await app.fetch(new Request(url, { method }));
          assert.ok(
            [200, 204, 400, 404, 405].includes(res.status),
            `${method} ${path}: ${res.status}`,
          );
          await res.body?.cancel();
        },
      ),
      { numRuns: RUNS },
    );
  });

  Deno.test(`a registered static route always wins over a param route that also matches [${matcher}]`, async () => {
    const segment = fc.stringMatching(/^[a-z0-9_-]{1,12}$/);
    await fc.assert(
      fc.asyncProperty(segment, segment, fc.boolean(), async (prefix, name, staticFirst) => {
        const routes = [
          get(`/${prefix}/:id`, echo("param")),
          get(`/${prefix}/${name}`, echo("static")),
        ];
        const app = router(staticFirst ? routes.reverse() : routes, { compile });
        const res = await app.fetch(new Request(`http://localhost/${prefix}/${name}`));
        assert.equal((await res.json()).route, "static");
      }),
      { numRuns: RUNS },
    );
  });

  Deno.test(`param values round-trip through percent-encoding [${matcher}]`, async () => {
    await fc.assert(
      fc.asyncProperty(
        // "." and ".." are dot segments the URL parser removes before any router sees them.
        fc.string({ minLength: 1, maxLength: 30, unit: "grapheme" })
          .filter((v) => v !== "." && v !== ".."),
        async (value) => {
          const res = await app.fetch(
            new Request(`http://localhost/users/${encodeURIComponent(value)}`),
          );
          assert.equal(res.status, 200);
          assert.deepEqual((await res.json()).params, { id: value });
        },
      ),
      { numRuns: RUNS },
    );
  });
}

// Route sets over a few segments, so that patterns share prefixes, with text that must stay
// data in generated code (quotes, backslashes, "${", U+2028, "</script>", percent-escapes).
const SEGMENTS = [
  "a",
  "ab",
  "abc",
  "b",
  "user",
  "users",
  "",
  "x y",
  "a%2Fb",
  "%25",
  "é",
  '"',
  "\\",
  "${x}",
  "\u2028",
  "</script>",
  "a-b.c",
];
const VALUES = ["", "v", "a", "ab", "abc", "x%2Fy", "é", "users", "1"];
const REMAINDERS = ["", "x", "x/y", "/", "a/b/", "abc"];

const routeSet = fc.uniqueArray(
  fc.record({
    method: fc.constantFrom("GET", "POST", "PURGE"),
    parts: fc.array(fc.oneof(fc.constantFrom(...SEGMENTS), fc.constant(":")), { maxLength: 4 }),
    wildcard: fc.boolean(),
  }).map(({ method, parts, wildcard }) => {
    // Names follow the position, so two routes never name one position differently.
    const segments = parts.map((part, i) => part === ":" ? `:p${i}` : part);
    if (wildcard) segments.push("*w");
    return [method, "/" + segments.join("/")] as const;
  }),
  { selector: ([method, pattern]) => `${method} ${pattern}`, minLength: 1, maxLength: 25 },
);

function pathsFor(routes: readonly (readonly [string, string])[]): fc.Arbitrary<string> {
  const filled = fc.tuple(
    fc.constantFrom(...routes.map(([, pattern]) => pattern)),
    fc.array(fc.constantFrom(...VALUES), { minLength: 4, maxLength: 4 }),
    fc.constantFrom(...REMAINDERS),
    fc.constantFrom("", "/", "-cut"),
  ).map(([pattern, values, rest, end]) => {
    let path = pattern.replace(/:p(\d)/g, (_, i) => values[i]).replace("*w", rest);
    if (end === "/") path += "/";
    if (end === "-cut") path = path.slice(0, -1);
    return path;
  });
  const joined = fc.array(fc.constantFrom(...SEGMENTS, ...VALUES, "zz", "a/b"), { maxLength: 5 })
    .map((parts) => "/" + parts.join("/"));
  return fc.oneof(filled, joined, fc.string({ maxLength: 12 }));
}

Deno.test("the compiled matcher and the tree walk find the same routes and params", () => {
  fc.assert(
    fc.property(
      routeSet.chain((routes) =>
        fc.tuple(
          fc.constant(routes),
          fc.array(
            fc.tuple(fc.constantFrom("GET", "POST", "PURGE", "PATCH", "get"), pathsFor(routes)),
            { minLength: 1, maxLength: 30 },
          ),
        )
      ),
      ([routes, requests]) => {
        const tree = new RadixTree<number>();
        routes.forEach(([method, pattern], i) => tree.add(method, pattern, i));
        const find = tree.compile();
        assert.ok(String(find).startsWith("(m,p)=>"), "the routes were compiled");
        for (const [method, path] of requests) {
          assert.deepEqual(find(method, path), tree.find(method, path), `${method} ${path}`);
        }
      },
    ),
    { numRuns: RUNS },
  );
});
