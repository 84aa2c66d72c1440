// weft/client at run time, through app.fetch and a recording fetch: how a call is written (the
// pattern filled and percent-encoded, the query, headers, the JSON body) and how any answer is
// read without a throw (JSON, problem+json, a broken JSON body, a body that is not JSON, a
// request that fails or cannot be built).
import assert from "node:assert/strict";
import { get, post, router, schema } from "../../mod.ts";
import { describe } from "../../lib/openapi/mod.ts";
import { client } from "../../lib/client/mod.ts";

const Note = schema.object({ id: schema.integer(), text: schema.string() });
const app = router([
  get("/echo/:id/*rest", (ctx) =>
    ctx.json({
      params: ctx.params,
      query: [...new URL(ctx.req.url).searchParams],
      tenant: ctx.header("x-tenant"),
      extra: ctx.header("x-extra"),
      common: ctx.header("x-common"),
      path: ctx.path,
    })),
  post(
    "/notes",
    [describe({ body: schema.object({ text: schema.string() }) })],
    (ctx) =>
      ctx.json({ text: ctx.var.body.text, type: ctx.header("content-type") }, { status: 201 }),
  ),
  get(
    "/broken",
    () => new Response("{not json", { headers: { "content-type": "application/json" } }),
  ),
  get("/text", (ctx) => ctx.text("plain")),
  get("/gateway", () =>
    new Response("<h1>Bad Gateway</h1>", {
      status: 502,
      statusText: "Bad Gateway",
      headers: { "content-type": "text/html" },
    })),
  get("/raw/:constructor", (ctx) => ctx.text(ctx.params.constructor)),
  get("/files/:id/raw", (ctx) => ctx.text(`raw ${ctx.params.id}`)),
  get("/files/*path", (ctx) => ctx.text(`wildcard ${ctx.params.path}`)),
  get("/items", [describe({
    query: schema.object({ before: schema.optional(schema.nullable(schema.integer())) }),
    headers: schema.object({ "x-trace": schema.optional(schema.nullable(schema.string())) }),
  })], (ctx) => ctx.json({ query: ctx.req.url, trace: ctx.header("x-trace") ?? null })),
  get("/thrown", () => {
    throw new Error("boom");
  }),
  get("/cached", [describe({ responses: { 200: Note, 304: { description: "Not Modified" } } })], (
    ctx,
  ) =>
    ctx.header("if-none-match") === '"v1"'
      ? new Response(null, { status: 304, headers: { etag: '"v1"' } })
      : ctx.json({ id: 1, text: "t" }, { headers: { etag: '"v1"' } })),
  get("/moved", () => new Response(null, { status: 302, headers: { location: "/text" } })),
  get("/bare-problem", () =>
    new Response(null, {
      status: 429,
      statusText: "Too Many Requests",
      headers: { "content-type": "application/problem+json" },
    })),
  get(
    "/odd-problem",
    () =>
      new Response(JSON.stringify({ type: null, title: 7, detail: "slow down" }), {
        status: 429,
        statusText: "Too Many Requests",
        headers: { "content-type": "application/problem+json" },
      }),
  ),
], { onError: () => {} });

Deno.test("client() fills the pattern, writes the query and headers, and sends JSON", async () => {
  const requests: Request[] = [];
  const api = client<typeof app>("http://localhost/base/", {
    headers: { "x-common": "1" },
    fetch: (request) => {
      requests.push(request);
      const url = new URL(request.url);
      return app.fetch(new Request(request.url.replace("/base", ""), request)).then((res) => {
        assert.equal(
          url.pathname.startsWith("/base/echo/") || url.pathname === "/base/notes",
          true,
        );
        return res;
      });
    },
  });
  const res = await api.get("/echo/:id/*rest", {
    params: { id: "a/b?c", rest: "x y/z%" },
    query: { tag: ["1", 2, true], none: undefined, q: "a&b=c" },
    headers: { "x-tenant": "acme" },
    init: { headers: { "x-extra": "e" } },
  });
  assert.equal(
    requests[0].url,
    "http://localhost/base/echo/a%2Fb%3Fc/x%20y/z%25?tag=1&tag=2&tag=true&q=a%26b%3Dc",
  );
  assert.deepEqual(res.data, {
    params: { id: "a/b?c", rest: "x y/z%" },
    query: [["tag", "1"], ["tag", "2"], ["tag", "true"], ["q", "a&b=c"]],
    tenant: "acme",
    extra: "e",
    common: "1",
    path: "/echo/a%2Fb%3Fc/x%20y/z%25",
  });

  const created = await api.post("/notes", { json: { text: "ü" } });
  assert.equal(created.status, 201);
  assert.deepEqual(created.data, { text: "ü", type: "application/json" });
});

Deno.test("client() answers every failure with problem details, never a throw", async () => {
  const api = client<typeof app>("http://localhost", { fetch: app.fetch });
  const broken = await api.get("/broken");
  assert.equal(broken.ok, false);
  assert.equal(broken.status, 200);
  assert.equal(broken.problem?.title, "The response body is not valid JSON");
  assert.match(broken.problem?.detail ?? "", /SyntaxError/);

  const text = await api.get("/text");
  assert.deepEqual([text.ok, text.status, text.data], [true, 200, undefined]);
  assert.equal(await text.response?.text(), "plain"); // left unread for the caller

  // an error that is not JSON (a proxy's page) is a problem too, its body left unread
  const gateway = await api.get("/gateway");
  assert.deepEqual(
    [gateway.ok, gateway.status, gateway.problem?.status, gateway.problem?.title],
    [false, 502, 502, "Bad Gateway"],
  );
  assert.equal(await gateway.response?.text(), "<h1>Bad Gateway</h1>");

  const thrown = await api.get("/thrown");
  assert.deepEqual([thrown.ok, thrown.problem?.status, thrown.problem?.title], [
    false,
    500,
    "Internal Server Error",
  ]);

  // a problem that names no title (an empty body, a title that is not text) gets the status's
  // phrase, as RFC 9457 §3.1 says for "about:blank"
  for (const path of ["/bare-problem", "/odd-problem"] as const) {
    const bare = await api.get(path);
    assert.deepEqual(
      [bare.problem?.type, bare.problem?.title, bare.problem?.status],
      ["about:blank", "Too Many Requests", 429],
      path,
    );
  }

  const refused = await api.post("/notes", { json: { text: 7 } as unknown as { text: string } });
  assert.equal(refused.problem?.status, 400);
  assert.equal(refused.problem?.kind, "type_mismatch");

  const failing = client<typeof app>("http://localhost", {
    fetch: () => Promise.reject(new TypeError("connection refused")),
  });
  const gone = await failing.get("/text");
  assert.deepEqual([gone.ok, gone.status, gone.problem?.status], [false, 0, 0]);
  assert.equal(gone.problem?.detail, "TypeError: connection refused");
});

Deno.test("client() reads a 3xx as an answer, not a problem: a declared 304, a redirect not followed", async () => {
  const api = client<typeof app>("http://localhost", { fetch: app.fetch });
  // a 3xx is an answer, not a problem: a 304 the route declares, a redirect not followed
  const fresh = await api.get("/cached", { init: { headers: { "if-none-match": '"v1"' } } });
  assert.deepEqual([fresh.ok, fresh.status, fresh.problem, fresh.data], [
    false,
    304,
    undefined,
    undefined,
  ]);
  if (!fresh.problem && fresh.status === 304) {
    assert.equal(fresh.response.headers.get("etag"), '"v1"');
  }
  const moved = await api.get("/moved", { init: { redirect: "manual" } });
  assert.deepEqual([moved.status, moved.problem], [302, undefined]);
  assert.equal(moved.response?.headers.get("location"), "/text");
});

Deno.test("client() sends HEAD and OPTIONS: a GET's status and headers without its body, and the allowed methods", async () => {
  const sent: Request[] = [];
  const api = client<typeof app>("http://x", {
    fetch: (request) => (sent.push(request), app.fetch(request)),
  });
  const echo = await api.head("/echo/:id/*rest", { params: { id: 7, rest: "a b" } });
  assert.equal(sent.at(-1)?.method, "HEAD");
  assert.equal(new URL(sent.at(-1)!.url).pathname, "/echo/7/a%20b");
  assert.ok(echo.ok && echo.problem === undefined);
  assert.equal(echo.status, 200);
  assert.equal(echo.data, undefined);
  const get = await app.fetch(new Request("http://x/echo/7/a%20b"));
  assert.equal(echo.response.headers.get("content-length"), String((await get.bytes()).length));
  assert.equal(echo.response.headers.get("content-type"), get.headers.get("content-type"));
  // an error: a problem named by the status's phrase, as the answer carries no body
  const thrown = await api.head("/thrown");
  assert.equal(thrown.status, 500);
  assert.equal(thrown.problem?.type, "about:blank");
  // the standard phrase where the response carries none (app.fetch here, HTTP/2 on a socket)
  assert.equal(thrown.problem?.title, "Internal Server Error");
  // OPTIONS on any path of the app, with its params
  const allowed = await api.options("/notes");
  assert.equal(sent.at(-1)?.method, "OPTIONS");
  assert.equal(allowed.status, 204);
  assert.equal(allowed.data, undefined);
  assert.equal(allowed.response?.headers.get("allow"), "POST, OPTIONS");
  const files = await api.options("/files/:id/raw", { params: { id: "f" } });
  assert.equal(new URL(sent.at(-1)!.url).pathname, "/files/f/raw");
  assert.equal(files.response?.headers.get("allow"), "GET, HEAD, OPTIONS");
});

Deno.test("client() leaves out a null query field or header, as it leaves out undefined", async () => {
  const api = client<typeof app>("http://localhost", { fetch: app.fetch });
  const res = await api.get("/items", { query: { before: null }, headers: { "x-trace": null } });
  assert.deepEqual(res.data, { query: "http://localhost/items", trace: null });
  const set = await api.get("/items", { query: { before: 3 }, headers: { "x-trace": "t" } });
  assert.deepEqual(set.data, { query: "http://localhost/items?before=3", trace: "t" });
});

Deno.test("client() answers a request it cannot build with a status-0 problem, unsent", async () => {
  const sent: Request[] = [];
  const api = client<typeof app>("http://localhost", {
    fetch: (request) => (sent.push(request), app.fetch(request)),
  });
  // a header value that is not a ByteString, a param that is not well-formed UTF-16
  const header = await api.get("/text", { headers: { "x-name": "Zoë 😀" } });
  const param = await api.get("/files/:id/raw", { params: { id: "a\ud800" } });
  for (const [res, error] of [[header, /^TypeError: /], [param, /^URIError: /]] as const) {
    assert.deepEqual([res.ok, res.status, res.problem?.status, res.response], [
      false,
      0,
      0,
      undefined,
    ]);
    assert.equal(res.problem?.title, "The request could not be written");
    assert.match(res.problem?.detail ?? "", error);
  }
  assert.equal(sent.length, 0);
});

Deno.test("client() refuses a call it cannot write: a missing param, an empty one, a dot segment", async () => {
  const sent: Request[] = [];
  const api = client<typeof app>("http://localhost", {
    fetch: (request) => (sent.push(request), app.fetch(request)),
  });
  const call = api.get as (path: string, input?: unknown) => Promise<unknown>;
  await assert.rejects(() => call("/echo/:id/*rest", { params: { id: "1" } }), {
    name: "TypeError",
    message: `Cannot call "/echo/:id/*rest": the param "rest" is missing`,
  });
  // a name that every object inherits is missing too, not Object's constructor
  await assert.rejects(() => call("/raw/:constructor", { params: {} }), {
    name: "TypeError",
    message: `Cannot call "/raw/:constructor": the param "constructor" is missing`,
  });
  await assert.rejects(() => api.get("/echo/:id/*rest", { params: { id: "..", rest: "x" } }), {
    name: "TypeError",
    message: /the param "id" is a dot segment/,
  });
  // "/files//raw" would reach "/files/*path": an empty param names another route
  await assert.rejects(() => api.get("/files/:id/raw", { params: { id: "" } }), {
    name: "TypeError",
    message: `Cannot call "/files/:id/raw": the param "id" is empty`,
  });
  assert.equal(sent.length, 0);
});
