import assert from "node:assert/strict";
import fc from "fast-check";
import { get, type Handler, router } from "../../mod.ts";

const RUNS = 2_000;
const echo = (name: string): Handler => (ctx) => ctx.json({ route: name, params: ctx.params });

const app = router([
  get("/", echo("root")),
  get("/users/:id", echo("user")),
  get("/users/:id/posts/:post", echo("post")),
  get("/files/*path", echo("files")),
  get("/a/b/c", echo("abc")),
]);

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

Deno.test("router() answers any path with a match, 404, 405 or 400 and never throws", async () => {
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

Deno.test("a registered static route always wins over a param route that also matches", async () => {
  const segment = fc.stringMatching(/^[a-z0-9_-]{1,12}$/);
  await fc.assert(
    fc.asyncProperty(segment, segment, fc.boolean(), async (prefix, name, staticFirst) => {
      const routes = [
        get(`/${prefix}/:id`, echo("param")),
        get(`/${prefix}/${name}`, echo("static")),
      ];
      const app = router(staticFirst ? routes.reverse() : routes);
      const res = await app.fetch(new Request(`http://localhost/${prefix}/${name}`));
      assert.equal((await res.json()).route, "static");
    }),
    { numRuns: RUNS },
  );
});

Deno.test("param values round-trip through percent-encoding", async () => {
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
