// App hooks: router(routes, { notFound, onError }) and the chain around it that adopts them.
import assert from "node:assert/strict";
import { chain, get, HttpError, type Middleware, router } from "../mod.ts";

const req = (path: string, init?: RequestInit) => new Request(`http://localhost${path}`, init);

Deno.test("notFound answers a path no route matches; 405 stays", async () => {
  const app = router([get("/a", (ctx) => ctx.text("a"))], {
    notFound: (ctx) => ctx.html(`<p>${ctx.path} is not here</p>`, { status: 404 }),
  });
  const missing = await app.fetch(req("/b"));
  assert.equal(missing.status, 404);
  assert.equal(missing.headers.get("content-type"), "text/html; charset=utf-8");
  assert.equal(await missing.text(), "<p>/b is not here</p>");
  const refused = await app.fetch(req("/a", { method: "POST" }));
  assert.equal(refused.status, 405);
  assert.equal(refused.headers.get("allow"), "GET, HEAD, OPTIONS");
});

Deno.test("onError receives errors of handlers, of middleware outside the router and bad returns", async () => {
  const reported: [unknown, string][] = [];
  const failing: Middleware = (ctx, next) => {
    if (ctx.path === "/outer") throw new Error("outer");
    return next();
  };
  const app = chain(
    [failing],
    router([
      get("/inner", () => {
        throw new Error("inner");
      }),
      get("/undefined", () => undefined as unknown as Response),
      get("/http", () => {
        throw new HttpError(409, "taken");
      }),
    ], { onError: (error, ctx) => void reported.push([error, ctx.path]) }),
  );
  for (const path of ["/outer", "/inner", "/undefined"]) {
    const res = await app.fetch(req(path));
    assert.equal(res.status, 500);
    assert.equal(res.headers.get("content-type"), "application/problem+json");
    const body = await res.text();
    assert.ok(!body.includes("outer") && !body.includes("inner"), body);
  }
  assert.equal((await app.fetch(req("/http"))).status, 409); // an HttpError is not reported
  assert.deepEqual(reported.map(([error, path]) => [(error as Error).message.slice(0, 5), path]), [
    ["outer", "/outer"],
    ["inner", "/inner"],
    ["Canno", "/undefined"],
  ]);
});

Deno.test("onError may answer with its own response, which the middleware outside see", async () => {
  const stamp: Middleware = async (_ctx, next) => {
    const res = await next();
    res.headers.set("x-stamp", "1");
    return res;
  };
  const app = chain(
    [stamp],
    router([get("/boom", () => {
      throw new Error("boom");
    })], {
      onError: (error, ctx) => ctx.json({ failed: (error as Error).message }, { status: 503 }),
    }),
  );
  const res = await app.fetch(req("/boom"));
  assert.equal(res.status, 503);
  assert.equal(res.headers.get("x-stamp"), "1");
  assert.deepEqual(await res.json(), { failed: "boom" });
});

Deno.test("a throwing onError still gives the default 500", async () => {
  const app = router([get("/", () => {
    throw new Error("first");
  })], {
    onError: () => {
      throw new Error("second");
    },
  });
  const res = await app.fetch(req("/"));
  assert.equal(res.status, 500);
  assert.equal((await res.json()).title, "Internal Server Error");
});

Deno.test("without onError a 500 is reported on console.error", async () => {
  const lines: unknown[] = [];
  const original = console.error;
  console.error = (line: unknown) => void lines.push(line);
  try {
    const app = router([get("/x", () => {
      throw new Error("bad\nline");
    })]);
    assert.equal((await app.fetch(req("/x"))).status, 500);
  } finally {
    console.error = original;
  }
  assert.equal(lines.length, 1);
  assert.match(String(lines[0]), /^weft: GET \/x failed: /);
});
