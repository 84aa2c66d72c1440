// Conformance cases for what the app entry points promise on every runtime: app.fetch() and
// serve() give the same answer, HEAD carries the GET's Content-Length, a layer that returns
// something other than a Response becomes a 500, and bodies read from ctx.req obey the body
// limit. Written like suite.ts (plain async functions over Env) so the Node runner runs them
// against the npm build too.
import assert from "node:assert/strict";
import type { Buffer } from "node:buffer";
import { execFile } from "node:child_process";
import * as net from "node:net";
import { promisify } from "node:util";
import type { Env } from "./suite.ts";
import type * as Weft from "../../mod.ts";
import { eventually } from "../_deadline.ts";
import { rawExchange } from "./_raw.ts";

type Case = (env: Env) => Promise<void>;

const run = promisify(execFile);

// Starts a plain server for `app`, runs `fn` with its base URL, and always shuts it down.
async function withServer(
  env: Env,
  app: Weft.App,
  fn: (base: string) => Promise<void>,
): Promise<void> {
  const server = env.weft.serve(app, { port: 0, hostname: "127.0.0.1", onListen() {} });
  try {
    await fn(`http://127.0.0.1:${server.addr.port}`);
  } finally {
    await server.shutdown();
  }
}

// What a client can see of a response, for comparing two answers.
async function seen(res: Response): Promise<Record<string, unknown>> {
  const headers: Record<string, string> = {};
  for (const [name, value] of res.headers) {
    if (
      name !== "date" && name !== "content-length" && name !== "connection" && name !== "keep-alive"
    ) {
      headers[name] = value;
    }
  }
  return { status: res.status, headers, body: await res.text() };
}

const BODY = "x".repeat(405);

function parityApps(weft: Env["weft"]): Record<string, Weft.App> {
  const { chain, get, router, HttpError } = weft;
  const routes = router([
    get("/", (ctx) => ctx.json({ ok: true })),
    get("/throw", () => {
      throw new Error("boom");
    }),
    get("/teapot", () => {
      throw new HttpError(418, "Short and stout");
    }),
  ]);
  return {
    "then() after next()": chain([(_ctx, next) => {
      const pending = next();
      pending.then((res) => res.headers.set("x-then", "1"));
      return pending;
    }], routes),
    "a header set after await next()": chain([async (_ctx, next) => {
      const res = await next();
      res.headers.set("x-after", "1");
      return res;
    }], routes),
    "a chained then()": chain([(_ctx, next) =>
      next().then((res) => {
        res.headers.set("x-chained", "1");
        return res;
      })], routes),
    "pass-through layers": chain([(_ctx, next) => next(), (_ctx, next) => next()], routes),
    "a short-circuit": chain([(ctx) => ctx.json({ short: true }, { status: 202 })], routes),
    "ctx.setHeader() before next()": chain([(ctx, next) => {
      ctx.setHeader("x-before", "1");
      return next();
    }], routes),
    "ctx.res set before next() and after it, around a helper's response": chain([
      async (ctx, next) => {
        ctx.setHeader("vary", "Cookie");
        const res = await next();
        ctx.setHeader("set-cookie", "sid=1; Path=/");
        return res;
      },
    ], routes),
    "a throwing middleware": chain([() => {
      throw new HttpError(409, "conflict");
    }], routes),
    "no middleware": routes,
  };
}

/** The cases of this file. */
export const appCases: Record<string, Case> = {
  async "app.fetch() and serve() give the same status, headers and body"(env) {
    const quietErrors = console.error;
    console.error = () => {};
    try {
      for (const [name, app] of Object.entries(parityApps(env.weft))) {
        await withServer(env, app, async (base) => {
          for (const path of ["/", "/throw", "/teapot", "/missing"]) {
            // HEAD too: a server sends no body for it, and neither does app.fetch()
            for (const method of ["GET", "HEAD"]) {
              const direct = await seen(
                await app.fetch(new Request(`http://127.0.0.1${path}`, { method })),
              );
              const served = await seen(await fetch(base + path, { method }));
              assert.deepEqual(served, direct, `${name}: ${method} ${path}`);
              if (name.startsWith("ctx.res set before next() and after it")) {
                // Not only the same: the cookie set after the helper built the response is on it.
                const headers = served.headers as Record<string, string>;
                assert.equal(headers["set-cookie"], "sid=1; Path=/", `${name}: ${method} ${path}`);
              }
            }
          }
        });
      }
    } finally {
      console.error = quietErrors;
    }
  },

  async "HEAD carries the Content-Length of the GET, or none, on HTTP/1.1 and HTTP/2"(env) {
    const { get, router } = env.weft;
    const app = router([
      get("/text", () => new Response(BODY)),
      get("/json", (ctx) => ctx.json({ body: BODY })),
      get("/later", async () => {
        await new Promise((resolve) => setTimeout(resolve, 1));
        return new Response(new TextEncoder().encode(BODY));
      }),
      // a body of no known length (an event stream): HEAD declares none, not 0
      get(
        "/endless",
        () =>
          new Response(new ReadableStream({ pull: () => new Promise<void>(() => {}) }), {
            headers: { "content-type": "text/event-stream" },
          }),
      ),
    ]);
    const length = String(new TextEncoder().encode(JSON.stringify({ body: BODY })).byteLength);
    const direct = await app.fetch(new Request("http://localhost/text", { method: "HEAD" }));
    assert.equal(direct.headers.get("content-length"), "405");
    assert.equal(await direct.text(), "");
    await withServer(env, app, async (base) => {
      for (const flags of [["--http1.1"], ["--http2-prior-knowledge"]]) {
        for (
          const [path, expected] of [
            ["/text", "405"],
            ["/json", length],
            ["/later", "405"],
            ["/endless", null],
          ]
        ) {
          const res = await env.curl([...flags, "-I", base + path]);
          assert.equal(res.status, 200, `${flags[0]} HEAD ${path}`);
          assert.equal(res.headers.get("content-length"), expected, `${flags[0]} HEAD ${path}`);
          assert.equal(res.body, "");
        }
      }
    });
  },

  async "a handler or middleware that returns no Response gives a 500 naming the route"(env) {
    const { chain, get, router } = env.weft;
    const errors: unknown[] = [];
    const quietErrors = console.error;
    console.error = (...args: unknown[]) => errors.push(args);
    try {
      const wrongs: [string, () => unknown][] = [
        ["undefined", () => undefined],
        ["an object (Object)", () => ({ status: 200 })],
        ["a string", () => "hello"],
      ];
      for (const [what, handler] of wrongs) {
        const seenByLogger: unknown[] = [];
        const app = chain(
          [async (_ctx, next) => {
            const res = await next();
            seenByLogger.push(res.status); // a middleware never sees the wrong value
            return res;
          }, (_ctx, next) => next()],
          router([get("/items/:id", handler as unknown as Weft.Handler)]),
        );
        errors.length = 0;
        const res = await app.fetch(new Request("http://localhost/items/7"));
        assert.ok(res instanceof Response);
        assert.equal(res.status, 500);
        assert.equal(res.headers.get("content-type"), "application/problem+json");
        assert.deepEqual(seenByLogger, [500]);
        const reported = ((errors[0] ?? []) as unknown[]).map(String).join(" ");
        assert.match(reported, /GET \/items\/:id/, what);
        assert.ok(reported.includes(what), `${reported} names ${what}`);
        await withServer(env, app, async (base) => {
          const served = await fetch(base + "/items/7");
          assert.equal(served.status, 500);
          await served.body?.cancel();
        });
      }
      // A middleware that returns nothing at all.
      const bare = chain([() => undefined as unknown as Response], () => new Response("x"));
      const res = await bare.fetch(new Request("http://localhost/"));
      assert.equal(res.status, 500);
    } finally {
      console.error = quietErrors;
    }
  },

  async "bodies read from ctx.req obey the body limit: formData(), text(), the stream"(env) {
    const { bodyLimit, chain, post, router } = env.weft;
    let handled = 0;
    const app = router([
      post("/form", async (ctx) => {
        const form = await ctx.req.formData();
        handled++;
        return ctx.json({ fields: [...form.keys()] });
      }),
      post("/text", async (ctx) => new Response(String((await ctx.req.text()).length))),
      post("/stream", async (ctx) => {
        let n = 0;
        for await (const chunk of ctx.req.body!) n += chunk.byteLength;
        return new Response(String(n));
      }),
    ]);
    const big = new FormData();
    big.append("file", new Blob([new Uint8Array(3_000_000)]), "big.bin");
    const small = new FormData();
    small.append("name", "Ada");
    await withServer(env, chain([], app), async (base) => {
      const over = await fetch(base + "/form", { method: "POST", body: big });
      assert.equal(over.status, 413);
      assert.equal(over.headers.get("content-type"), "application/problem+json");
      await over.body?.cancel();
      assert.equal(handled, 0);
      const ok = await fetch(base + "/form", { method: "POST", body: small });
      assert.deepEqual(await ok.json(), { fields: ["name"] });
      // chunked, no Content-Length: refused while reading
      const chunked = (n: number) =>
        new ReadableStream({
          start(c) {
            c.enqueue(new Uint8Array(n));
            c.close();
          },
        });
      for (const path of ["/text", "/stream"]) {
        const res = await fetch(base + path, {
          method: "POST",
          body: chunked(1_100_000),
          duplex: "half",
        } as RequestInit);
        assert.equal(res.status, 413, path);
        await res.body?.cancel();
      }
    });
    // A larger limit from bodyLimit() applies to ctx.req too.
    const raised = chain([bodyLimit(4_000_000)], app);
    const res = await raised.fetch(
      new Request("http://localhost/form", { method: "POST", body: big }),
    );
    assert.equal(res.status, 200);
  },

  async "ctx.body() after ctx.req's text() is the app's error: a reported 500, not a 400"(env) {
    const { chain, post, router } = env.weft;
    const app = chain([async (ctx, next) => {
      await ctx.req.text(); // e.g. a logging middleware that reads the body
      return await next();
    }], router([post("/", async (ctx) => new Response(await ctx.body()))]));
    const reported: string[] = [];
    const quietErrors = console.error;
    console.error = (...args: unknown[]) => reported.push(args.map(String).join(" "));
    try {
      await withServer(env, app, async (base) => {
        const res = await fetch(base + "/", { method: "POST", body: "hello" });
        assert.equal(res.status, 500);
        await res.body?.cancel();
      });
    } finally {
      console.error = quietErrors;
    }
    assert.match(reported.join("\n"), /TypeError: The request body was already read/);
  },

  async "ctx.req.json() of a broken body, or of a client that left mid-body, is a 400, never a reported 500"(
    env,
  ) {
    const { chain, post, router } = env.weft;
    const outcomes: number[] = [];
    let reading = () => {};
    let answered = () => {};
    const app = chain([async (ctx, next) => {
      if (ctx.header("x-cut") !== null) reading();
      const res = await next();
      outcomes.push(res.status);
      if (ctx.header("x-cut") !== null) answered();
      return res;
    }], router([post("/json", async (ctx) => ctx.json(await ctx.req.json()))]));
    const reported: string[] = [];
    const quietErrors = console.error;
    console.error = (...args: unknown[]) => reported.push(args.map(String).join(" "));
    try {
      await withServer(env, app, async (base) => {
        const headers = { "content-type": "application/json" };
        const bad = await fetch(base + "/json", { method: "POST", headers, body: '{"a":' });
        assert.equal(bad.status, 400);
        assert.equal(bad.headers.get("content-type"), "application/problem+json");
        await bad.body?.cancel();
        const good = await fetch(base + "/json", { method: "POST", headers, body: '{"a":1}' });
        assert.deepEqual(await good.json(), { a: 1 });
        // half a chunked body, then the client goes once the handler is reading it
        const started = new Promise<void>((resolve) => reading = resolve);
        const done = new Promise<void>((resolve) => answered = resolve);
        const socket = net.connect(Number(new URL(base).port), "127.0.0.1");
        socket.on("error", () => {});
        socket.write(
          "POST /json HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n" +
            'X-Cut: 1\r\nTransfer-Encoding: chunked\r\n\r\n5\r\n{"a":\r\n',
        );
        let timer: ReturnType<typeof setTimeout> | undefined;
        const late = new Promise<never>((_, reject) => {
          timer = setTimeout(
            () => reject(new Error("the cut body's handler did not end in 5 s")),
            5_000,
          );
        });
        try {
          await Promise.race([started, late]);
          socket.destroy();
          await Promise.race([done, late]);
        } finally {
          clearTimeout(timer);
          socket.destroy();
        }
        assert.deepEqual(outcomes, [400, 200, 400], "the handler's outcome for the cut body");
      });
    } finally {
      console.error = quietErrors;
    }
    assert.deepEqual(reported, []);
  },

  async "a guard on ctx.decodedPath sees the path the router matches: /%61dmin and /x/../admin are /admin"(
    env,
  ) {
    const { chain, get, HttpError, router } = env.weft;
    const guard: Weft.Middleware = (ctx, next) => {
      if (ctx.decodedPath.startsWith("/admin")) throw new HttpError(403, "admins only");
      return next();
    };
    const app = chain(
      [guard],
      router([
        get("/admin/panel", (ctx) => ctx.json({ raw: ctx.path, route: ctx.route })),
        get("/files/:name", (ctx) => ctx.json({ name: ctx.params.name, path: ctx.decodedPath })),
      ]),
    );
    await withServer(env, app, async (base) => {
      for (const path of ["/admin/panel", "/%61dmin/panel", "/%61%64%6d%69%6e/panel"]) {
        const res = await fetch(base + path);
        assert.equal(res.status, 403, path);
        await res.body?.cancel();
      }
      // %2F stays encoded in the decoded path, so a segment keeps its boundaries
      const res = await fetch(base + "/files/a%2Fb");
      assert.deepEqual(await res.json(), { name: "a/b", path: "/files/a%2Fb" });
      const bad = await fetch(base + "/files/%E0%A4%A");
      assert.equal(bad.status, 400);
      await bad.body?.cancel();
      // dot segments sent as they are (fetch() would resolve them): the router resolves them,
      // so the guard must see the resolved path too, or "/x/../admin" passes it
      const { port } = new URL(base);
      for (const path of ["/x/../admin/panel", "/%2e%2e/admin/panel", "/files/./../admin/panel"]) {
        const answer = await rawRequest(
          env,
          port,
          `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`,
        );
        assert.match(answer, /^HTTP\/1\.1 403 /, path);
      }
      const dotted = await rawRequest(
        env,
        port,
        "GET /files/x/../%2e/b%2Fc HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n",
      );
      assert.ok(dotted.endsWith('{"name":"b/c","path":"/files/b%2Fc"}'), dotted);
    });
    // a 405's Allow is computed on the resolved path too
    const methods = router([get("/admin/panel", () => new Response("panel"))]);
    await withServer(env, methods, async (base) => {
      const answer = await rawRequest(
        env,
        new URL(base).port,
        "DELETE /x/../admin/panel HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n",
      );
      assert.match(answer, /^HTTP\/1\.1 405 /);
      assert.match(answer, /\r\nallow: GET, HEAD, OPTIONS\r\n/i);
    });
    const open = router([
      get("/admin/panel", (ctx) => ctx.json({ raw: ctx.path, route: ctx.route })),
    ]);
    const res = await open.fetch(new Request("http://localhost/%61dmin/panel"));
    assert.deepEqual(await res.json(), { raw: "/%61dmin/panel", route: "/admin/panel" });
  },

  "serve() refuses a cert without its key and a key without its cert, never serving plain HTTP"(
    env,
  ) {
    const app = () => new Response("never");
    const quiet = { port: 0, hostname: "127.0.0.1", onListen() {} };
    for (const half of [{ cert: "-----BEGIN CERTIFICATE-----" }, { key: "-----BEGIN KEY-----" }]) {
      assert.throws(() => env.weft.serve(app, { ...quiet, ...half }), {
        name: "TypeError",
        message: "Cannot serve: cert and key go together",
      });
    }
    return Promise.resolve();
  },

  async "a Host that is not host[:port] gets 400 and never chooses the route"(env) {
    const { get, router } = env.weft;
    const app = router([
      get("/page", () => new Response("page")),
      get("/private/data", () => new Response("private")),
    ]);
    await withServer(env, app, async (base) => {
      const { port } = new URL(base);
      for (const host of ["x/private/data?", "x/private/data#", "x@y", "x\\private", "x y"]) {
        const head = await rawRequest(
          env,
          port,
          `GET /page HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`,
        );
        assert.match(head, /^HTTP\/1\.1 400 /, `Host: ${host}`);
        assert.ok(!head.includes("private"), `Host: ${host}`);
      }
      // RFC 9112 §3.2: two Host lines, or an invalid Host beside an absolute-form target, are a
      // 400 too
      for (
        const request of [
          "GET /page HTTP/1.1\r\nHost: example.com\r\nHost: evil.example\r\n",
          "GET http://example.com/page HTTP/1.1\r\nHost: a/b@evil.example\r\n",
        ]
      ) {
        const head = await rawRequest(env, port, `${request}Connection: close\r\n\r\n`);
        assert.match(head, /^HTTP\/1\.1 400 /, request);
      }
      const ok = await rawRequest(
        env,
        port,
        "GET /page HTTP/1.1\r\nHost: example.com:80\r\nConnection: close\r\n\r\n",
      );
      assert.match(ok, /^HTTP\/1\.1 200 /);
    });
  },

  async "a plain fetch app that throws gets a 500 problem, and the error is logged escaped"(env) {
    const logged: string[] = [];
    const quietErrors = console.error;
    console.error = (...args: unknown[]) => logged.push(args.map(String).join(" "));
    try {
      const app = {
        fetch(): Response {
          throw new Error("plain fetch failed\r\nforged: line");
        },
      };
      await withServer(env, app as unknown as Weft.App, async (base) => {
        const res = await env.curl(["--http1.1", `${base}/`]);
        assert.equal(res.status, 500);
        assert.equal(res.headers.get("content-type"), "application/problem+json");
      });
      const line = logged.find((text) => text.includes("plain fetch failed"));
      assert.ok(line !== undefined, `nothing logged: ${JSON.stringify(logged)}`);
      assert.ok(line.includes("plain fetch failed\\x0d\\x0aforged: line"), line);
    } finally {
      console.error = quietErrors;
    }
  },

  async "a response body that fails after its head is cut and logged, over HTTP/1.1 and HTTP/2"(
    env,
  ) {
    const { get, router } = env.weft;
    const encoder = new TextEncoder();
    const app = router([get("/report", () => {
      let sent = false;
      return new Response(
        new ReadableStream<Uint8Array>({
          async pull(controller) {
            if (!sent) {
              sent = true;
              controller.enqueue(encoder.encode("first rows\n"));
              return;
            }
            await new Promise((resolve) => setTimeout(resolve, 10)); // after the head went out
            controller.error(new Error("the cursor broke\r\nforged: line"));
          },
        }, { highWaterMark: 0 }),
        { headers: { "content-type": "text/plain" } },
      );
    })]);
    const logged: string[] = [];
    const quietErrors = console.error;
    console.error = (...args: unknown[]) => logged.push(args.map(String).join(" "));
    try {
      await withServer(env, app, async (base) => {
        // HTTP/1.1: the connection closes without the last chunk (curl's error 18); h2c: the
        // stream is reset (curl's error 92)
        for (const [flag, code] of [["--http1.1", 18], ["--http2-prior-knowledge", 92]] as const) {
          const cut = await env.curl([flag, `${base}/report`]).then(
            () => "complete",
            (error: Error) => error.message,
          );
          assert.match(cut, new RegExp(`curl: \\(${code}\\)`), flag);
          await eventually(`the failure over ${flag} to be logged`, () => logged.length > 0);
          const line = logged.join("\n");
          assert.ok(line.includes("the cursor broke\\x0d\\x0aforged: line"), line);
          logged.length = 0;
        }
      });
    } finally {
      console.error = quietErrors;
    }
  },

  async "an onError hook that throws or rejects loses nothing: the error is written as without it"(
    env,
  ) {
    const { get, router } = env.weft;
    const logged: string[] = [];
    const quietErrors = console.error;
    console.error = (...args: unknown[]) => logged.push(args.map(String).join(" "));
    try {
      for (
        const onError of [
          () => {
            throw new Error("the error tracker is down");
          },
          () => Promise.reject(new Error("the error tracker is down")),
        ]
      ) {
        logged.length = 0;
        const app = router([get("/charge", () => {
          throw new Error("the card was declined twice");
        })], { onError });
        const res = await app.fetch(new Request("http://localhost/charge"));
        assert.equal(res.status, 500);
        assert.equal(res.headers.get("content-type"), "application/problem+json");
        await res.body?.cancel();
        await eventually("the error to be written", () => logged.length > 0);
        assert.ok(
          logged[0].startsWith("weft: GET /charge failed: Error: the card was declined twice"),
          logged[0],
        );
      }
    } finally {
      console.error = quietErrors;
    }
  },

  async "an absolute-form target without a path is routed as /, not on its query"(env) {
    const { get, router } = env.weft;
    const app = router([
      get("/", (ctx) => ctx.json({ route: ctx.route, path: ctx.path })),
      get("/admin/*rest", () => new Response("admin")),
    ]);
    await withServer(env, app, async (base) => {
      const { port } = new URL(base);
      for (const target of ["http://example.com?x=/admin/secret", "http://example.com/?x=/admin"]) {
        const answer = await rawRequest(
          env,
          port,
          `GET ${target} HTTP/1.1\r\nHost: example.com\r\nConnection: close\r\n\r\n`,
        );
        assert.match(answer, /^HTTP\/1\.1 200 /, target);
        assert.ok(answer.endsWith('{"route":"/","path":"/"}'), `${target}: ${answer}`);
      }
    });
  },

  async "a request with Upgrade and a body is refused with 400, never served without its body"(
    env,
  ) {
    const { post, router } = env.weft;
    let reached = 0;
    const app = router([
      post("/echo", async (ctx) => {
        reached++;
        return new Response(await ctx.body());
      }),
    ]);
    await withServer(env, app, async (base) => {
      const { port } = new URL(base);
      // what `curl --http2 -d hello http://…` sends: an h2c upgrade offer with a body
      const head = await rawRequest(
        env,
        port,
        "POST /echo HTTP/1.1\r\nHost: localhost\r\nConnection: Upgrade, HTTP2-Settings\r\n" +
          "Upgrade: h2c\r\nHTTP2-Settings: AAMAAABkAARAAAAAAAIAAAAA\r\nContent-Length: 5\r\n\r\nhello",
      );
      assert.match(head, /^HTTP\/1\.1 400 /);
      assert.equal(reached, 0);
    });
  },

  async "a response that carries Transfer-Encoding, as a proxied one does, is framed once"(env) {
    const { get, router } = env.weft;
    const te = { "transfer-encoding": "chunked" };
    const bytes = (text: string) => new TextEncoder().encode(text);
    const stream = (...parts: string[]) =>
      new ReadableStream<Uint8Array>({
        async pull(controller) {
          const part = parts.shift();
          if (part === undefined) return controller.close();
          await new Promise((resolve) => setTimeout(resolve, 5));
          controller.enqueue(bytes(part));
        },
      });
    const bodies: Record<string, string> = {};
    const routes = [
      ["/text", "text", () => new Response("text", { headers: te })],
      ["/headers", "in Headers", () => new Response("in Headers", { headers: new Headers(te) })],
      ["/bytes", "bytes", () => new Response(bytes("bytes"), { headers: te })],
      ["/one", "one chunk", () => new Response(stream("one chunk"), { headers: te })],
      ["/two", "two chunks", () => new Response(stream("two ", "chunks"), { headers: te })],
    ] as const;
    for (const [path, body] of routes) bodies[path] = body;
    const app = router([
      ...routes.map(([path, , handler]) => get(path, handler)),
      get("/next", () => new Response("NEXT")),
    ]);
    await withServer(env, app, async (base) => {
      const { port } = new URL(base);
      for (const path of Object.keys(bodies)) {
        const answer = await rawRequest(
          env,
          port,
          `GET ${path} HTTP/1.1\r\nHost: localhost\r\n\r\n` +
            "GET /next HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n",
          { halfClose: false },
        );
        // RFC 9112 §6.2: never both; the body, read by the framing sent, is the whole body
        // and the pipelined response follows it intact.
        const first = readFramed(answer, path);
        assert.equal(first.body, bodies[path], path);
        const second = readFramed(answer.slice(first.end), `${path} then /next`);
        assert.equal(second.body, "NEXT", path);
      }
    });
  },

  async "a body a handler began to read and left is released: the connection serves on"(env) {
    const { bodyLimit, get, post, router } = env.weft;
    const app = router([
      post("/first", async (ctx) => {
        await ctx.req.body!.getReader().read(); // one chunk, then an answer
        return new Response("refused", { status: 422 });
      }),
      // the body's stream made, never read: by a look at it, by bodyLimit()'s refusal of a
      // declared length
      post("/peek", (ctx) => new Response(`${ctx.req.body !== null}`, { status: 422 })),
      post("/limited", [bodyLimit(1024)], () => new Response("never")),
      get("/ping", () => new Response("pong")),
    ]);
    const body = "x".repeat(900_000);
    await withServer(env, app, async (base) => {
      const { port } = new URL(base);
      for (const path of ["/first", "/peek", "/limited"]) {
        for (const framing of ["Content-Length", "chunked"]) {
          const [field, payload] = framing === "chunked"
            ? ["Transfer-Encoding: chunked", `${body.length.toString(16)}\r\n${body}\r\n0\r\n\r\n`]
            : [`Content-Length: ${body.length}`, body];
          const answer = await rawRequest(
            env,
            port,
            `POST ${path} HTTP/1.1\r\nHost: localhost\r\n${field}\r\n\r\n${payload}` +
              "GET /ping HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n",
            { halfClose: false },
          );
          const what = `${path}, ${framing}`;
          assert.match(answer, path === "/limited" ? /^HTTP\/1\.1 413 / : /^HTTP\/1\.1 422 /, what);
          assert.ok(answer.endsWith("\r\n\r\npong"), `${what}: ${answer.slice(-300)}`);
        }
      }
    });
    // HTTP/2 (h2c): the rest of the stream is read or reset, never left waiting for flow control
    await withServer(env, app, async (base) => {
      for (const path of ["/first", "/peek", "/limited"]) {
        const { status, closed } = await h2Upload(base, path, 2_000_000);
        assert.equal(status, path === "/limited" ? 413 : 422, path);
        assert.ok(closed, path);
      }
    });
  },

  async "a body still being read when the response goes out fails the read, never ends it short"(
    env,
  ) {
    const { post, router, timeout, chain } = env.weft;
    let settle!: (outcome: string) => void;
    const outcome = new Promise<string>((resolve) => settle = resolve);
    const app = chain(
      [timeout(100)],
      router([
        post("/", async (ctx) => {
          try {
            settle(`read ${(await ctx.body()).byteLength} bytes`);
          } catch {
            settle("failed");
          }
          return new Response("late");
        }),
      ]),
    );
    await withServer(env, app, async (base) => {
      const socket = net.connect(Number(new URL(base).port), "127.0.0.1");
      socket.on("error", () => {});
      const answered = new Promise<string>((resolve) => {
        let seen = "";
        socket.on("data", (chunk: Buffer) => {
          seen += chunk.toString("latin1");
          if (seen.includes("\r\n\r\n")) resolve(seen);
        });
      });
      socket.write("POST / HTTP/1.1\r\nHost: localhost\r\nContent-Length: 1000\r\n\r\nabc");
      let timer: ReturnType<typeof setTimeout> | undefined;
      try {
        const deadline = new Promise<never>((_, reject) =>
          timer = setTimeout(() => reject(new Error("no 503 and settled read within 5 s")), 5_000)
        );
        const [head, settled] = await Promise.race([Promise.all([answered, outcome]), deadline]);
        assert.match(head, /^HTTP\/1\.1 503 /);
        assert.equal(settled, "failed");
      } finally {
        clearTimeout(timer);
        socket.destroy();
      }
    });
  },
};

// rawExchange() with the client ending its side after the bytes unless `halfClose` is false
// (Deno.serve drops a streamed response to a client that has ended its side).
function rawRequest(
  _env: Env,
  port: string,
  text: string,
  { halfClose = true } = {},
): Promise<string> {
  return rawExchange(Number(port), text, { halfClose });
}

// Reads one HTTP/1.1 response from the start of `text` by its own framing (chunked, or a
// Content-Length; never both); returns its body and where the response ends.
function readFramed(text: string, what: string): { body: string; end: number } {
  const split = text.indexOf("\r\n\r\n");
  assert.ok(text.startsWith("HTTP/1.1 200 ") && split !== -1, `${what}: ${text}`);
  const head = text.slice(0, split).toLowerCase();
  const chunked = /\r\ntransfer-encoding: *chunked\r?$/m.test(head);
  const length = /\r\ncontent-length: *(\d+)/.exec(head);
  assert.ok(!(chunked && length), `${what}: Transfer-Encoding and Content-Length: ${head}`);
  let at = split + 4;
  if (!chunked) {
    assert.ok(length, `${what}: no framing: ${head}`);
    return { body: text.slice(at, at + Number(length[1])), end: at + Number(length[1]) };
  }
  let body = "";
  for (;;) {
    const line = text.indexOf("\r\n", at);
    assert.ok(line !== -1, `${what}: a cut chunk: ${text}`);
    const size = parseInt(text.slice(at, line), 16);
    at = line + 2;
    if (size === 0) return { body, end: text.indexOf("\r\n", at) + 2 };
    body += text.slice(at, at + size);
    at += size + 2;
  }
}

// POSTs `bytes` over h2c with Node's HTTP/2 client (Deno's node:http2 client does not close a
// stream the server resets with NO_ERROR after its answer, which the Deno server does), and
// waits (bounded) for the answer's status and for the stream to close, whichever way: a server
// that stops reading and neither reads on nor resets the stream leaves the upload waiting for
// flow control, and the stream open.
async function h2Upload(
  base: string,
  path: string,
  bytes: number,
): Promise<{ status: number; closed: boolean }> {
  const client = `
    const http2 = require("node:http2");
    const [base, path, bytes] = process.argv.slice(1);
    const session = http2.connect(base);
    let status = 0;
    const timer = setTimeout(() => {
      console.log(JSON.stringify({ status, closed: false }));
      process.exit(0);
    }, 10000);
    session.on("error", () => {});
    const stream = session.request({ ":method": "POST", ":path": path });
    stream.on("response", (headers) => status = Number(headers[":status"]));
    stream.on("error", () => {}); // a reset once the answer is out is one way to end it
    stream.resume();
    stream.on("close", () => {
      clearTimeout(timer);
      session.close();
      console.log(JSON.stringify({ status, closed: true }));
    });
    stream.end(Buffer.alloc(Number(bytes), 120));`;
  const { stdout } = await run("node", ["-e", client, base, path, String(bytes)], {
    timeout: 20_000,
  });
  return JSON.parse(stdout);
}
