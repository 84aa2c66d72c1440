// The fast paths that rest on internals of Deno (docs/architecture.md, "Deno internals"): the
// Host check reads the header through the inner request's header(), without building the
// request's Headers; compress() takes a body at hand from the inner response, without its
// stream. The fallbacks keep behaviour right (tests/conformance/app_cases.ts checks the Host
// answers, the compress cases the bodies), so only this test notices when a Deno upgrade
// takes a fast path away.
import assert from "node:assert/strict";
import { get, router, serve } from "../mod.ts";
import { innerHeaderLive } from "../lib/server/deno.ts";
import { atHand, atHandLive } from "../lib/server/_deno_body.ts";
import { withDeadline } from "./_deadline.ts";

Deno.test("Deno internals: the Host check reads the header through Deno's inner request", async () => {
  const server = serve(router([get("/", (ctx) => ctx.text("ok"))]), {
    hostname: "127.0.0.1",
    port: 0,
    onListen() {},
  });
  try {
    const res = await withDeadline(
      fetch(`http://127.0.0.1:${server.addr.port}/`),
      10_000,
      "a request to the server",
    );
    assert.equal(await res.text(), "ok");
    assert.equal(
      innerHeaderLive(),
      true,
      `Deno ${Deno.version.deno}: no own symbol "request" with a header() agreeing with ` +
        "request.headers.get(): the Host check builds every request's Headers (lib/server/deno.ts)",
    );
  } finally {
    await withDeadline(server.shutdown(), 10_000, "server.shutdown()");
  }
});

Deno.test("Deno internals: compress() finds the string or bytes a response was made from", () => {
  assert.equal(atHand(new Response("text")), "text");
  assert.equal(
    atHandLive(),
    true,
    `Deno ${Deno.version.deno}: no own symbol "response" with a body: compress() reads every ` +
      "body from its stream (lib/server/_deno_compression.ts)",
  );
  assert.deepEqual(atHand(new Response(new Uint8Array([1, 2]))), new Uint8Array([1, 2]));
  const touched = new Response("text");
  void touched.body;
  assert.equal(atHand(touched), undefined);
  assert.equal(atHand(new Response(new ReadableStream())), undefined);
  assert.equal(atHand(new Response(null)), undefined);
});
