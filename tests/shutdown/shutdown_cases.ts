// Graceful shutdown under load, written once over node: APIs and run by Deno.test
// (tests/serve_shutdown_test.ts, Deno's serve()) and by vitest (tests/node/shutdown.test.ts,
// the npm build). The server runs in a child process whose app (app.js) calls shutdown() on
// SIGTERM and exits at once on a second SIGTERM.
import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { createHash } from "node:crypto";
import * as net from "node:net";
import { parseResponses } from "../fuzz/http1_response.ts";
import type { ServerProcess } from "../fuzz/server_process.ts";

/** Starts the shutdown app in a child process. */
export type Start = () => Promise<ServerProcess>;

interface Conn {
  socket: net.Socket;
  data: Buffer;
  closed: Promise<void>;
}

function connect(port: number, request: string): Conn {
  const socket = net.connect(port, "127.0.0.1");
  const conn: Conn = {
    socket,
    data: Buffer.alloc(0),
    closed: new Promise((resolve) => socket.once("close", () => resolve())),
  };
  socket.on("error", () => {});
  socket.on("data", (chunk: Buffer) => conn.data = Buffer.concat([conn.data, chunk]));
  socket.write(request);
  return conn;
}

async function until(what: string, ms: number, test: () => boolean): Promise<void> {
  const end = Date.now() + ms;
  while (!test()) {
    if (Date.now() > end) throw new Error(`Timed out after ${ms} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

function within<T>(ms: number, what: string, promise: Promise<T>): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  return Promise.race([
    promise,
    new Promise<T>((_, reject) =>
      timer = setTimeout(() => reject(new Error(`${what} took over ${ms} ms`)), ms)
    ),
  ]).finally(() => clearTimeout(timer));
}

const get = (path: string, extra = "") => `GET ${path} HTTP/1.1\r\nHost: x\r\n${extra}\r\n`;

// The close code of the first close frame the server sent after the 101 (RFC 6455 §5.5.1).
function closeCode(data: Buffer): number | null {
  let at = data.indexOf("\r\n\r\n");
  if (at === -1) return null;
  at += 4;
  while (at + 2 <= data.length) {
    const opcode = data[at] & 0x0f;
    let length = data[at + 1] & 0x7f;
    let head = 2;
    if (length === 126) {
      length = data.readUInt16BE(at + 2);
      head = 4;
    } else if (length === 127) return null;
    if (at + head + length > data.length) return null;
    if (opcode === 8) return length >= 2 ? data.readUInt16BE(at + head) : 1005;
    at += head + length;
  }
  return null;
}

/** The cases, by name. */
export const shutdownCases: Record<string, (start: Start) => Promise<void>> = {
  async "SIGTERM under load: 100 latched requests finish with 200, idle keep-alive connections close, WebSockets get 1001, event streams and sse() streams end, the process exits within the grace period"(
    start,
  ) {
    const server = await start();
    const conns: Conn[] = [];
    try {
      // 1. 100 requests in flight, each on its own connection, all waiting on the latch
      const latched = Array.from({ length: 100 }, () => connect(server.port, get("/latched")));
      conns.push(...latched);
      await until("100 handlers in flight", 20_000, () => server.output().includes("inflight 100"));
      // 2. idle keep-alive connections, each after one answered request
      const idle = Array.from({ length: 10 }, () => connect(server.port, get("/")));
      conns.push(...idle);
      await until(
        "the idle connections' answers",
        10_000,
        () => idle.every((c) => c.data.includes("up")),
      );
      // 3. open WebSockets
      const key = Buffer.from("shutdown-test-16").toString("base64");
      const accept = createHash("sha1").update(key + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11").digest(
        "base64",
      );
      const sockets = Array.from(
        { length: 5 },
        () =>
          connect(
            server.port,
            get(
              "/ws",
              `Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: ${key}\r\nSec-WebSocket-Version: 13\r\n`,
            ),
          ),
      );
      conns.push(...sockets);
      await until("the 101s", 10_000, () => sockets.every((c) => c.data.includes(accept)));
      // 4. event streams, one event every 50 ms
      const streams = Array.from({ length: 5 }, () => connect(server.port, get("/events")));
      conns.push(...streams);
      await until(
        "two events on every stream",
        10_000,
        () => streams.every((c) => c.data.includes("data: 1")),
      );
      // 5. sse() streams that the app never ends itself: the server's shutdown must
      const sseStreams = Array.from({ length: 5 }, () => connect(server.port, get("/sse")));
      conns.push(...sseStreams);
      await until(
        "the first event on every sse() stream",
        10_000,
        () => sseStreams.every((c) => c.data.includes("data: open")),
      );

      const sent = Date.now();
      server.signal("SIGTERM");
      await within(10_000, "the exit after SIGTERM", server.waitExit(10_000));
      const tookMs = Date.now() - sent;
      assert.match(
        server.output(),
        /exiting 0/,
        `after SIGTERM (1: grace period passed)\n${server.output()}`,
      );
      assert.match(server.output(), /drained \d+/);
      assert.ok(tookMs < 5_000, `shutdown took ${tookMs} ms`);

      for (const [i, c] of latched.entries()) {
        const parse = parseResponses(
          new Uint8Array(c.data),
          [{ method: "GET", path: "/latched" }],
          true,
        );
        assert.equal(parse.error, undefined, `latched request ${i}: ${parse.error}`);
        assert.equal(
          parse.responses[0]?.status,
          200,
          `latched request ${i}: ${c.data.toString().slice(0, 200)}`,
        );
        assert.equal(Buffer.from(parse.responses[0].body).toString(), "released");
      }
      await within(2_000, "idle connections closing", Promise.all(idle.map((c) => c.closed)));
      for (const [i, c] of sockets.entries()) {
        assert.equal(closeCode(c.data), 1001, `WebSocket ${i}`);
      }
      for (const [i, c] of streams.entries()) {
        const parse = parseResponses(
          new Uint8Array(c.data),
          [{ method: "GET", path: "/events" }],
          true,
        );
        assert.equal(parse.error, undefined, `event stream ${i}: ${parse.error}`);
        assert.match(
          Buffer.from(parse.responses[0].body).toString(),
          /event: bye/,
          `event stream ${i}`,
        );
      }
      for (const [i, c] of sseStreams.entries()) {
        const parse = parseResponses(
          new Uint8Array(c.data),
          [{ method: "GET", path: "/sse" }],
          true,
        );
        assert.equal(parse.error, undefined, `sse() stream ${i}: ${parse.error}`);
        assert.equal(
          Buffer.from(parse.responses[0].body).toString(),
          ":\nid: 1\ndata: open\n\n: server shutting down\n\n",
          `sse() stream ${i}`,
        );
      }
      assert.equal(
        server.output().match(/sse ended server/g)?.length,
        5,
        `every sse() handler saw its stream end by the server\n${server.output()}`,
      );
    } finally {
      for (const c of conns) c.socket.destroy();
      await server.stop(1_000);
    }
  },

  async "a second SIGTERM ends the process at once, even with a handler that never returns"(start) {
    const server = await start();
    const stuck = connect(server.port, get("/stuck"));
    try {
      await until("the stuck handler to start", 20_000, () => /^stuck$/m.test(server.output()));
      server.signal("SIGTERM");
      assert.equal(
        await server.waitExit(700),
        null,
        "the first SIGTERM waits for the stuck handler",
      );
      server.signal("SIGTERM");
      // "exiting 2" is the second signal's exit; the grace period's would be "exiting 1"
      const exit = await server.waitExit(2_000);
      assert.notEqual(exit, null, "the process still runs after the second SIGTERM");
      assert.match(server.output(), /exiting 2/, `after the second SIGTERM\n${server.output()}`);
    } finally {
      stuck.socket.destroy();
      await server.stop(1_000);
    }
  },
};
