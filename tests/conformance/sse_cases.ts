// Conformance cases for sse() over real sockets, run on Deno (deno_test.ts) and on Node against
// the npm build (tests/node/conformance.test.ts). Peers: curl, node:http and node:http2 (see
// _sse_peer.ts). Each case starts the servers it needs on port 0 and shuts them down.
import assert from "node:assert/strict";
import http2 from "node:http2";
import { eventually, withDeadline } from "../_deadline.ts";
import type { Env } from "./suite.ts";
import type * as Weft from "../../mod.ts";
import { openHttp1, openHttp2, type SsePeer } from "./_sse_peer.ts";

const QUIET = { port: 0, hostname: "127.0.0.1", onListen() {} };

/** What a case's handlers saw, for the case to wait on. */
interface Seen {
  lastEventIds: string[];
  aborted: string[];
  release?: () => void;
}

function sseApp(env: Env, seen: Seen): Weft.App {
  const { chain, cors, get, logger, router, sse } = env.weft;
  const held = new Promise<void>((resolve) => seen.release = resolve);
  return chain(
    [logger({ sink() {} }), cors()],
    router([
      get("/events", (ctx) =>
        sse(ctx, (stream) => {
          seen.lastEventIds.push(stream.lastEventId);
          stream.send({ event: "greeting", id: "1", data: "hello" });
          stream.send({ data: "two\nlines" });
          stream.send({ data: "cr\rand\r\ncrlf", id: "2", retry: 2500 });
          stream.comment("a note\nover two lines");
          stream.send("");
        })),
      // Sends one event, then holds the response open until the case releases it or leaves.
      get("/held", (ctx) =>
        sse(ctx, async (stream) => {
          stream.send({ id: ctx.query("n") ?? "0", data: "first" });
          await Promise.race([held, stream.closed]);
          if (stream.signal.aborted) {
            seen.aborted.push((stream.signal.reason as Weft.SseClosed).kind);
          } else stream.send("after release");
        }, { heartbeat: Number(ctx.query("heartbeat") ?? 15_000) })),
    ]),
  );
}

async function withSseServers(
  env: Env,
  fn: (urls: { http: string; https: string }, seen: Seen) => Promise<void>,
): Promise<void> {
  const seen: Seen = { lastEventIds: [], aborted: [] };
  const app = sseApp(env, seen);
  const plain = env.weft.serve(app, QUIET);
  const tls = env.weft.serve(app, { ...QUIET, cert: env.cert, key: env.key });
  try {
    await fn({
      http: `http://127.0.0.1:${plain.addr.port}`,
      https: `https://localhost:${tls.addr.port}`,
    }, seen);
  } finally {
    seen.release?.();
    await withDeadline(
      Promise.all([plain.shutdown(), tls.shutdown()]),
      10_000,
      "the sse servers to shut down",
    );
  }
}

const EXPECTED = ":\n" +
  "event: greeting\nid: 1\ndata: hello\n\n" +
  "data: two\ndata: lines\n\n" +
  "id: 2\nretry: 2500\ndata: cr\ndata: and\ndata: crlf\n\n" +
  ": a note\n: over two lines\n" +
  "data: \n\n";

/**
 * A server whose event stream has a client that stopped reading: the kernel's buffers and the
 * stream's queue are full. Shared with tests/node/realtime.test.ts.
 */
export async function stalledStream(weft: typeof Weft): Promise<{
  server: Weft.Server;
  stream: Weft.SseStream;
  slow: SsePeer;
}> {
  const { get, router, serve, sse } = weft;
  let behind: ((stream: Weft.SseStream) => void) | undefined;
  const queued = new Promise<Weft.SseStream>((resolve) => behind = resolve);
  const chunk = "x".repeat(16_384);
  const app = router([
    get("/flood", (ctx) =>
      sse(ctx, async (stream) => {
        // Events pile up until the kernel's buffers are full and the queue stays full.
        while (!stream.isClosed) {
          for (let i = 0; i < 64; i++) stream.send(chunk);
          await new Promise((resolve) => setTimeout(resolve, 5));
          if (stream.dropped > 0 && stream.bufferedAmount > 0) break;
        }
        behind!(stream);
        await stream.closed;
      }, { highWaterMark: 65_536, overflow: "drop" })),
  ]);
  const server = serve(app, QUIET);
  const slow = await openHttp1(`http://127.0.0.1:${server.addr.port}/flood`);
  slow.pause();
  const stream = await withDeadline(queued, 30_000, "the queue to fill");
  assert.ok(stream.bufferedAmount > 0);
  return { server, stream, slow };
}

/** The cases, by name. */
export const sseCases: Record<string, (env: Env) => Promise<void>> = {
  async "sse: the event-stream format over HTTP/1.1 and HTTP/2 (curl)"(env) {
    await withSseServers(env, async ({ http, https }) => {
      const runs = [
        [["--http1.1"], http, "1.1"],
        [["--http2", "--cacert", env.caFile], https, "2"],
        [["--http2-prior-knowledge"], http, "2"],
      ] as const;
      for (const [flags, base, version] of runs) {
        const res = await env.curl([...flags, `${base}/events`]);
        assert.equal(res.httpVersion, version);
        assert.equal(res.status, 200);
        assert.equal(res.headers.get("content-type"), "text/event-stream");
        assert.equal(res.headers.get("cache-control"), "no-cache, no-transform");
        assert.equal(res.headers.get("access-control-allow-origin"), "*");
        assert.equal(res.body, EXPECTED);
      }
    });
  },
  async "sse: a client parses the events, and Last-Event-ID reaches the handler"(env) {
    await withSseServers(env, async ({ http }, seen) => {
      const first = await openHttp1(`${http}/events`);
      await first.until("the end of the stream", () => first.ended);
      assert.deepEqual(first.parser.events, [
        { type: "greeting", data: "hello", lastEventId: "1" },
        { type: "message", data: "two\nlines", lastEventId: "1" },
        { type: "message", data: "cr\nand\ncrlf", lastEventId: "2" },
        { type: "message", data: "", lastEventId: "2" },
      ]);
      assert.equal(first.parser.retry, 2500);
      const again = await openHttp1(`${http}/events`, { "last-event-id": "2" });
      await again.until("the end of the stream", () => again.ended);
      assert.deepEqual(seen.lastEventIds, ["", "2"]);
    });
  },
  async "sse: events are not held back by logger and cors while the handler runs"(env) {
    await withSseServers(env, async ({ http, https }, seen) => {
      const h1 = await openHttp1(`${http}/held?n=7`);
      await h1.until("the first event over HTTP/1.1", () => h1.parser.events.length === 1);
      const h2 = await openHttp2(https, "/held?n=8", { ca: env.cert });
      await h2.until("the first event over HTTP/2", () => h2.parser.events.length === 1);
      assert.equal(h1.parser.events[0].lastEventId, "7");
      assert.equal(h2.parser.events[0].lastEventId, "8");
      seen.release!();
      await h1.until("the second event and the end (HTTP/1.1)", () => h1.ended);
      await h2.until("the second event and the end (HTTP/2)", () => h2.ended);
      assert.equal(h1.parser.events[1].data, "after release");
      assert.equal(h2.parser.events[1].data, "after release");
      h2.session.close();
    });
  },
  async "sse: a client that goes away aborts the handler's signal (HTTP/1.1, h2, h2c)"(env) {
    await withSseServers(env, async ({ http, https }, seen) => {
      // A heartbeat of 1 s: whatever the runtime notices by itself, a write notices the rest.
      const query = "/held?heartbeat=1000";
      const h1 = await openHttp1(`${http}${query}`);
      await h1.until("the first event over HTTP/1.1", () => h1.parser.events.length === 1);
      h1.close();
      await eventually("the HTTP/1.1 handler to see the abort", () => seen.aborted.length === 1);
      const h2 = await openHttp2(https, query, { ca: env.cert });
      await h2.until("the first event over HTTP/2", () => h2.parser.events.length === 1);
      h2.close();
      await eventually("the HTTP/2 handler to see the abort", () => seen.aborted.length === 2);
      const h2c = await openHttp2(http, query);
      await h2c.until("the first event over h2c", () => h2c.parser.events.length === 1);
      h2c.close();
      await eventually("the h2c handler to see the abort", () => seen.aborted.length === 3);
      assert.deepEqual(seen.aborted, ["client", "client", "client"]);
      // The server keeps serving.
      const after = await env.curl(["--http1.1", `${http}/events`]);
      assert.equal(after.body, EXPECTED);
    });
  },
  async "sse: HEAD gets the head only and the handler's signal aborts"(env) {
    await withSseServers(env, async ({ http }, seen) => {
      const res = await env.curl(["--http1.1", "-I", `${http}/held`]);
      assert.equal(res.status, 200);
      assert.equal(res.headers.get("content-type"), "text/event-stream");
      assert.equal(res.body, "");
      await eventually("the HEAD handler to see the abort", () => seen.aborted.length === 1);
    });
  },
  async "sse: the signal option ends open streams, so that a graceful shutdown completes"(env) {
    const { get, router, serve, sse } = env.weft;
    const stop = new AbortController();
    const kinds: string[] = [];
    const app = router([
      get("/forever", (ctx) =>
        sse(ctx, async (stream) => {
          stream.send("open");
          await stream.closed;
          kinds.push((stream.signal.reason as Weft.SseClosed).kind);
        }, { signal: stop.signal })),
    ]);
    const server = serve(app, { ...QUIET, signal: stop.signal });
    const peer = await openHttp1(`http://127.0.0.1:${server.addr.port}/forever`);
    try {
      await peer.until("the first event", () => peer.parser.events.length === 1);
      stop.abort();
      await withDeadline(server.finished, 10_000, "the server to finish after the abort");
      await peer.until("the end of the stream", () => peer.ended);
      assert.deepEqual(kinds, ["server"]);
    } finally {
      peer.close();
    }
  },
  async "sse: shutdown() ends open streams without any signal (HTTP/1.1, h2, h2c)"(env) {
    const { get, router, serve, sse } = env.weft;
    const kinds: string[] = [];
    const app = router([
      get("/forever", (ctx) =>
        sse(ctx, async (stream) => {
          stream.send("open");
          await stream.closed;
          kinds.push((stream.signal.reason as Weft.SseClosed).kind);
        })),
    ]);
    const plain = serve(app, QUIET);
    const tls = serve(app, { ...QUIET, cert: env.cert, key: env.key });
    const http = `http://127.0.0.1:${plain.addr.port}`;
    const peers = [
      await openHttp1(`${http}/forever`),
      await openHttp2(`https://localhost:${tls.addr.port}`, "/forever", { ca: env.cert }),
      await openHttp2(http, "/forever"),
    ];
    try {
      for (const peer of peers) {
        await peer.until("the first event", () => peer.parser.events.length === 1);
      }
      await withDeadline(
        Promise.all([plain.shutdown(), tls.shutdown()]),
        10_000,
        "shutdown() with open event streams",
      );
      for (const peer of peers) {
        await eventually("the end of the stream", () => peer.ended);
        assert.equal(peer.text, ":\ndata: open\n\n: server shutting down\n\n");
      }
      assert.deepEqual(kinds, ["server", "server", "server"]);
    } finally {
      for (const peer of peers) peer.close();
    }
  },
  async "sse: shutdown() ends a stream whose client stopped reading"(env) {
    const { server, stream, slow } = await stalledStream(env.weft);
    try {
      const closing = server.shutdown();
      await eventually("the handler's signal to abort", () => stream.isClosed);
      assert.equal((stream.signal.reason as Weft.SseClosed).kind, "server");
      // Node's adapter drops the response at once; Deno.serve, blocked writing to the client,
      // finishes once the client is gone (RUNTIME_DIFFERENCES.stalledStreamShutdown).
      slow.close();
      await withDeadline(closing, 10_000, "shutdown() with a stalled event stream");
    } finally {
      slow.close();
    }
  },
  async "sse: a client that stops reading is disconnected past the high-water mark"(env) {
    const { get, router, serve, sse } = env.weft;
    const outcomes: { kind: string; queuedAtEnd: number }[] = [];
    const dropped: number[] = [];
    const chunk = "x".repeat(16_384);
    const app = router([
      get("/flood", (ctx) => {
        const overflow = ctx.query("overflow") as "drop" | "disconnect";
        return sse(ctx, async (stream) => {
          // Writes until the policy acts (disconnect) or discards 10 events (drop).
          while (!stream.isClosed && stream.dropped < 10) {
            for (let i = 0; i < 64; i++) stream.send(chunk);
            await new Promise((resolve) => setTimeout(resolve, 1));
          }
          dropped.push(stream.dropped);
          if (stream.signal.aborted) {
            outcomes.push({
              kind: (stream.signal.reason as Weft.SseClosed).kind,
              queuedAtEnd: stream.bufferedAmount,
            });
          }
        }, { highWaterMark: 65_536, overflow });
      }),
      get("/ok", () => new Response("still serving")),
    ]);
    const server = serve(app, QUIET);
    const base = `http://127.0.0.1:${server.addr.port}`;
    // The cut is the policy at work, not a failure: nothing reaches the server's error log
    // (Deno.serve reports a failed body to onError, which serve() logged).
    const logged: string[] = [];
    const consoleError = console.error;
    console.error = (...args: unknown[]) => logged.push(args.map(String).join(" "));
    try {
      const slow = await openHttp1(`${base}/flood?overflow=disconnect`);
      slow.pause();
      await eventually("the disconnect policy to act", () => outcomes.length === 1, 30_000);
      assert.deepEqual(outcomes, [{ kind: "overflow", queuedAtEnd: 0 }]);
      slow.resume();
      await slow.until("the cut", () => slow.ended, 30_000);
      assert.ok(slow.ended, "the response ended");
      assert.deepEqual(logged, []);
      slow.close();
      const dropping = await openHttp1(`${base}/flood?overflow=drop`);
      dropping.pause();
      await eventually("the drop policy to discard 10 events", () => dropped.length === 2, 30_000);
      assert.ok(dropped[1] >= 10, `${dropped[1]} events dropped`);
      dropping.close();
      const ok = await env.curl([`${base}/ok`]);
      assert.equal(ok.body, "still serving");
    } finally {
      console.error = consoleError;
      await withDeadline(server.shutdown(), 10_000, "the flood server to shut down");
    }
  },
  async "sse: an HTTP/2 connection holds at most 200 event streams at once (h2c)"(env) {
    // Deno (hyper) allows 200 concurrent streams per connection; Node's own default was 2^32 - 1,
    // so one connection could hold any number of event streams (and their handlers) open.
    const { get, router, serve, sse } = env.weft;
    let open = 0;
    const app = router([
      get("/feed", (ctx) =>
        sse(ctx, async (stream) => {
          open++;
          await stream.closed;
          open--;
        })),
    ]);
    const server = serve(app, QUIET);
    const session = http2.connect(`http://127.0.0.1:${server.addr.port}`);
    session.on("error", () => {});
    try {
      await withDeadline(
        new Promise((resolve) => session.once("remoteSettings", resolve)),
        10_000,
        "the server's SETTINGS",
      );
      assert.equal(session.remoteSettings.maxConcurrentStreams, 200);
      const answered: number[] = [];
      const streams = Array.from({ length: 201 }, (_, i) => {
        const stream = session.request({ ":path": "/feed" });
        stream.on("response", () => answered.push(i));
        stream.on("error", () => {});
        return stream;
      });
      await eventually("200 streams to be answered", () => answered.length === 200, 20_000);
      assert.ok(!answered.includes(200), "the 201st stream waits for a free one");
      await eventually("200 handlers to run", () => open === 200);
      // One leaves; the stream that waited is answered.
      streams[0].close(http2.constants.NGHTTP2_CANCEL);
      await eventually("the 201st stream to be answered", () => answered.includes(200));
    } finally {
      session.destroy();
      await withDeadline(server.shutdown(), 10_000, "the h2 server to shut down");
    }
  },
  async "sse: shutdown() completes when an HTTP/2 client leaves as its streams end (h2c)"(env) {
    // The client goes away in the tick shutdown() begins, with two event streams open: on Node,
    // node:http2 left the streams whose last write went out as the peer vanished open for ever,
    // and with them the session and shutdown().
    const { get, router, serve, sse } = env.weft;
    const app = router([get("/feed", (ctx) => sse(ctx, (stream) => stream.closed))]);
    for (const streams of [2, 5]) {
      const server = serve(app, QUIET);
      const session = http2.connect(`http://127.0.0.1:${server.addr.port}`);
      session.on("error", () => {});
      let answered = 0;
      for (let i = 0; i < streams; i++) {
        const stream = session.request({ ":path": "/feed" });
        stream.on("response", () => answered++);
        stream.on("error", () => {});
      }
      await eventually("the streams to be answered", () => answered === streams);
      session.destroy();
      await withDeadline(server.shutdown(), 10_000, `shutdown() with ${streams} streams left`);
    }
  },
  async "sse: a burst past the high-water mark before the body starts ends after what fits"(env) {
    // A reconnecting client's replay, sent at once: the runtime has taken nothing yet, so the
    // events that fit go out with a 200 and the response ends; the client reconnects from the
    // last one it got and the replay goes on. Cut, it was a 500 on Node (EventSource then never
    // reconnects) and an empty 200 on Deno (a reconnection that never gets further).
    const { get, router, serve, sse } = env.weft;
    const kinds: string[] = [];
    const app = router([
      get("/replay", (ctx) =>
        sse(ctx, (stream) => {
          for (let id = Number(stream.lastEventId || 0) + 1; id <= 40; id++) {
            if (!stream.send({ id: String(id), data: "r".repeat(30_000) })) break;
          }
          kinds.push(stream.isClosed ? (stream.signal.reason as Weft.SseClosed).kind : "open");
        }, { highWaterMark: 200_000 })),
    ]);
    const server = serve(app, QUIET);
    const logged: string[] = [];
    const consoleError = console.error;
    console.error = (...args: unknown[]) => logged.push(args.map(String).join(" "));
    try {
      const origin = `http://127.0.0.1:${server.addr.port}`;
      const ids: string[] = [];
      let last = "";
      for (let connection = 0; connection < 20 && last !== "40"; connection++) {
        const headers: Record<string, string> = last === "" ? {} : { "last-event-id": last };
        const peer = connection % 2 === 0
          ? await openHttp1(`${origin}/replay`, headers)
          : await openHttp2(origin, "/replay", { headers });
        await peer.until("the end of the response", () => peer.ended);
        assert.equal(peer.status, 200);
        assert.ok(peer.ended, "the response ended");
        const events = peer.parser.events;
        assert.ok(events.length > 0, `connection ${connection} got no event`);
        for (const event of events) ids.push(event.lastEventId);
        last = events.at(-1)!.lastEventId;
        peer.close();
      }
      assert.deepEqual(ids, Array.from({ length: 40 }, (_, i) => String(i + 1)));
      assert.equal(kinds.at(-1), "open");
      assert.ok(kinds.slice(0, -1).every((kind) => kind === "overflow"), kinds.join());
      assert.deepEqual(logged, []);
    } finally {
      console.error = consoleError;
      await withDeadline(server.shutdown(), 10_000, "the replay server to shut down");
    }
  },
};
