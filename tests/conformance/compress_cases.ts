// Conformance cases for compress() over real sockets, on both runtimes: curl --compressed on
// HTTP/1.1, HTTP/2 over TLS and h2c decodes what the server encoded; a streamed body reaches
// the client chunk by chunk (each chunk is written only after the client decoded the one
// before, so a compressor that held chunks back would never finish); what must not be
// compressed is not.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import type { Env } from "./suite.ts";
import type * as Weft from "../../mod.ts";
import { withDeadline } from "../_deadline.ts";

const ITEMS = Array.from(
  { length: 400 },
  (_, id) => ({ id, name: `item ${id}`, ok: id % 2 === 0 }),
);
const EVENTS = 5;

async function withServer(
  env: Env,
  app: Weft.App,
  fn: (http: string, https: string) => Promise<void>,
): Promise<void> {
  const quiet = { port: 0, hostname: "127.0.0.1", onListen() {} };
  const plain = env.weft.serve(app, quiet);
  const tls = env.weft.serve(app, { ...quiet, cert: env.cert, key: env.key });
  try {
    await fn(`http://127.0.0.1:${plain.addr.port}`, `https://localhost:${tls.addr.port}`);
  } finally {
    await withDeadline(
      Promise.all([plain.shutdown(), tls.shutdown()]),
      10_000,
      "the servers to shut down",
    );
  }
}

function protocols(env: Env, http: string, https: string): [string, string[], string][] {
  return [
    ["HTTP/1.1", ["--http1.1"], http],
    ["HTTP/2 (TLS)", ["--http2", "--cacert", env.caFile], https],
    ["h2c", ["--http2-prior-knowledge"], http],
  ];
}

/** A gate per event: the stream writes event i once the client has seen event i - 1. */
function gatedEvents(): { stream: ReadableStream<Uint8Array>; seen: (i: number) => void } {
  const encoder = new TextEncoder();
  // (Promise.withResolvers is missing on Node 20)
  const opens: (() => void)[] = [];
  const gates = Array.from(
    { length: EVENTS },
    (_, n) => n === 0 ? Promise.resolve() : new Promise<void>((open) => opens[n] = open),
  );
  let i = 0;
  const stream = new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (i === EVENTS) {
        controller.close();
        return;
      }
      await gates[i];
      controller.enqueue(encoder.encode(`id: ${i}\ndata: ${"event ".repeat(40)}${i}\n\n`));
      i++;
    },
  }, { highWaterMark: 0 });
  return { stream, seen: (n) => opens[n + 1]?.() };
}

export const compressCases: Record<string, (env: Env) => Promise<void>> = {
  async "compress(): curl --compressed decodes br, zstd, gzip and deflate on every protocol"(
    env,
  ) {
    const { chain, get, router } = env.weft;
    const { compress } = env.compress;
    const app = chain([compress()], router([get("/items", (ctx) => ctx.json(ITEMS))]));
    const expected = JSON.stringify(ITEMS);
    await withServer(env, app, async (http, https) => {
      for (const [name, flags, base] of protocols(env, http, https)) {
        const any = await env.curl([...flags, "--compressed", `${base}/items`]);
        assert.equal(any.status, 200, name);
        assert.match(any.headers.get("content-encoding") ?? "", /^(br|zstd)$/, name);
        assert.equal(any.headers.get("vary"), "Accept-Encoding", name);
        assert.equal(any.body, expected, name);
        for (const coding of ["gzip", "deflate"]) {
          const one = await env.curl([
            ...flags,
            "--compressed",
            "-H",
            `accept-encoding: ${coding}`,
            `${base}/items`,
          ]);
          assert.equal(one.headers.get("content-encoding"), coding, `${name} ${coding}`);
          assert.equal(one.body, expected, `${name} ${coding}`);
        }
        const plain = await env.curl([...flags, `${base}/items`]);
        assert.equal(plain.headers.get("content-encoding"), null, name);
        assert.equal(plain.headers.get("content-length"), String(expected.length), name);
        assert.equal(plain.body, expected, name);
      }
    });
  },

  async "compress(): a streamed body arrives chunk by chunk, each decoded before the next is written"(
    env,
  ) {
    const { chain, get, router } = env.weft;
    const { compress } = env.compress;
    let seen: (i: number) => void = () => {};
    const app = chain(
      [compress()],
      router([get("/events", () => {
        const events = gatedEvents();
        seen = events.seen;
        return new Response(events.stream, { headers: { "content-type": "text/event-stream" } });
      })]),
    );
    await withServer(env, app, async (http) => {
      const res = await withDeadline(
        fetch(`${http}/events`, { headers: { "accept-encoding": "gzip" } }),
        20_000,
        "the event stream to start",
      );
      assert.equal(res.headers.get("content-encoding"), "gzip");
      assert.equal(res.headers.get("content-length"), null);
      const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
      let text = "";
      for (let i = 0; i < EVENTS; i++) {
        while (!text.includes(`\n\n`)) {
          const { done, value } = await withDeadline(reader.read(), 20_000, `event ${i}`);
          assert.equal(done, false, `the stream ended before event ${i}`);
          text += value;
        }
        const end = text.indexOf("\n\n") + 2;
        assert.ok(text.startsWith(`id: ${i}\n`), text);
        text = text.slice(end);
        seen(i);
      }
      const last = await withDeadline(reader.read(), 20_000, "the end of the stream");
      assert.equal(last.done, true);
    });
  },

  async "compress(): leaves images, 206, 304, no-transform, small and precompressed bodies alone; HEAD gets GET's head"(
    env,
  ) {
    const { chain, get, router, staticFiles } = env.weft;
    const { compress } = env.compress;
    const root = mkdtempSync(join(tmpdir(), "weft-compress-"));
    const css = "body { color: red }\n".repeat(200);
    writeFileSync(join(root, "app.css"), css);
    writeFileSync(join(root, "app.css.gz"), gzipSync(css));
    writeFileSync(join(root, "big.txt"), "x".repeat(5000));
    writeFileSync(join(root, "pic.png"), "p".repeat(5000));
    const big = "y".repeat(5000);
    const app = chain(
      [compress(), staticFiles({ root, prefix: "/static", precompressed: true })],
      router([
        get("/png", () => new Response(big, { headers: { "content-type": "image/png" } })),
        get("/small", (ctx) => ctx.json({ small: true })),
        get("/raw", () =>
          new Response(big, {
            headers: { "content-type": "text/plain", "cache-control": "no-transform" },
          })),
        get("/text", () => new Response(big, { headers: { "content-type": "text/plain" } })),
      ]),
    );
    try {
      await withServer(env, app, async (http) => {
        const gzip = { "accept-encoding": "gzip" };
        const fetchPath = (path: string, init: RequestInit = {}) =>
          withDeadline(fetch(`${http}${path}`, init), 20_000, `a response from ${path}`);
        for (const path of ["/png", "/small", "/raw"]) {
          const res = await env.curl(["-H", "accept-encoding: gzip", `${http}${path}`]);
          assert.equal(res.headers.get("content-encoding"), null, path);
        }
        // HEAD: the GET's coding and Vary, no Content-Length (RFC 9110 §9.3.2, §8.6)
        const head = await env.curl(["-I", "-H", "accept-encoding: gzip", `${http}/text`]);
        assert.equal(head.status, 200);
        assert.equal(head.headers.get("content-encoding"), "gzip");
        assert.equal(head.headers.get("vary"), "Accept-Encoding");
        assert.equal(head.headers.get("content-length"), null);

        const ranged = await env.curl([
          "-H",
          "accept-encoding: gzip",
          "-H",
          "range: bytes=0-9",
          `${http}/static/big.txt`,
        ]);
        assert.equal(ranged.status, 206);
        assert.equal(ranged.headers.get("content-encoding"), null);
        assert.equal(ranged.body, "xxxxxxxxxx");
        // the Vary its 200 has (RFC 9110 §15.3.7), or a cache could give this range to a
        // client of another coding
        assert.equal(ranged.headers.get("vary"), "Accept-Encoding");
        // a range of a precompressed file: its own Vary, not a second one
        const preRanged = await env.curl([
          "-H",
          "accept-encoding: gzip",
          "-H",
          "range: bytes=0-1",
          `${http}/static/app.css`,
        ]);
        assert.equal(preRanged.status, 206);
        assert.equal(preRanged.headers.get("content-encoding"), "gzip");
        assert.equal(preRanged.headers.get("vary"), "Accept-Encoding");
        // a type its 200 is never compressed as: no Vary
        const png = await env.curl(["-H", "range: bytes=0-1", `${http}/static/pic.png`]);
        assert.equal(png.status, 206);
        assert.equal(png.headers.get("vary"), null);

        const whole = await fetchPath("/static/big.txt", { headers: gzip });
        assert.equal(whole.headers.get("content-encoding"), "gzip");
        const etag = whole.headers.get("etag")!;
        assert.match(etag, /^W\/"/);
        await whole.arrayBuffer();
        const again = await env.curl([
          "-H",
          "accept-encoding: gzip",
          "-H",
          `if-none-match: ${etag}`,
          `${http}/static/big.txt`,
        ]);
        assert.equal(again.status, 304);
        assert.equal(again.headers.get("content-encoding"), null);
        assert.equal(again.headers.get("etag"), etag);
        assert.equal(again.headers.get("vary"), "Accept-Encoding"); // as its 200 had

        // the precompressed file wins over compressing on the fly
        const pre = await env.curl(["-H", "accept-encoding: gzip, br", `${http}/static/app.css`]);
        assert.equal(pre.headers.get("content-encoding"), "gzip");
        assert.match(pre.headers.get("etag") ?? "", /^"[0-9a-f]{16}-gzip"$/);
        assert.equal(pre.headers.get("content-length"), String(gzipSync(css).byteLength));
      });
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  },

  async "compress(): a gzip or deflate level zlib would refuse is refused when compress() is created"(
    env,
  ) {
    const { chain, get, router } = env.weft;
    const { compress } = env.compress;
    // zlib throws for these on each body it compresses: every compressible answer was a 500
    for (const levels of [{ gzip: 10 }, { gzip: -2 }, { deflate: 42 }]) {
      assert.throws(() => compress({ levels }), /^TypeError: Cannot create compress\(\)/);
    }
    const whole = JSON.stringify(ITEMS);
    for (const level of [-1, 0, 9]) {
      const app = chain(
        [compress({ levels: { gzip: level, deflate: level } })],
        router([
          get("/items", (ctx) => ctx.json(ITEMS)),
          get("/stream", () =>
            new Response(
              new ReadableStream({
                start(controller) {
                  controller.enqueue(new TextEncoder().encode(whole));
                  controller.close();
                },
              }),
              { headers: { "content-type": "application/json" } },
            )),
        ]),
      );
      await withServer(env, app, async (http) => {
        for (const coding of ["gzip", "deflate"]) {
          for (const path of ["/items", "/stream"]) {
            const res = await env.curl([
              "--compressed",
              "-H",
              `accept-encoding: ${coding}`,
              `${http}${path}`,
            ]);
            assert.equal(res.status, 200, `${coding} ${level} ${path}`);
            assert.equal(res.headers.get("content-encoding"), coding, `${coding} ${level}`);
            assert.equal(res.body, whole, `${coding} ${level} ${path}`);
          }
        }
      });
    }
  },
};
