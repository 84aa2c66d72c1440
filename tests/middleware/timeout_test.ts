import assert from "node:assert/strict";
import { chain, get, router, timeout } from "../../mod.ts";

Deno.test("timeout() refuses a deadline that is not a positive integer", () => {
  for (const ms of [0, -1, 1.5, NaN]) assert.throws(() => timeout(ms), RangeError);
});

Deno.test("timeout() leaves a response ready in time as it is and its signal unaborted", async () => {
  let signal: AbortSignal | undefined;
  const app = chain(
    [timeout(10_000)],
    router([get("/", (ctx) => {
      signal = ctx.req.signal;
      return new Response("ok", { status: 201, headers: { "x-kept": "yes" } });
    })]),
  );
  const res = await app.fetch(new Request("http://localhost/"));
  assert.equal(res.status, 201);
  assert.equal(res.headers.get("x-kept"), "yes");
  assert.equal(await res.text(), "ok");
  assert.equal(signal?.aborted, false);
});

Deno.test("timeout() aborts the handler's signal when the client's signal aborts", async () => {
  const client = new AbortController();
  let seen: AbortSignal | undefined;
  const app = chain(
    [timeout(10_000)],
    router([get("/", (ctx) => {
      seen = ctx.req.signal;
      client.abort();
      return new Response("gone");
    })]),
  );
  const res = await app.fetch(new Request("http://localhost/", { signal: client.signal }));
  await res.body?.cancel();
  assert.equal(seen?.aborted, true);
});

Deno.test("timeout() cancels the late response's body once the 503 went out", async () => {
  let cancelled = false;
  let finish: (res: Response) => void = () => {};
  const app = chain(
    [timeout(10)],
    router([get("/", () => new Promise<Response>((resolve) => finish = resolve))]),
  );
  const res = await app.fetch(new Request("http://localhost/"));
  assert.equal(res.status, 503);
  const { promise, resolve } = Promise.withResolvers<void>();
  finish(
    new Response(
      new ReadableStream({
        cancel() {
          cancelled = true;
          resolve();
        },
      }),
    ),
  );
  await promise;
  assert.equal(cancelled, true);
});

Deno.test("timeout() reads the runtime's request signal only when the app reads ctx.req.signal", async () => {
  // On Deno a read of request.signal is what exposes the app to the runtime's abort after a
  // successful response, and what makes Deno print its warning about it.
  let reads = 0;
  const client = new AbortController();
  const request = () => {
    const req = new Request("http://localhost/", { method: "GET" });
    Object.defineProperty(req, "signal", {
      get: () => (reads++, client.signal),
      configurable: true,
    });
    return req;
  };
  const quiet = chain([timeout(1000), timeout(500)], () => new Response("ok"));
  assert.equal(await (await quiet.fetch(request())).text(), "ok");
  assert.equal(reads, 0);
  const reading = chain([timeout(1000), timeout(500)], (ctx) => {
    const signal = ctx.req.signal;
    client.abort(new Error("client left"));
    return new Response(`${signal.aborted} ${(signal.reason as Error).message}`);
  });
  assert.equal(await (await reading.fetch(request())).text(), "true client left");
  assert.equal(reads, 1, "read once, through both timeouts");
});
