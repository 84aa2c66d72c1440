// The response helpers of Context: ctx.text(), ctx.html(), ctx.json(), ctx.redirect(); each
// carries ctx.res (status and headers) exactly once.
import assert from "node:assert/strict";
import { chain, Context, get, type Middleware, response, router, schema, text } from "../mod.ts";

const req = (path = "/") => new Request(`http://localhost${path}`);

Deno.test("ctx.text() and ctx.html() set the type, the status and the init headers", async () => {
  const ctx = new Context(req());
  const plain = ctx.text("hi", { status: 201, headers: { "x-a": "1" } });
  assert.equal(plain.status, 201);
  assert.equal(plain.headers.get("content-type"), "text/plain; charset=utf-8");
  assert.equal(plain.headers.get("x-a"), "1");
  assert.equal(await plain.text(), "hi");
  const page = ctx.html("<b>x</b>", { headers: { "content-type": "text/html" } });
  assert.equal(page.headers.get("content-type"), "text/html"); // init wins over the default
});

Deno.test("helpers take ctx.res status and headers; init overrides them", () => {
  const ctx = new Context(req());
  ctx.res.status = 202;
  ctx.setHeader("x-trace", "t");
  ctx.setHeader("set-cookie", "a=1");
  const res = ctx.json({ ok: true }, { headers: { "set-cookie": "b=2", "x-trace": "u" } });
  assert.equal(res.status, 202);
  assert.equal(res.headers.get("x-trace"), "u");
  assert.deepEqual(res.headers.getSetCookie(), ["a=1", "b=2"]);
  assert.equal(ctx.text("x", { status: 200 }).status, 200);
});

Deno.test("ctx.res headers reach a helper's response once: a header the handler removed stays removed", async () => {
  const session: Middleware = async (ctx, next) => {
    ctx.setHeader("x-session", "s");
    ctx.setHeader("vary", "Cookie");
    ctx.setHeader("set-cookie", "sid=1");
    return await next();
  };
  const app = chain(
    [session],
    router([
      get("/removed", (ctx) => {
        const res = ctx.text("x");
        res.headers.delete("x-session");
        return res;
      }),
      get("/kept", (ctx) => ctx.json([1])),
      get("/built", () => new Response("own", { headers: { vary: "Accept" } })),
      get("/response", (ctx) => response(ctx, 200, text("t"))),
    ]),
  );
  const removed = await app.fetch(req("/removed"));
  assert.equal(removed.headers.get("x-session"), null);
  const kept = await app.fetch(req("/kept"));
  assert.equal(kept.headers.get("x-session"), "s");
  assert.equal(kept.headers.get("vary"), "Cookie");
  assert.deepEqual(kept.headers.getSetCookie(), ["sid=1"]);
  // A response the handler built itself inherits ctx.res at the app's entry point.
  const built = await app.fetch(req("/built"));
  assert.equal(built.headers.get("vary"), "Accept, Cookie");
  assert.deepEqual(built.headers.getSetCookie(), ["sid=1"]);
  const helper = await app.fetch(req("/response"));
  assert.deepEqual(helper.headers.getSetCookie(), ["sid=1"]);
  assert.equal(helper.headers.get("vary"), "Cookie");
});

Deno.test("a header set after next() returned a helper's response reaches it, once", async () => {
  // The session's shape: a header before the handler builds its response, a cookie after.
  const session: Middleware = async (ctx, next) => {
    ctx.setHeader("vary", "Cookie");
    const res = await next();
    ctx.setHeader("set-cookie", "sid=2");
    ctx.res.headers.set("x-after", "1");
    return res;
  };
  const app = chain(
    [session],
    router([
      get("/json", (ctx) => ctx.json({ ok: true })),
      get("/redirect", (ctx) => ctx.redirect("/next", 303)),
      get("/removed", (ctx) => {
        const res = ctx.text("x");
        res.headers.delete("vary");
        return res;
      }),
    ]),
  );
  for (const path of ["/json", "/redirect"]) {
    const res = await app.fetch(req(path));
    assert.deepEqual(res.headers.getSetCookie(), ["sid=2"], path);
    assert.equal(res.headers.get("x-after"), "1", path);
    assert.equal(res.headers.get("vary"), "Cookie", path);
    await res.body?.cancel();
  }
  // Touching ctx.res after the build applies it again: a header the handler removed comes back
  // (what the response has still wins over ctx.res).
  const removed = await app.fetch(req("/removed"));
  assert.equal(removed.headers.get("vary"), "Cookie");
});

Deno.test("ctx.json(value, { schema }) writes only the schema's fields", async () => {
  const PublicUser = schema.object({ id: schema.integer(), name: schema.string() });
  const row = { id: 1, name: "Ada", passwordHash: "secret" };
  const res = new Context(req()).json(row, { schema: PublicUser, status: 200 });
  assert.equal(res.headers.get("content-type"), "application/json");
  assert.equal(await res.text(), '{"id":1,"name":"Ada"}');
  assert.throws(
    () => new Context(req()).json({ id: 1.5, name: "x" }, { schema: PublicUser }),
    TypeError,
  );
});

Deno.test("ctx.redirect() sends 302 by default, the statuses of RFC 9110 §15.4, no CR or LF", () => {
  const ctx = new Context(req());
  ctx.setHeader("x-a", "1");
  const res = ctx.redirect("/login");
  assert.equal(res.status, 302);
  assert.equal(res.headers.get("location"), "/login");
  assert.equal(res.headers.get("x-a"), "1");
  for (const status of [301, 302, 303, 307, 308] as const) {
    assert.equal(ctx.redirect("https://example.com/", status).status, status);
  }
  for (const status of [200, 300, 304, 305, 306, 309, 302.5]) {
    assert.throws(() => ctx.redirect("/", status as 302), TypeError);
  }
  for (const location of ["/a\r\nSet-Cookie: x=1", "/a\nb", "/a\rb"]) {
    assert.throws(() => ctx.redirect(location), TypeError);
  }
});

Deno.test("ctx.redirect() percent-encodes what a URI cannot hold, as UTF-8", () => {
  const ctx = new Context(req());
  const cases: [string, string][] = [
    ["/日本", "/%E6%97%A5%E6%9C%AC"], // Headers refused it: a 500
    ["/café?q=é", "/caf%C3%A9?q=%C3%A9"], // it went out as the Latin-1 byte 0xE9
    ["/a b\tc\0", "/a%20b%09c%00"],
    ["/\u2028\ud83d", "/%E2%80%A8%EF%BF%BD"], // a lone surrogate is U+FFFD
    ["/already%20encoded?a=1&b=%C3%A9#f", "/already%20encoded?a=1&b=%C3%A9#f"],
    ["https://example.com/x?y=<z>", "https://example.com/x?y=<z>"],
  ];
  for (const [location, sent] of cases) {
    assert.equal(ctx.redirect(location).headers.get("location"), sent);
  }
});

Deno.test("ctx.var, ctx.set() and ctx.get() share one store per request", () => {
  const ctx = new Context<{ id: string }, { n: number }>(req());
  ctx.set("n", 1);
  assert.equal(ctx.var.n, 1);
  ctx.var.n = 2;
  assert.equal(ctx.get("n"), 2);
  assert.equal(new Context<{ id: string }, { n: number }>(req()).get("n"), undefined);
});

Deno.test("ctx.path is / when the authority is followed by a query (RFC 3986 §3.3)", () => {
  // a runtime may hand over the target of an absolute-form request as it came
  const request = (url: string) => ({ url, headers: new Headers() }) as unknown as Request;
  for (const url of ["http://a.example?x=/admin", "http://a.example?", "https://a.example"]) {
    assert.equal(new Context(request(url)).path, "/", url);
  }
  assert.equal(new Context(request("http://a.example/b/c?x=/d")).path, "/b/c");
  assert.equal(new Context(request("http://a.example:8000/?x")).path, "/");
});
