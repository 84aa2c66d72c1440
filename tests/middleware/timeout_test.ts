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
