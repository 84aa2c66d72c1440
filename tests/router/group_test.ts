// group(): the same route table written flat and through nested groups answers every request
// identically (404, 405 with Allow, automatic HEAD and OPTIONS, specificity priority, percent
// decoding, conflicts), and group middleware wrap exactly their routes.
import assert from "node:assert/strict";
import {
  type Context,
  del,
  get,
  group,
  type Middleware,
  options,
  post,
  put,
  type Route,
  router,
} from "../../mod.ts";

// Each handler answers with its own method and pattern, so a test sees which route ran.
const h = (label: string) => (ctx: Context) => ctx.text(`${label} ${JSON.stringify(ctx.params)}`);

const FLAT: Route[] = [
  get("/", h("GET /")),
  get("/api", h("GET /api")),
  get("/api/users", h("GET /api/users")),
  post("/api/users", h("POST /api/users")),
  get("/api/users/me", h("GET /api/users/me")),
  get("/api/users/:id", h("GET /api/users/:id")),
  put("/api/users/:id", h("PUT /api/users/:id")),
  del("/api/users/:id", h("DELETE /api/users/:id")),
  get("/api/users/:id/files/*path", h("GET /api/users/:id/files/*path")),
  get("/api/admin/stats", h("GET /api/admin/stats")),
  options("/api/admin/stats", h("OPTIONS /api/admin/stats")),
  get("/api/*rest", h("GET /api/*rest")),
  get("/files/:name", h("GET /files/:name")),
];

const GROUPED = [
  get("/", h("GET /")),
  group("/api", [], [
    get("/", h("GET /api")),
    group("/users", [], [
      get("/", h("GET /api/users")),
      post("/", h("POST /api/users")),
      get("/me", h("GET /api/users/me")),
      group("/:id", [], [
        get("/", h("GET /api/users/:id")),
        put("/", h("PUT /api/users/:id")),
        del("/", h("DELETE /api/users/:id")),
        get("/files/*path", h("GET /api/users/:id/files/*path")),
      ]),
    ]),
    group("/admin", [], [
      get("/stats", h("GET /api/admin/stats")),
      options("/stats", h("OPTIONS /api/admin/stats")),
    ]),
    get("/*rest", h("GET /api/*rest")),
  ]),
  group("", [], [get("/files/:name", h("GET /files/:name"))]),
];

const CASES: [method: string, path: string][] = [
  ["GET", "/"],
  ["GET", "/api"],
  ["GET", "/api/"],
  ["GET", "/api/users"],
  ["POST", "/api/users"],
  ["DELETE", "/api/users"],
  ["OPTIONS", "/api/users"],
  ["HEAD", "/api/users"],
  ["GET", "/api/users/me"],
  ["PUT", "/api/users/me"],
  ["GET", "/api/users/7"],
  ["PATCH", "/api/users/7"],
  ["OPTIONS", "/api/users/7"],
  ["HEAD", "/api/users/7"],
  ["GET", "/api/users/7/files/a/b.txt"],
  ["GET", "/api/users/%37/files/a%2Fb"],
  ["GET", "/api/users/%ZZ"],
  ["GET", "/api/admin/stats"],
  ["OPTIONS", "/api/admin/stats"],
  ["POST", "/api/admin/stats"],
  ["GET", "/api/anything/else"],
  ["GET", "/files/x"],
  ["GET", "/files"],
  ["GET", "/nope"],
  ["POST", "/nope"],
];

async function seen(res: Response) {
  return {
    status: res.status,
    allow: res.headers.get("allow"),
    type: res.headers.get("content-type"),
    length: res.headers.get("content-length"),
    body: await res.text(),
  };
}

for (const compile of [true, false]) {
  Deno.test(`group() answers like the flat routes (compile: ${compile})`, async () => {
    const flat = router(FLAT, { compile });
    const grouped = router(GROUPED, { compile });
    for (const [method, path] of CASES) {
      const request = () => new Request(`http://localhost${path}`, { method });
      const expected = await seen(await flat.fetch(request()));
      const actual = await seen(await grouped.fetch(request()));
      assert.deepEqual(actual, expected, `${method} ${path}`);
    }
  });
}

Deno.test("group() routes keep the specificity priority of their full patterns", async () => {
  const app = router(GROUPED);
  const text = async (path: string) =>
    await (await app.fetch(new Request(`http://l${path}`))).text();
  assert.equal(await text("/api/users/me"), "GET /api/users/me {}");
  assert.equal(await text("/api/users/7"), 'GET /api/users/:id {"id":"7"}');
  assert.equal(await text("/api/zzz"), 'GET /api/*rest {"rest":"zzz"}');
});

Deno.test("group() conflicts throw when the router is built, as flat ones do", () => {
  const conflicts: [Route[], unknown[]][] = [
    [[get("/a/:id", h("")), get("/a/:name", h(""))], [
      group("/a", [], [get("/:id", h(""))]),
      group("", [], [group("/a", [], [get("/:name", h(""))])]),
    ]],
    [[get("/a/b", h("")), get("/a/b", h(""))], [
      get("/a/b", h("")),
      group("/a", [], [get("/b", h(""))]),
    ]],
  ];
  for (const [flat, grouped] of conflicts) {
    let message = "";
    assert.throws(() => router(flat), (error: Error) => (message = error.message, true));
    assert.throws(() => router(grouped as Route[]), { message });
  }
});

Deno.test("group() middleware wrap their routes, their 405 and OPTIONS answers, not a 404", async () => {
  const seen: string[] = [];
  const tag = (name: string): Middleware => async (ctx, next) => {
    seen.push(`${name} ${ctx.req.method} ${ctx.path}`);
    const res = await next();
    res.headers.set(`x-${name}`, "1");
    return res;
  };
  const app = router([
    get("/open", h("open")),
    group("/api", [tag("outer")], [
      get("/a", h("a")),
      group("/admin", [tag("inner")], [get("/b", [tag("route")], h("b"))]),
    ]),
  ]);
  const fetch = (method: string, path: string) =>
    app.fetch(new Request(`http://localhost${path}`, { method }));

  const b = await fetch("GET", "/api/admin/b");
  assert.equal(b.headers.get("x-outer"), "1");
  assert.equal(b.headers.get("x-inner"), "1");
  assert.equal(b.headers.get("x-route"), "1");
  assert.deepEqual(seen.splice(0), [
    "outer GET /api/admin/b",
    "inner GET /api/admin/b",
    "route GET /api/admin/b",
  ]);

  const refused = await fetch("POST", "/api/admin/b");
  assert.equal(refused.status, 405);
  assert.equal(refused.headers.get("allow"), "GET, HEAD, OPTIONS");
  assert.equal(refused.headers.get("x-inner"), "1");
  assert.equal(refused.headers.get("x-route"), null); // a route's own middleware: its route only
  const preflight = await fetch("OPTIONS", "/api/a");
  assert.equal(preflight.status, 204);
  assert.equal(preflight.headers.get("x-outer"), "1");
  seen.length = 0;

  assert.equal((await fetch("GET", "/api/missing")).status, 404);
  assert.equal((await fetch("GET", "/open")).headers.get("x-outer"), null);
  assert.deepEqual(seen, []);
});

for (const compile of [true, false]) {
  Deno.test(`group() middleware see the params and route of a 405 or OPTIONS path (compile: ${compile})`, async () => {
    const seen: unknown[] = [];
    const needsBoard: Middleware = (ctx, next) => {
      seen.push([ctx.req.method, ctx.params, ctx.route]);
      if (!/^\d+$/.test((ctx.params as { board?: string }).board ?? "")) {
        return new Response("bad board", { status: 400 });
      }
      return next();
    };
    const app = router([
      group("/boards/:board", [needsBoard], [get("/notes/:note", h("notes"))]),
    ], { compile });
    const fetch = (method: string, path: string) =>
      app.fetch(new Request(`http://localhost${path}`, { method }));
    assert.equal((await fetch("GET", "/boards/7/notes/1")).status, 200);
    const preflight = await fetch("OPTIONS", "/boards/7/notes/1");
    assert.equal(preflight.status, 204);
    assert.equal(preflight.headers.get("allow"), "GET, HEAD, OPTIONS");
    const refused = await fetch("DELETE", "/boards/7/notes/%31");
    assert.equal(refused.status, 405);
    assert.deepEqual(seen, [
      ["GET", { board: "7", note: "1" }, "/boards/:board/notes/:note"],
      ["OPTIONS", { board: "7", note: "1" }, "/boards/:board/notes/:note"],
      ["DELETE", { board: "7", note: "1" }, "/boards/:board/notes/:note"],
    ]);
  });
}

Deno.test("group() middleware wrap a path's 405 and OPTIONS answers whatever the routes' order", async () => {
  const tag: Middleware = async (_ctx, next) => {
    const res = await next();
    res.headers.set("x-group", "1");
    return res;
  };
  // a route outside the group registered first, for the same path as a grouped one
  const app = router([
    get("/api/:id", h("outside")),
    group("/api", [tag], [post("/items", h("inside"))]),
  ]);
  const call = (method: string, headers: Record<string, string> = {}) =>
    app.fetch(new Request("http://localhost/api/items", { method, headers }));
  // a preflight for the grouped method gets the group's middleware (cors() decorates it)
  const preflight = await call("OPTIONS", { "access-control-request-method": "POST" });
  assert.equal(preflight.status, 204);
  assert.equal(preflight.headers.get("x-group"), "1");
  // a 405 on a path one of whose routes is grouped too
  const refused = await call("DELETE");
  assert.equal(refused.status, 405);
  assert.equal(refused.headers.get("x-group"), "1");
  // a preflight for the outside method: that route has no group middleware
  const outside = await call("OPTIONS", { "access-control-request-method": "GET" });
  assert.equal(outside.headers.get("x-group"), "1", "the grouped route still covers the path");
});

Deno.test("group() refuses a prefix that is not a path", () => {
  for (const prefix of ["api", "/api/", "/"]) {
    assert.throws(() => group(prefix, [], []), TypeError);
  }
});

Deno.test("HEAD from GET runs the GET route of the same pattern, grouped or not", async () => {
  for (
    const app of [
      router([get("/a/:x", (ctx) => ctx.text("x")), get("/a/*rest", (ctx) => ctx.text("rest!"))]),
      router([
        group("/a", [], [
          get("/:x", (ctx) => ctx.text("x")),
          get("/*rest", (ctx) => ctx.text("rest!")),
        ]),
      ]),
    ]
  ) {
    for (const [path, length] of [["/a/b", "1"], ["/a/b/c", "5"]]) {
      const res = await app.fetch(new Request(`http://localhost${path}`, { method: "HEAD" }));
      assert.equal(res.headers.get("content-length"), length, path);
    }
  }
});
