import assert from "node:assert/strict";
import {
  bodyLimit,
  chain,
  Context,
  get,
  head,
  HttpError,
  type Middleware,
  type Params,
  response,
  router,
  text,
} from "../mod.ts";
import { type InternalApp, RESPOND } from "../lib/_app.ts";

const req = (path = "/", init?: RequestInit) => new Request(`http://localhost${path}`, init);

// Keeps the default report of a 500 (console.error) out of the test output.
function quietly<T>(fn: () => Promise<T>): Promise<T> {
  const original = console.error;
  console.error = () => {};
  return fn().finally(() => console.error = original);
}

Deno.test("chain() runs middleware in order and responses return in reverse", async () => {
  const order: string[] = [];
  const tag = (name: string): Middleware => async (_ctx, next) => {
    order.push(`${name}>`);
    const res = await next();
    order.push(`<${name}`);
    return res;
  };
  const app = chain([tag("A"), tag("B"), tag("C")], () => {
    order.push("handler");
    return new Response("ok");
  });
  assert.equal(await (await app.fetch(req())).text(), "ok");
  assert.deepEqual(order, ["A>", "B>", "C>", "handler", "<C", "<B", "<A"]);
});

Deno.test("chain() lets a middleware short-circuit without calling next()", async () => {
  let reached = false;
  const app = chain([() => new Response("stop", { status: 403 })], () => {
    reached = true;
    return new Response("never");
  });
  const res = await app.fetch(req());
  assert.equal(res.status, 403);
  assert.equal(reached, false);
});

Deno.test("chain() turns a second next() call into a 500", async () => {
  let handlerRuns = 0;
  const twice: Middleware = async function twice(_ctx, next) {
    await next();
    return await next();
  };
  const res = await quietly(() =>
    chain([twice], () => {
      handlerRuns++;
      return new Response("x");
    }).fetch(req())
  );
  assert.equal(res.status, 500);
  assert.equal(handlerRuns, 1);
});

Deno.test("chain() lets a middleware ignore its second next() without an unhandled rejection", async () => {
  // An unhandled rejection fails this test (and would end a server process on Deno).
  const app = chain([(_ctx, next) => {
    const first = next();
    next(); // ignored: its rejection must be handled
    return first;
  }], () => new Response("ok"));
  const res = await app.fetch(req());
  assert.equal(await res.text(), "ok");
  // one more turn of the event loop, where an unhandled rejection would be reported
  await new Promise((resolve) => setTimeout(resolve, 0));
});

Deno.test("chain() answers 500 with a problem body and no stack when a handler throws", async () => {
  let seen: unknown;
  const app = chain([async (ctx, next) => {
    const res = await next();
    seen = ctx.error;
    res.headers.set("x-outer", "saw-it");
    return res;
  }], () => {
    throw new Error("secret database password in stack");
  });
  const res = await quietly(() => app.fetch(req()));
  assert.equal(res.status, 500);
  assert.equal(res.headers.get("content-type"), "application/problem+json");
  assert.equal(res.headers.get("x-outer"), "saw-it");
  const body = await res.text();
  assert.ok(!body.includes("secret"), body);
  assert.ok(!body.includes("at "), body);
  assert.ok(seen instanceof Error);
});

Deno.test("chain() turns a thrown HttpError into its status, in handlers and middleware", async () => {
  const fromHandler = chain([], () => {
    throw new HttpError(418, "I am a teapot", { headers: { "x-tea": "1" } });
  });
  const res = await fromHandler.fetch(req());
  assert.equal(res.status, 418);
  assert.equal(res.headers.get("x-tea"), "1");
  assert.equal((await res.json()).detail, "I am a teapot");
  const fromMiddleware = chain([() => {
    throw new HttpError(429, "Slow down");
  }], () => new Response("x"));
  assert.equal((await fromMiddleware.fetch(req())).status, 429);
});

Deno.test("chain() recovers from async rejections and non-Error throws", async () => {
  const app = chain([], () => Promise.reject("a string"));
  assert.equal((await quietly(() => app.fetch(req()))).status, 500);
});

Deno.test("ctx.setHeader() before next() reaches a response the handler built itself", async () => {
  const app = chain([async (ctx, next) => {
    ctx.setHeader("x-request-id", "abc");
    ctx.setHeader("set-cookie", "a=1");
    ctx.setHeader("set-cookie", "b=2");
    ctx.setHeader("vary", "Origin");
    return await next();
  }], () => new Response("x", { headers: { "x-own": "1", vary: "Accept" } }));
  const res = await app.fetch(req());
  assert.equal(res.headers.get("x-request-id"), "abc");
  assert.equal(res.headers.get("x-own"), "1");
  assert.deepEqual(res.headers.getSetCookie(), ["a=1", "b=2"]);
  assert.equal(res.headers.get("vary"), "Accept, Origin");
});

Deno.test("a response's own header wins over ctx.setHeader()", async () => {
  const app = chain([async (ctx, next) => {
    ctx.setHeader("cache-control", "no-store");
    return await next();
  }], () => new Response("x", { headers: { "cache-control": "max-age=60" } }));
  assert.equal((await app.fetch(req())).headers.get("cache-control"), "max-age=60");
});

Deno.test("headers reach responses with immutable headers too", async () => {
  const app = chain([async (ctx, next) => {
    ctx.setHeader("x-a", "1");
    return await next();
  }], () => Response.redirect("http://localhost/elsewhere", 302));
  const res = await app.fetch(req());
  assert.equal(res.status, 302);
  assert.equal(res.headers.get("x-a"), "1");
});

Deno.test("response() and ctx.json() inherit ctx.res headers and status", async () => {
  const app = chain(
    [async (ctx, next) => {
      ctx.setHeader("x-a", "1");
      ctx.res.status = 201;
      return await next();
    }],
    router([
      get("/json", (ctx) => ctx.json({ ok: true })),
      get("/text", (ctx) => response(ctx, 202, text("hi"))),
    ]),
  );
  const json = await app.fetch(req("/json"));
  assert.equal(json.status, 201);
  assert.equal(json.headers.get("x-a"), "1");
  assert.equal(json.headers.get("content-type"), "application/json");
  const plain = await app.fetch(req("/text"));
  assert.equal(plain.status, 202);
  assert.equal(plain.headers.get("content-type"), "text/plain; charset=utf-8");
  assert.equal(plain.headers.get("x-a"), "1");
});

Deno.test("outer middleware can add headers after next()", async () => {
  const app = chain([async (_ctx, next) => {
    const res = await next();
    res.headers.set("x-after", "1");
    return res;
  }], router([get("/", (ctx) => ctx.json(1))]));
  assert.equal((await app.fetch(req())).headers.get("x-after"), "1");
});

Deno.test("ctx.set() and ctx.get() keep variables per request", async () => {
  const token: Middleware<{ token: string }> = async (ctx, next) => {
    ctx.set("token", "t-1");
    return await next();
  };
  const app = chain([token], (ctx) => new Response(ctx.get("token") + ctx.var.token));
  assert.equal(await (await app.fetch(req())).text(), "t-1t-1");
  assert.equal(new Context<Params, { token: string }>(req()).get("token"), undefined);
});

Deno.test("ctx.req can be replaced by middleware, and the path follows it", async () => {
  const app = chain([async (ctx, next) => {
    ctx.req = new Request(new URL("/rewritten", ctx.req.url), ctx.req);
    return await next();
  }], router([get("/rewritten", () => new Response("yes"))]));
  assert.equal(await (await app.fetch(req("/original"))).text(), "yes");
});

Deno.test("ctx.body() reads the body", async () => {
  const ctx = new Context(req("/", { method: "POST", body: "hello" }));
  assert.equal(new TextDecoder().decode(await ctx.body()), "hello");
  assert.equal((await ctx.body()).byteLength, 5);
  assert.equal((await new Context(req()).body()).byteLength, 0);
});

Deno.test("ctx.body() answers 413 when Content-Length exceeds the limit", async () => {
  const app = chain([], async (ctx) => new Response(await ctx.body()));
  const res = await app.fetch(
    req("/", {
      method: "POST",
      body: "x".repeat(10),
      headers: { "content-length": String(2 * 1024 * 1024) },
    }),
  );
  assert.equal(res.status, 413);
  assert.equal(res.headers.get("content-type"), "application/problem+json");
});

Deno.test("ctx.body() answers 413 while reading a chunked body that exceeds the limit", async () => {
  let pulled = 0;
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      pulled++;
      if (pulled > 1000) controller.close();
      else controller.enqueue(new Uint8Array(64 * 1024));
    },
  });
  const app = chain([async (ctx, next) => {
    ctx.bodyLimit = 256 * 1024;
    return await next();
  }], async (ctx) => new Response(await ctx.body()));
  const res = await app.fetch(req("/", { method: "POST", body: stream }));
  assert.equal(res.status, 413);
  assert.ok(pulled < 20, `read ${pulled} chunks after the limit was reached`);
});

Deno.test("ctx.body() bounds a body longer than its declared Content-Length", async () => {
  const app = chain([async (ctx, next) => {
    ctx.bodyLimit = 100;
    return await next();
  }], async (ctx) => new Response(await ctx.body()));
  const res = await app.fetch(
    req("/", { method: "POST", body: "y".repeat(1000), headers: { "content-length": "10" } }),
  );
  assert.equal(res.status, 413);
});

Deno.test("ctx.body() after the body was read another way is the app's error, not the client's", async () => {
  // Reading a body twice is a bug of the app: a 500 that is reported, never a 400 that blames
  // the client or an empty body that passes for what the client sent.
  const reported: unknown[] = [];
  const original = console.error;
  console.error = (...args: unknown[]) => reported.push(...args);
  try {
    for (const read of ["text", "stream", "for await", "one chunk"] as const) {
      reported.length = 0;
      const app = chain([async (ctx, next) => {
        if (read === "text") await ctx.req.text();
        else if (read === "stream") ctx.req.body!.getReader();
        else if (read === "for await") { for await (const _ of ctx.req.body!); }
        else {
          const reader = ctx.req.body!.getReader();
          await reader.read();
          reader.releaseLock(); // what is left would pass for the whole body
        }
        assert.equal(ctx.req.bodyUsed, read !== "stream", read);
        return await next();
      }], async (ctx) => new Response(await ctx.body()));
      const res = await app.fetch(req("/", { method: "POST", body: "hello" }));
      assert.equal(res.status, 500, read);
      assert.match(
        reported.map(String).join(" "),
        /TypeError: The request body was already read/,
        read,
      );
    }
  } finally {
    console.error = original;
  }
});

Deno.test("ctx.req.json() after ctx.body() is the app's error, not a 400 for a valid body", async () => {
  const reported: string[] = [];
  const original = console.error;
  console.error = (...args: unknown[]) => reported.push(args.map(String).join(" "));
  try {
    const app = chain([async (ctx, next) => {
      await ctx.body(); // read before ctx.req was ever bounded
      return await next();
    }], async (ctx) => Response.json(await ctx.req.json()));
    const res = await app.fetch(req("/", { method: "POST", body: '{"ok":true}' }));
    assert.equal(res.status, 500);
    assert.match(reported.join("\n"), /TypeError: The request body was already read/);
  } finally {
    console.error = original;
  }
});

Deno.test("ctx.body() and bodyLimit() after a read of ctx.req.clone() get the whole body", async () => {
  // each half of a tee'd body is whole: reading the clone is not reading the body
  const app = chain([async (ctx, next) => {
    assert.equal(await ctx.req.clone().text(), "hello");
    assert.equal(ctx.req.bodyUsed, false);
    return await next();
  }, bodyLimit(100)], async (ctx) => new Response(await ctx.body()));
  const res = await app.fetch(req("/", { method: "POST", body: "hello" }));
  assert.equal(await res.text(), "hello");
});

Deno.test("ctx.req's body methods answer 400 for what the client sent, never the app's 500", async () => {
  const app = chain([], async (ctx) => {
    const how = ctx.query("how");
    if (how === "json") return Response.json(await ctx.req.json());
    if (how === "form") return Response.json([...(await ctx.req.formData()).keys()]);
    return new Response(await ctx.req.text());
  });
  const send = (how: string, body: string | null, type?: string) =>
    app.fetch(req(`/?how=${how}`, {
      method: "POST",
      body,
      headers: type === undefined ? {} : { "content-type": type },
    }));
  const cases: [string, string | null, string | undefined, RegExp][] = [
    ["json", '{"a":', "application/json", /by json\(\)/],
    ["json", null, "application/json", /by json\(\)/],
    ["form", "a=1", "text/plain", /by formData\(\)/],
    ["form", "x", "multipart/form-data", /by formData\(\)/], // no boundary
  ];
  for (const [how, body, type, detail] of cases) {
    const res = await send(how, body, type);
    assert.equal(res.status, 400, `${how} ${body}`);
    assert.equal(res.headers.get("content-type"), "application/problem+json");
    assert.match((await res.json()).detail, detail);
  }
  assert.equal(await (await send("json", '{"a":1}', "application/json")).text(), '{"a":1}');
  assert.equal(
    await (await send("form", "a=1", "application/x-www-form-urlencoded")).text(),
    '["a"]',
  );
  // a stream that breaks off, as when the client leaves mid-body
  const broken = new ReadableStream({
    start(controller) {
      controller.enqueue(new TextEncoder().encode("par"));
      controller.error(new Error("connection reset"));
    },
  });
  const cut = await app.fetch(
    req("/?how=text", { method: "POST", body: broken, duplex: "half" } as RequestInit),
  );
  assert.equal(cut.status, 400);
});

Deno.test("app.fetch() answers HEAD with the head a server sends: no body, the length the body had", async () => {
  const app = router([
    head("/ten", () => new Response("0123456789")),
    get(
      "/stream",
      () =>
        new Response(new ReadableStream({ pull() {} }), {
          headers: { "content-type": "text/event-stream" },
        }),
    ),
    get("/page", () => new Response("page")),
  ]);
  const answer = async (path: string) => {
    const res = await app.fetch(req(path, { method: "HEAD" }));
    return {
      status: res.status,
      length: res.headers.get("content-length"),
      body: await res.text(),
    };
  };
  assert.deepEqual(await answer("/ten"), { status: 200, length: "10", body: "" });
  assert.deepEqual(await answer("/page"), { status: 200, length: "4", body: "" });
  const missing = await app.fetch(req("/missing"));
  const missingLength = String((await missing.arrayBuffer()).byteLength);
  assert.deepEqual(await answer("/missing"), { status: 404, length: missingLength, body: "" });
  // a body of unknown length: none declared (a runtime would write 0 for a null body)
  const stream = await app.fetch(req("/stream", { method: "HEAD" }));
  assert.equal(stream.headers.get("content-length"), null);
  assert.notEqual(stream.body, null);
  assert.equal(await stream.text(), "");
});

Deno.test("chain() with no middleware does not decorate the caller's handler", () => {
  const handler = () => new Response("x");
  chain([], handler);
  assert.equal("fetch" in handler, false);
});

Deno.test("chain() rejects a non-function middleware when composed", () => {
  assert.throws(
    () => chain([42 as unknown as Middleware], () => new Response()),
    /middleware 0 is not a function/,
  );
});

Deno.test("the server entry point answers synchronously only when no middleware could still change the response", async () => {
  // A router or handler alone: nothing can act on the response after it is returned.
  const plain = chain([], (ctx) => response(ctx, 200, text("hi"))) as InternalApp;
  const direct = plain[RESPOND](req());
  assert.ok(direct instanceof Response, "a response, not a promise");
  assert.equal(await direct.text(), "hi");

  // Behind middleware the promise is kept: a middleware that hands back next()'s promise may
  // still change the response in a then() callback, and the server must see that change as
  // app.fetch() does.
  const late: Middleware = (_ctx, next) => {
    const pending = next();
    pending.then((res) => res.headers.set("x-then", "1"));
    return pending;
  };
  const app = chain([late], (ctx) => response(ctx, 200, text("hi"))) as InternalApp;
  const served = app[RESPOND](req());
  assert.ok(served instanceof Promise);
  assert.equal((await served).headers.get("x-then"), "1");
  assert.equal((await app.fetch(req())).headers.get("x-then"), "1");

  // A throw behind pass-through middleware is still a problem response.
  const pass: Middleware = (_ctx, next) => next();
  const failing = chain([pass], () => {
    throw new HttpError(418, "teapot");
  }) as InternalApp;
  assert.equal((await failing[RESPOND](req())).status, 418);
});

Deno.test("the default error reporter escapes control characters from the request", async () => {
  const app = router([
    get("/users/:id", (ctx) => {
      throw new Error(`no user ${ctx.params.id}`, { cause: ctx.req.headers.get("x-note") });
    }),
  ]);
  const printed: string[] = [];
  const original = console.error;
  console.error = (...args: unknown[]) => printed.push(args.map(String).join(" "));
  try {
    const forged = "%0D%0A2025-01-01T00:00:00.000Z%20GET%20%2Fadmin%20200%C2%85%E2%80%A8x%1B[2J";
    const res = await app.fetch(req(`/users/${forged}`, { headers: { "x-note": "a\x7fb" } }));
    assert.equal(res.status, 500);
  } finally {
    console.error = original;
  }
  const output = printed.join("\n");
  const lines = output.split("\n");
  assert.match(lines[0], /^weft: GET \/users\/%0D%0A2025.* failed: Error: no user \\x0d\\x0a2025/);
  assert.ok(lines[0].includes("\\x85\\u2028x\\x1b[2J"), lines[0]);
  for (const line of lines.slice(1)) assert.match(line, /^( {4}at |Caused by: a\\x7fb$)/, line);
  // deno-lint-ignore no-control-regex
  assert.ok(!/[\0-\x09\x0b-\x1f\x7f-\x9f\u2028\u2029]/.test(output), JSON.stringify(output));
});

Deno.test("Vary: * from ctx.setHeader() or from the response stays a lone *", async () => {
  const fromCtx = chain([async (ctx, next) => {
    ctx.setHeader("vary", "*");
    return await next();
  }], () => new Response("x", { headers: { vary: "Accept" } }));
  assert.equal((await fromCtx.fetch(req())).headers.get("vary"), "*");
  const fromResponse = chain([async (ctx, next) => {
    ctx.setHeader("vary", "Origin");
    return await next();
  }], () => new Response("x", { headers: { vary: "*" } }));
  assert.equal((await fromResponse.fetch(req())).headers.get("vary"), "*");
});
