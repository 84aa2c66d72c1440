// Conformance cases for timeout() over real sockets, on both runtimes: a handler that is not
// done by the deadline is answered 503 and sees its signal abort; a body still streaming at the
// deadline is cut so that the client sees an error, not a complete response; a body at hand
// keeps its Content-Length; an event stream is never cut: the deadline bounds only its start. No
// case depends on timing: the slow parts wait for the abort itself, and the event stream's late
// event is only checked to arrive.
import assert from "node:assert/strict";
import type { Env } from "./suite.ts";
import type * as Weft from "../../mod.ts";
import { eventually, withDeadline } from "../_deadline.ts";

async function withServer(env: Env, app: Weft.App, fn: (base: string) => Promise<void>) {
  const server = env.weft.serve(app, { port: 0, hostname: "127.0.0.1", onListen() {} });
  try {
    await fn(`http://127.0.0.1:${server.addr.port}`);
  } finally {
    await withDeadline(server.shutdown(), 10_000, "the server to shut down");
  }
}

export const timeoutCases: Record<string, (env: Env) => Promise<void>> = {
  async "timeout(): a handler not done by the deadline gets 503 and an aborted signal"(env) {
    const { chain, get, router, timeout } = env.weft;
    let reason: unknown;
    const app = chain(
      [timeout(100)],
      router([
        get("/slow", (ctx) =>
          new Promise<Response>((resolve) => {
            ctx.req.signal.addEventListener("abort", () => {
              reason = ctx.req.signal.reason;
              resolve(new Response("too late"));
            });
          })),
        get("/fast", () => new Response("fast enough")),
        get("/large", (ctx) => ctx.json({ text: "x".repeat(150_000) })),
        get("/large-bytes", () => new Response(new Uint8Array(200_000).fill(97))),
      ]),
    );
    await withServer(env, app, async (base) => {
      const slow = await env.curl(["--http1.1", `${base}/slow`]);
      assert.equal(slow.status, 503);
      assert.equal(slow.headers.get("content-type"), "application/problem+json");
      assert.equal(JSON.parse(slow.body).status, 503);
      assert.equal((reason as DOMException).name, "TimeoutError");
      const fast = await env.curl(["--http1.1", `${base}/fast`]);
      assert.equal(fast.status, 200);
      assert.equal(fast.headers.get("content-length"), "11");
      assert.equal(fast.body, "fast enough");
      // a body at hand keeps its Content-Length whatever its size
      const large = await env.curl(["--http1.1", `${base}/large`]);
      assert.equal(large.status, 200);
      assert.equal(large.headers.get("content-length"), String(large.body.length));
      assert.equal(large.headers.get("transfer-encoding"), null);
      const bytes = await env.curl(["--http1.1", `${base}/large-bytes`]);
      assert.equal(bytes.headers.get("content-length"), "200000");
    });
  },

  async "timeout(): the signal of a request that a later middleware put in ctx.req aborts too"(
    env,
  ) {
    const { get, group, router, timeout } = env.weft;
    const reasons: Record<string, string> = {};
    // ctx.req replaced by a copy (`new Request(ctx.req, init)` takes the runtime's signal), once
    // or once inside each of two timeouts
    const rewrite: Weft.Middleware = (ctx, next) => {
      ctx.req = new Request(ctx.req, { headers: { "x-rewritten": "1" } });
      return next();
    };
    const slow: Weft.Handler = (ctx) =>
      new Promise<Response>((resolve) => {
        const signal = ctx.req.signal;
        signal.addEventListener("abort", () => {
          reasons[ctx.path] = (signal.reason as DOMException).name;
          resolve(new Response("too late"));
        });
      });
    const app = router([
      group("/once", [timeout(100), rewrite], [get("/", slow)]),
      group("/nested", [timeout(60_000), rewrite, timeout(100), rewrite], [get("/", slow)]),
    ]);
    await withServer(env, app, async (base) => {
      for (const path of ["/once", "/nested"]) {
        const res = await env.curl(["--http1.1", `${base}${path}`]);
        assert.equal(res.status, 503, path);
        await eventually(`the signal of ${path} to abort`, () => reasons[path] !== undefined);
        assert.equal(reasons[path], "TimeoutError", path);
      }
    });
  },

  async "timeout(): a body still streaming at the deadline is cut, not ended"(env) {
    const { chain, get, router, timeout } = env.weft;
    const app = chain(
      [timeout(200)],
      router([get("/stream", () => {
        let sent = false;
        const body = new ReadableStream<Uint8Array>({
          async pull(controller) {
            if (sent) return await new Promise<void>(() => {}); // never another chunk
            sent = true;
            controller.enqueue(new TextEncoder().encode("first chunk\n"));
          },
        }, { highWaterMark: 0 });
        return new Response(body, { headers: { "content-type": "text/plain" } });
      })]),
    );
    await withServer(env, app, async (base) => {
      const res = await withDeadline(fetch(`${base}/stream`), 20_000, "the response");
      assert.equal(res.status, 200);
      const reader = res.body!.getReader();
      const first = await withDeadline(reader.read(), 20_000, "the first chunk");
      assert.equal(new TextDecoder().decode(first.value), "first chunk\n");
      await assert.rejects(withDeadline(reader.read(), 20_000, "the cut"));
      const curl = await env.curl(["--http1.1", `${base}/stream`]).then(
        () => "complete",
        (error: Error) => error.message,
      );
      assert.match(curl, /curl: \(18\)/); // transfer closed with outstanding read data remaining
    });
  },

  async "timeout(): an event stream outlives the deadline, which bounds only its start"(env) {
    const { chain, get, router, sse, timeout } = env.weft;
    const app = chain(
      [timeout(100)],
      router([
        get("/events", (ctx) =>
          sse(ctx, async (stream) => {
            stream.send("before the deadline");
            await new Promise((resolve) => setTimeout(resolve, 300));
            // past the deadline: the stream is open, and the request's signal has not aborted
            stream.send(ctx.req.signal.aborted ? "signal aborted" : "after the deadline");
          })),
        // An event stream returned only once the deadline has passed comes too late.
        get("/late", (ctx) =>
          new Promise<Response>((resolve) => {
            ctx.req.signal.addEventListener("abort", () =>
              resolve(sse(ctx, (stream) => {
                stream.send("too late");
              })));
          })),
      ]),
    );
    await withServer(env, app, async (base) => {
      // HTTP/1.1 (a cut body is curl's error 18) and h2c (a reset stream, error 92)
      for (const flag of ["--http1.1", "--http2-prior-knowledge"]) {
        const res = await env.curl([flag, `${base}/events`]);
        assert.equal(res.status, 200);
        assert.equal(res.headers.get("content-type"), "text/event-stream");
        assert.equal(res.body, ":\ndata: before the deadline\n\ndata: after the deadline\n\n");
      }
      const late = await env.curl(["--http1.1", `${base}/late`]);
      assert.equal(late.status, 503);
      assert.equal(late.headers.get("content-type"), "application/problem+json");
    });
  },
};
