import assert from "node:assert/strict";
import {
  chain,
  get,
  HttpError,
  type Middleware,
  router,
  serve,
  type Server,
  sse,
  type SseClosed,
  type SseStream,
} from "../../mod.ts";
import { formatComment, formatEvent } from "../../lib/realtime/_sse_format.ts";
import { withDeadline } from "../_deadline.ts";

Deno.test("formatEvent() splits data on CR, LF and CRLF, one data line each", () => {
  assert.equal(
    formatEvent({ data: "a\r\nb\rc\nd" }),
    "data: a\ndata: b\ndata: c\ndata: d\n\n",
  );
  assert.equal(formatEvent({ data: "" }), "data: \n\n");
  assert.equal(formatEvent({ data: "\n" }), "data: \ndata: \n\n");
  assert.equal(formatEvent({ data: " lead" }), "data:  lead\n\n");
  assert.equal(
    formatEvent({ data: "x", event: "e", id: "7", retry: 0 }),
    "event: e\nid: 7\nretry: 0\ndata: x\n\n",
  );
});

Deno.test("formatEvent() refuses fields the format cannot carry", () => {
  assert.throws(() => formatEvent({ data: "x", event: "a\nb" }), TypeError);
  assert.throws(() => formatEvent({ data: "x", id: "a\rb" }), TypeError);
  assert.throws(() => formatEvent({ data: "x", id: "a\0b" }), /NULL/);
  // A lone surrogate would go out as U+FFFD: another type, another Last-Event-ID.
  assert.throws(() => formatEvent({ data: "x", id: "a\uD800b" }), /lone surrogate/);
  assert.throws(() => formatEvent({ data: "x", event: "\uDC00" }), /lone surrogate/);
  assert.equal(formatEvent({ data: "x", id: "\u{1F600}" }), "id: \u{1F600}\ndata: x\n\n");
  assert.throws(() => formatEvent({ data: "x", retry: -1 }), RangeError);
  assert.throws(() => formatEvent({ data: "x", retry: 1.5 }), RangeError);
  assert.throws(
    () => formatEvent({ data: 1 } as never),
    /data must be a string/,
  );
});

Deno.test("formatComment() makes every line a comment", () => {
  assert.equal(formatComment("a\nb"), ": a\n: b\n");
  assert.equal(formatComment(""), ":\n");
});

Deno.test("sse() refuses bad options before answering", () => {
  const ctx = { header: () => null } as never;
  assert.throws(() => sse(ctx, () => {}, { heartbeat: -1 }), RangeError);
  assert.throws(() => sse(ctx, () => {}, { highWaterMark: 0 }), RangeError);
  assert.throws(
    () => sse(ctx, () => {}, { overflow: "buffer" as never }),
    TypeError,
  );
  assert.throws(() => sse(ctx, () => {}, { retry: -5 }), RangeError);
  assert.throws(() => sse(ctx, "nope" as never), TypeError);
});

Deno.test("sse() reports a throwing handler and ends the stream; a bad event throws at send()", async () => {
  const errors: unknown[] = [];
  let seen: SseStream | undefined;
  const app = router([
    get("/", (ctx) =>
      sse(ctx, (stream) => {
        seen = stream;
        stream.send("before");
        stream.send({ data: "x", event: "two\nlines" });
      })),
  ]);
  const original = console.error;
  console.error = (...args: unknown[]) => errors.push(args);
  try {
    const res = await app.fetch(new Request("http://localhost/"));
    assert.equal(
      await withDeadline(res.text(), 5_000, "the body"),
      ":\ndata: before\n\n",
    );
  } finally {
    console.error = original;
  }
  assert.equal(errors.length, 1);
  assert.equal(seen!.isClosed, true);
  assert.equal(seen!.send("late"), false);
});

Deno.test("sse() sends the retry option first and close() ends the response", async () => {
  const app = router([
    get("/", (ctx) =>
      sse(ctx, async (stream) => {
        stream.send("one");
        stream.close();
        assert.equal(stream.signal.aborted, true);
        await stream.closed;
      }, { retry: 100 })),
  ]);
  const res = await app.fetch(new Request("http://localhost/"));
  assert.equal(await res.text(), "retry: 100\n\ndata: one\n\n");
});

// A server on a port of its own in 60000-64999, tried again when that one is taken.
function listen(app: Parameters<typeof serve>[0]): Server {
  for (let attempt = 1;; attempt++) {
    const port = 60_000 + Math.floor(Math.random() * 5_000);
    try {
      return serve(app, { port, hostname: "127.0.0.1", onListen() {} });
    } catch (error) {
      if (!(error instanceof Deno.errors.AddrInUse) || attempt === 20) throw error;
    }
  }
}

// One HTTP/1.1 exchange over a raw socket: the request's bytes as given (a header may carry
// bytes that are not ASCII, as EventSource sends them), the response's until the server closes.
async function exchange(port: number, head: string, extra = new Uint8Array()): Promise<string> {
  const conn = await Deno.connect({ hostname: "127.0.0.1", port });
  const start = new TextEncoder().encode(`${head}\r\nHost: x\r\nConnection: close\r\n`);
  const request = new Uint8Array([...start, ...extra, 13, 10]);
  const read = (async () => {
    await conn.write(request);
    return await new Response(conn.readable).text();
  })();
  return await withDeadline(read, 10_000, `the answer to ${head}`, {
    onTimeout: () => conn.close(),
  });
}

// The body of a chunked HTTP/1.1 response; a body the server cut lacks the last chunk.
function chunkedBody(response: string): string {
  const end = response.indexOf("\r\n\r\n");
  assert.match(response.slice(0, end), /\r\ntransfer-encoding: chunked\r\n/i);
  let rest = response.slice(end + 4);
  let body = "";
  for (;;) {
    const line = rest.indexOf("\r\n");
    assert.notEqual(line, -1, `the body ends without its last chunk: ${JSON.stringify(body)}`);
    const size = parseInt(rest.slice(0, line), 16);
    if (size === 0) return body;
    body += rest.slice(line + 2, line + 2 + size);
    rest = rest.slice(line + 4 + size);
  }
}

Deno.test("sse() gives the handler a Last-Event-ID sent back as UTF-8 as the id it sent", async () => {
  const seen: string[] = [];
  const app = router([
    get("/events", (ctx) =>
      sse(ctx, (stream) => {
        seen.push(stream.lastEventId);
        stream.send({ id: "café-1", data: "hello" });
      })),
  ]);
  const server = listen(app);
  const port = server.addr.port;
  const utf8 = (text: string) => new TextEncoder().encode(`Last-Event-ID: ${text}\r\n`);
  try {
    const first = await exchange(port, "GET /events HTTP/1.1");
    assert.match(first, /\nid: café-1\n/); // out as UTF-8
    // EventSource sends the id back as UTF-8; the runtime shows each byte as a character.
    await exchange(port, "GET /events HTTP/1.1", utf8("café-1"));
    await exchange(port, "GET /events HTTP/1.1", utf8("🙂 ü"));
    await exchange(port, "GET /events HTTP/1.1", utf8("41"));
    // Not UTF-8 (é as one Latin-1 byte): kept as the runtime gives it.
    const latin1 = new TextEncoder().encode("Last-Event-ID: caf\r\n");
    await exchange(
      port,
      "GET /events HTTP/1.1",
      new Uint8Array([...latin1.subarray(0, -2), 0xe9, 13, 10]),
    );
    assert.deepEqual(seen, ["", "café-1", "🙂 ü", "41", "caf\u00e9"]);
  } finally {
    await withDeadline(server.shutdown(), 10_000, "the server to shut down");
  }
});

Deno.test("sse() ends with the shutdown comment a stream whose body had not started when the server began shutting down", async () => {
  // /late reaches sse() after shutdown() began; /held reached it before, but a middleware
  // still holds its response. Neither client is behind: only the opening waits.
  const entered = new Map<string, () => void>();
  const arrived = new Map<string, Promise<void>>();
  let release!: () => void;
  const released = new Promise<void>((resolve) => release = resolve);
  for (const path of ["/late", "/held"]) {
    arrived.set(path, new Promise((resolve) => entered.set(path, resolve)));
  }
  const hold: Middleware = async (ctx, next) => {
    const path = new URL(ctx.req.url).pathname;
    if (path === "/late") {
      entered.get(path)!();
      await released;
      return next();
    }
    const res = await next();
    entered.get(path)!();
    await released;
    return res;
  };
  const kinds: string[] = [];
  const events = (ctx: Parameters<typeof sse>[0]) =>
    sse(ctx, async (stream) => {
      await stream.closed;
      kinds.push((stream.signal.reason as SseClosed).kind);
    });
  const server = listen(chain([hold], router([get("/late", events), get("/held", events)])));
  try {
    const late = exchange(server.addr.port, "GET /late HTTP/1.1");
    const held = exchange(server.addr.port, "GET /held HTTP/1.1");
    await withDeadline(Promise.all(arrived.values()), 10_000, "both requests to arrive");
    const done = server.shutdown();
    release();
    for (const response of [await late, await held]) {
      assert.equal(chunkedBody(response), ":\n: server shutting down\n\n");
    }
    await withDeadline(done, 10_000, "the server to shut down");
    assert.deepEqual(kinds, ["server"]); // /late's handler never ran: its stream had ended
  } finally {
    release();
    await withDeadline(server.shutdown(), 10_000, "the server to shut down");
  }
});

Deno.test("sse() ends a stream whose response a middleware replaced, at the first heartbeat", async () => {
  let ended!: (kind: string) => void;
  const closed = new Promise<string>((resolve) => ended = resolve);
  let ticks = 0;
  const deny: Middleware = async (_ctx, next) => {
    await next();
    throw new HttpError(403, "Not for you"); // the event stream is dropped
  };
  const app = chain(
    [deny],
    router([get("/events", (ctx) =>
      sse(ctx, async (stream) => {
        const timer = setInterval(() => stream.send(`tick ${++ticks}`), 10);
        await stream.closed;
        clearInterval(timer);
        ended((stream.signal.reason as SseClosed).kind);
      }, { heartbeat: 50 }))]),
  );
  const res = await app.fetch(new Request("http://localhost/events"));
  assert.equal(res.status, 403);
  assert.equal(await withDeadline(closed, 5_000, "the dropped stream to end"), "client");
  const after = ticks;
  await new Promise((resolve) => setTimeout(resolve, 50));
  assert.equal(ticks, after, "its timer stopped");
});
