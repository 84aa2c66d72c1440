import assert from "node:assert/strict";
import {
  del,
  get,
  head,
  options,
  patch,
  post,
  put,
  route,
  router as makeRouter,
  serve,
} from "../../mod.ts";
import type { Handler, Route, RouterOptions } from "../../mod.ts";
import { removeDotSegments } from "../../lib/router/_path.ts";

const echo = (name: string): Handler => (ctx) => ctx.json({ route: name, params: ctx.params });

async function call(app: { fetch(r: Request): Promise<Response> }, method: string, path: string) {
  const res = await app.fetch(new Request(`http://localhost${path}`, { method }));
  const type = res.headers.get("content-type") ?? "";
  const body = type.includes("json") ? await res.json() : await res.text();
  return { status: res.status, headers: res.headers, body };
}

// Every case runs against both matchers: the compiled one (the default where new Function is
// allowed) and the radix tree walk (`compile: false`).
const MATCHERS = [["compiled", true], ["tree", false]] as const;

for (const [matcher, compile] of MATCHERS) {
  const router = (routes: readonly Route[], options: RouterOptions = {}) =>
    makeRouter(routes, { compile, ...options });

  Deno.test(`router() gives static > :param > *wildcard priority whatever the registration order [${matcher}]`, async () => {
    const routes = [
      get("/files/*path", echo("wildcard")),
      get("/files/:name", echo("param")),
      get("/files/readme", echo("static")),
    ];
    for (const order of [routes, [...routes].reverse()]) {
      const app = router(order);
      const cases: [string, string, Record<string, string>][] = [
        ["/files/readme", "static", {}],
        ["/files/other", "param", { name: "other" }],
        ["/files/a/b/c", "wildcard", { path: "a/b/c" }],
        ["/files/", "wildcard", { path: "" }],
      ];
      for (const [path, name, params] of cases) {
        const { status, body } = await call(app, "GET", path);
        assert.equal(status, 200, path);
        assert.deepEqual(body, { route: name, params }, path);
      }
    }
  });

  Deno.test(`router() backtracks segment by segment when a more specific branch dead-ends [${matcher}]`, async () => {
    const app = router([
      get("/a/static/x", echo("static-x")),
      get("/a/:p/y", echo("param-y")),
      get("/a/*rest", echo("wild")),
    ]);
    assert.deepEqual((await call(app, "GET", "/a/static/y")).body, {
      route: "param-y",
      params: { p: "static" },
    });
    assert.deepEqual((await call(app, "GET", "/a/static/z")).body, {
      route: "wild",
      params: { rest: "static/z" },
    });
  });

  Deno.test(`router() does not match /files alone against /files/*path [${matcher}]`, async () => {
    const app = router([get("/files/*path", echo("w"))]);
    assert.equal((await call(app, "GET", "/files")).status, 404);
    assert.equal((await call(app, "GET", "/filesx")).status, 404);
  });

  Deno.test(`router() answers 404 with a problem body when no route matches [${matcher}]`, async () => {
    const app = router([get("/a", echo("a"))]);
    const { status, headers, body } = await call(app, "GET", "/b");
    assert.equal(status, 404);
    assert.equal(headers.get("content-type"), "application/problem+json");
    assert.equal(body.status, 404);
    assert.equal(body.title, "Not Found");
  });

  Deno.test(`router() answers 405 with Allow when the path matches but the method does not [${matcher}]`, async () => {
    const app = router([get("/a", echo("a")), post("/a", echo("a")), del("/a", echo("a"))]);
    const { status, headers, body } = await call(app, "PUT", "/a");
    assert.equal(status, 405);
    assert.equal(headers.get("allow"), "GET, POST, DELETE, HEAD, OPTIONS");
    assert.equal(body.status, 405);
  });

  Deno.test(`router() lists methods of every route that matches the path in Allow [${matcher}]`, async () => {
    const app = router([get("/u/me", echo("me")), put("/u/:id", echo("id"))]);
    assert.equal((await call(app, "PUT", "/u/me")).status, 200); // backtracks to /u/:id
    const { status, headers } = await call(app, "PATCH", "/u/me");
    assert.equal(status, 405);
    assert.deepEqual(headers.get("allow")!.split(", ").sort(), ["GET", "HEAD", "OPTIONS", "PUT"]);
  });

  Deno.test(`router() answers HEAD with the GET handler and no body [${matcher}]`, async () => {
    let calls = 0;
    const app = router([get("/a", () => {
      calls++;
      return new Response("hello", { headers: { "x-a": "1" } });
    })]);
    const res = await app.fetch(new Request("http://localhost/a", { method: "HEAD" }));
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("x-a"), "1");
    assert.equal(await res.text(), "");
    assert.equal(calls, 1);
  });

  Deno.test(`router() lets an explicit HEAD route override the automatic one [${matcher}]`, async () => {
    const app = router([
      get("/a", () => new Response("get")),
      head("/a", () => new Response(null, { headers: { "x-head": "yes" } })),
    ]);
    const res = await app.fetch(new Request("http://localhost/a", { method: "HEAD" }));
    assert.equal(res.headers.get("x-head"), "yes");
  });

  Deno.test(`router() answers OPTIONS with 204 and Allow unless a handler exists [${matcher}]`, async () => {
    const app = router([
      get("/a", echo("a")),
      patch("/a", echo("a")),
      options("/b", () => new Response("custom", { status: 200 })),
    ]);
    const auto = await call(app, "OPTIONS", "/a");
    assert.equal(auto.status, 204);
    assert.equal(auto.headers.get("allow"), "GET, PATCH, HEAD, OPTIONS");
    const custom = await call(app, "OPTIONS", "/b");
    assert.equal(custom.status, 200);
    assert.equal(custom.body, "custom");
    assert.equal((await call(app, "OPTIONS", "/c")).status, 404);
  });

  Deno.test(`router() is strict about trailing slashes by default [${matcher}]`, async () => {
    const app = router([get("/a", echo("a")), get("/b/", echo("b"))]);
    assert.equal((await call(app, "GET", "/a")).status, 200);
    assert.equal((await call(app, "GET", "/a/")).status, 404);
    assert.equal((await call(app, "GET", "/b/")).status, 200);
    assert.equal((await call(app, "GET", "/b")).status, 404);
  });

  Deno.test(`router() redirects with 308 to the registered trailing-slash form when asked [${matcher}]`, async () => {
    const app = router([get("/a", echo("a")), get("/b/", echo("b"))], {
      trailingSlash: "redirect",
    });
    const a = await app.fetch(new Request("http://localhost/a/?q=1"));
    assert.equal(a.status, 308);
    assert.equal(a.headers.get("location"), "/a?q=1");
    const b = await app.fetch(new Request("http://localhost/b"));
    assert.equal(b.status, 308);
    assert.equal(b.headers.get("location"), "/b/");
    assert.equal((await app.fetch(new Request("http://localhost/c/"))).status, 404);
  });

  Deno.test(`router() keeps a trailing-slash redirect on the same origin whatever the path starts with [${matcher}]`, async () => {
    const app = router([get("/:slug", echo("slug")), get("/:slug/:rest", echo("rest"))], {
      trailingSlash: "redirect",
    });
    // The URL parser turns "\\" into "/" and drops tabs; raw request targets are tested in
    // tests/conformance/router_cases.ts.
    for (
      const path of [
        "/\\evil.example/",
        "//evil.example/",
        "/%5Cevil.example/",
        "/%5c/evil.example/",
        "/%2Fevil.example/",
        "/%2f%2F/evil.example/",
        "/%09/evil.example/",
        "/%0A/evil.example/",
        "/%0d/evil.example/",
        "/\t/evil.example/",
        "/\n//evil.example/",
        "/%2F/%5C/%09/evil.example/",
      ]
    ) {
      const res = await app.fetch(new Request(`http://localhost${path}`));
      const location = res.headers.get("location");
      if (location === null) continue;
      assert.equal(res.status, 308, path);
      assert.equal(location, "/evil.example", path);
      // A proxy or a later redirect may decode the Location once: it must stay same-origin too.
      for (const candidate of [location, decodeURIComponent(location)]) {
        assert.equal(new URL(candidate, "http://localhost/").origin, "http://localhost", path);
      }
    }
    assert.equal((await app.fetch(new Request("http://localhost/%2Fevil.example/"))).status, 308);
  });

  Deno.test(`router() percent-decodes param values once [${matcher}]`, async () => {
    const app = router([get("/u/:name", echo("u")), get("/f/*path", echo("f"))]);
    const cases: [string, Record<string, string>][] = [
      ["/u/caf%C3%A9", { name: "café" }],
      ["/u/a%2Fb", { name: "a/b" }],
      ["/u/100%25", { name: "100%" }],
      ["/u/%252F", { name: "%2F" }],
      ["/f/a%20b/c%2Fd", { path: "a b/c/d" }],
    ];
    for (const [path, params] of cases) {
      const { status, body } = await call(app, "GET", path);
      assert.equal(status, 200, path);
      assert.deepEqual(body.params, params, path);
    }
  });

  Deno.test(`router() matches static routes against the decoded path [${matcher}]`, async () => {
    const app = router([get("/café", echo("cafe")), get("/a b", echo("space"))]);
    assert.equal((await call(app, "GET", "/caf%C3%A9")).body.route, "cafe");
    assert.equal((await call(app, "GET", "/a%20b")).body.route, "space");
    assert.equal((await call(app, "GET", "/%61%20b")).body.route, "space");
  });

  Deno.test(`router() chooses the route by the decoded path, whatever the raw path matches [${matcher}]`, async () => {
    const app = router([
      get("/user/:id", echo("user")),
      get("/:a/:b", echo("any")),
      get("/aA", echo("decoded")),
    ]);
    const user = await call(app, "GET", "/us%65r/42");
    assert.equal(user.body.route, "user");
    assert.deepEqual(user.body.params, { id: "42" });
    // a pattern is compared with the decoded path (and one written "/a%41" is refused)
    assert.equal((await call(app, "GET", "/a%41")).body.route, "decoded");
    assert.equal((await call(app, "GET", "/aA")).body.route, "decoded");
    assert.deepEqual((await call(app, "GET", "/user/7")).body.params, { id: "7" });
  });

  Deno.test(`router() answers 400, never 500, to malformed percent-encoding [${matcher}]`, async () => {
    const app = router([get("/u/:name", echo("u"))]);
    for (const path of ["/u/%zz", "/u/%c0%af", "/u/%", "/u/%E2%82", "/u/%ff"]) {
      const { status, headers } = await call(app, "GET", path);
      assert.equal(status, 400, path);
      assert.equal(headers.get("content-type"), "application/problem+json");
    }
  });

  Deno.test(`router() throws on registration errors with a clear message [${matcher}]`, () => {
    const h = echo("x");
    const cases: [() => unknown, RegExp][] = [
      [() => router([get("/a", h), get("/a", h)]), /"GET \/a".*already registered/],
      [() => router([get("/u/:id", h), get("/u/:name", h)]), /already uses ":id"/],
      [() => router([get("/f/*a", h), post("/f/*b", h)]), /already uses "\*a"/],
      [() => router([get("/f/*path/x", h)]), /must be the last segment/],
      [() => router([get("/u/:", h)]), /must be an identifier/],
      [() => router([get("u/:id", h)]), /must start with "\/"/],
      [() => router([get("/u/:id/:id", h)]), /appears twice/],
      [() => router([get("/u/:__proto__", h)]), /"__proto__" cannot name a param/],
      // requests are matched decoded: an escaped pattern matched nothing, silently
      [() => router([get("/caf%C3%A9", h)]), /"\/caf%C3%A9".*write it decoded/],
      [() => router([get("/a%20b", h)]), /write it decoded/],
      [() => router([get("/100%", h)]), /write it decoded/],
      [() => router([get("/x%2fy", h)]), /only %2F and %25 stay escaped/],
      [() => router([route("GET", "/a", undefined as unknown as Handler)]), /not a function/],
    ];
    for (const [fn, message] of cases) assert.throws(fn, message);
  });

  Deno.test(`router() matches a pattern written decoded, and %2F and %25 in one [${matcher}]`, async () => {
    const app = router([
      get("/café", echo("cafe")),
      get("/a b", echo("space")),
      get("/x%2Fy", echo("slash")),
      get("/100%25", echo("percent")),
    ]);
    for (
      const [path, name] of [
        ["/caf%C3%A9", "cafe"],
        ["/a%20b", "space"],
        ["/x%2Fy", "slash"],
        ["/x%2fy", "slash"],
        ["/100%25", "percent"],
      ]
    ) {
      assert.equal((await call(app, "GET", path)).body.route, name, path);
    }
  });

  Deno.test(`router() accepts the same pattern for different methods and custom methods [${matcher}]`, async () => {
    const app = router([
      get("/r", echo("get")),
      put("/r", echo("put")),
      route("purge", "/r", echo("purge")),
    ]);
    assert.equal((await call(app, "PUT", "/r")).body.route, "put");
    assert.equal((await call(app, "PURGE", "/r")).body.route, "purge");
  });

  Deno.test(`router() matches a 1,000-route table correctly [${matcher}]`, async () => {
    const routes = [];
    for (let i = 0; i < 1000; i++) {
      routes.push(get(`/r${i}/items/:id`, echo(`dyn${i}`)));
      routes.push(get(`/r${i}/static`, echo(`st${i}`)));
    }
    const app = router(routes);
    for (const i of [0, 1, 99, 500, 999]) {
      assert.deepEqual((await call(app, "GET", `/r${i}/items/x${i}`)).body, {
        route: `dyn${i}`,
        params: { id: `x${i}` },
      });
      assert.equal((await call(app, "GET", `/r${i}/static`)).body.route, `st${i}`);
    }
    assert.equal((await call(app, "GET", "/r1000/static")).status, 404);
  });

  Deno.test(`router() handles root, empty segments and root wildcards [${matcher}]`, async () => {
    const app = router([get("/", echo("root")), get("/x/*rest", echo("x"))]);
    assert.equal((await call(app, "GET", "/")).body.route, "root");
    assert.equal((await call(app, "GET", "//")).status, 404);
    assert.deepEqual((await call(app, "GET", "/x//a")).body.params, { rest: "/a" });
    const all = router([get("/*all", echo("all"))]);
    assert.deepEqual((await call(all, "GET", "/")).body.params, { all: "" });
    assert.deepEqual((await call(all, "GET", "/a/b")).body.params, { all: "a/b" });
  });

  Deno.test(`router() does not let an empty segment satisfy a param [${matcher}]`, async () => {
    const app = router([get("/u/:id", echo("u")), get("/u/:id/posts", echo("posts"))]);
    assert.equal((await call(app, "GET", "/u/")).status, 404);
    assert.equal((await call(app, "GET", "/u//posts")).status, 404);
  });

  Deno.test(`router() nests as a handler inside another router [${matcher}]`, async () => {
    const api = router([get("/api/v1/ping", () => new Response("pong"))]);
    const app = router([get("/api/*rest", api)]);
    assert.equal((await call(app, "GET", "/api/v1/ping")).body, "pong");
  });
}

Deno.test("removeDotSegments() resolves . and .. as a URL parser does", () => {
  for (
    const path of ["/a/./b", "/a/b/../c", "/a/..", "/..", "/../../x", "/a/.", "/.a/..b/c", "/"]
  ) {
    assert.equal(removeDotSegments(path), new URL(path, "http://h").pathname, path);
  }
});

Deno.test("serve() matches dot segments sent over a socket as app.fetch() does", async () => {
  const app = makeRouter([
    get("/f/*path", (ctx) => ctx.json({ path: ctx.params.path })),
    get("/u/:id", (ctx) => ctx.json({ id: ctx.params.id })),
    get("/etc", (ctx) => ctx.text("etc")),
  ]);
  const server = serve(app, { port: 0, hostname: "127.0.0.1", onListen() {} });
  try {
    for (
      const target of [
        "/f/../etc",
        "/f/%2e%2e/%2E%2E/etc/passwd",
        "/f/a/./b",
        "/f/.hidden",
        "/u/%2e%2e",
        "/u/..",
        "/f/a/b/..",
      ]
    ) {
      const conn = await Deno.connect({ hostname: "127.0.0.1", port: server.addr.port });
      await conn.write(
        new TextEncoder().encode(`GET ${target} HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n`),
      );
      const raw = await new Response(conn.readable).text();
      const [head, body] = raw.split("\r\n\r\n");
      const expected = await app.fetch(new Request(`http://h${target}`));
      assert.equal(Number(head.split(" ")[1]), expected.status, target);
      // (a 404's detail quotes the path as it was sent)
      if (expected.status === 200) assert.equal(body, await expected.text(), target);
      else await expected.body?.cancel();
    }
  } finally {
    await server.shutdown();
  }
});
