// A WebSocket subscriber that stops reading, written once over node: APIs and run by Deno.test
// (tests/realtime/slow_subscriber_test.ts, Deno's serve()) and by vitest
// (tests/node/realtime.test.ts, the npm build). The client is a raw TCP socket that completes
// the handshake and then never reads again, so the server's writes pile up: first in the
// kernel's socket buffers, then in the runtime (the socket's bufferedAmount), which
// topics.attach() bounds with its highWaterMark.
import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import * as net from "node:net";
import { eventually, withDeadline } from "../_deadline.ts";
import type * as Weft from "../../mod.ts";

const QUIET = { port: 0, hostname: "127.0.0.1", onListen() {} };
const HIGH_WATER_MARK = 262_144;
const MESSAGE = "x".repeat(16_384);
// What bufferedAmount may reach: the mark, plus on Node the frame headers (at most 10 bytes
// each, RFC 6455 §5.2) that ws counts with the messages of the mark.
const BOUND = HIGH_WATER_MARK + 10 * (HIGH_WATER_MARK / MESSAGE.length + 1);
// The most a case publishes before it gives up on the policy: far more than the kernel's
// loopback buffers hold, far less than would hurt the machine.
const MAX_MESSAGES = 8_192;

/** What the server side of a case saw. */
interface Seen {
  socket?: Weft.WebSocketConnection;
  /** The largest bufferedAmount seen just before a message went to the socket. */
  maxBuffered: number;
  closeCodes: number[];
}

/** A raw WebSocket client: the handshake, then (until `resume()`) nothing is read. */
interface RawClient {
  socket: net.Socket;
  /** Everything received after the 101's head. */
  frames: () => Buffer;
  resume(): void;
  closed: Promise<void>;
}

async function openRaw(port: number, path: string): Promise<RawClient> {
  const socket = net.connect(port, "127.0.0.1");
  socket.on("error", () => {});
  let data = Buffer.alloc(0);
  let head = -1;
  const closed = new Promise<void>((resolve) => socket.once("close", () => resolve()));
  await withDeadline(
    new Promise<void>((resolve) => {
      const onData = (chunk: Buffer) => {
        data = Buffer.concat([data, chunk]);
        head = data.indexOf("\r\n\r\n");
        if (head === -1) return;
        socket.off("data", onData);
        socket.pause(); // from here on the client reads nothing
        resolve();
      };
      socket.on("data", onData);
      socket.write(
        `GET ${path} HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n` +
          `Sec-WebSocket-Key: ${Buffer.from("slow-subscriber!").toString("base64")}\r\n` +
          "Sec-WebSocket-Version: 13\r\n\r\n",
      );
    }),
    10_000,
    "the 101",
  );
  assert.match(data.subarray(0, head).toString(), /^HTTP\/1\.1 101/);
  let rest = data.subarray(head + 4);
  return {
    socket,
    frames: () => rest,
    resume() {
      socket.on("data", (chunk: Buffer) => rest = Buffer.concat([rest, chunk]));
      socket.resume();
    },
    closed,
  };
}

/** A whole server frame as it came: its first byte (FIN, RSV1-3, opcode) and its payload. */
interface Frame {
  first: number;
  payload: Buffer;
}

// The complete server frames (unmasked, RFC 6455 §5.2) at the start of `data`.
function parseFrames(data: Buffer): Frame[] {
  const frames: Frame[] = [];
  let at = 0;
  while (at + 2 <= data.length) {
    let length = data[at + 1] & 0x7f;
    let head = 2;
    if (length === 126) {
      if (at + 4 > data.length) break;
      length = data.readUInt16BE(at + 2);
      head = 4;
    } else if (length === 127) {
      if (at + 10 > data.length) break;
      length = Number(data.readBigUInt64BE(at + 2));
      head = 10;
    }
    if (at + head + length > data.length) break;
    frames.push({ first: data[at], payload: data.subarray(at + head, at + head + length) });
    at += head + length;
  }
  return frames;
}

// The text messages of server frames, and whether a close came.
function messages(data: Buffer): { texts: string[]; close: number | null } {
  const texts: string[] = [];
  for (const { first, payload } of parseFrames(data)) {
    const opcode = first & 0x0f;
    if (opcode === 8) {
      return { texts, close: payload.length >= 2 ? payload.readUInt16BE(0) : 1005 };
    }
    if (opcode === 1) texts.push(payload.toString());
  }
  return { texts, close: null };
}

function slowApp(
  weft: typeof Weft,
  topics: Weft.Topics,
  seen: Seen,
  overflow: "disconnect" | "drop",
): Weft.App {
  const { get, router, websocket } = weft;
  const stops = new Map<Weft.WebSocketConnection, () => void>();
  return router([
    get(
      "/feed",
      websocket({
        onOpen(socket) {
          seen.socket = socket;
          stops.set(
            socket,
            topics.attach(socket, ["feed"], {
              highWaterMark: HIGH_WATER_MARK,
              overflow,
              // Called for every message just before the bound is checked.
              format(message) {
                seen.maxBuffered = Math.max(seen.maxBuffered, socket.bufferedAmount);
                return message;
              },
            }),
          );
        },
        onClose(socket, code) {
          seen.closeCodes.push(code);
          stops.get(socket)?.();
          stops.delete(socket);
        },
      }),
    ),
    get("/ok", () => new Response("still serving")),
  ]);
}

// Publishes MESSAGE until `done()` holds, letting the runtime write between batches.
async function publishUntil(
  topics: Weft.Topics,
  done: () => boolean,
): Promise<number> {
  let published = 0;
  while (!done()) {
    if (published >= MAX_MESSAGES) {
      throw new Error(`The policy never acted after ${published} messages`);
    }
    for (let i = 0; i < 16; i++) await topics.publish("feed", MESSAGE);
    published += 16;
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
  return published;
}

type Cases = Record<string, (weft: typeof Weft) => Promise<void>>;

// A subscriber that stops reading, alone.
const stalledCases: Cases = {
  async "topics.attach(): a WebSocket client that stops reading is closed with 1013 before its bufferedAmount passes the high-water mark"(
    weft,
  ) {
    const topics = weft.createTopics();
    const seen: Seen = { maxBuffered: 0, closeCodes: [] };
    const server = weft.serve(slowApp(weft, topics, seen, "disconnect"), QUIET);
    const client = await openRaw(server.addr.port, "/feed");
    try {
      await eventually("the subscription", () => topics.subscribers("feed") === 1);
      const published = await publishUntil(topics, () => seen.socket!.readyState !== "open");
      // The runtime held what the kernel did not, up to the mark; then the socket was closed
      // and its subscription ended, so nothing more is queued for it.
      assert.ok(seen.maxBuffered > 0, "the runtime never buffered: the client read everything");
      assert.ok(
        seen.maxBuffered <= BOUND,
        `bufferedAmount reached ${seen.maxBuffered} bytes, over ${BOUND}`,
      );
      assert.equal(topics.subscribers("feed"), 0);
      for (let i = 0; i < 64; i++) await topics.publish("feed", MESSAGE);
      assert.ok(published < MAX_MESSAGES);
      // The client leaves; the server reports the code it sent.
      client.socket.destroy();
      await eventually("onClose", () => seen.closeCodes.length === 1, 10_000);
      assert.deepEqual(seen.closeCodes, [1013]);
      const ok = await fetch(`http://127.0.0.1:${server.addr.port}/ok`);
      assert.equal(await ok.text(), "still serving");
    } finally {
      client.socket.destroy();
      await withDeadline(server.shutdown(), 10_000, "the server to shut down");
      await topics.close();
    }
  },

  async 'topics.attach(): with overflow "drop", a client that stops reading misses messages but keeps its socket'(
    weft,
  ) {
    const topics = weft.createTopics();
    const seen: Seen = { maxBuffered: 0, closeCodes: [] };
    const server = weft.serve(slowApp(weft, topics, seen, "drop"), QUIET);
    const client = await openRaw(server.addr.port, "/feed");
    try {
      await eventually("the subscription", () => topics.subscribers("feed") === 1);
      // Until the runtime holds nearly the mark, then as much again: all of that is dropped.
      let published = await publishUntil(
        topics,
        () => seen.maxBuffered > HIGH_WATER_MARK - 2 * MESSAGE.length,
      );
      for (let i = 0; i < 64; i++) await topics.publish("feed", MESSAGE);
      published += 64;
      assert.ok(
        seen.maxBuffered <= BOUND,
        `bufferedAmount reached ${seen.maxBuffered} bytes, over ${BOUND}`,
      );
      assert.equal(seen.socket!.readyState, "open");
      assert.equal(topics.subscribers("feed"), 1);
      // The client reads again: what was kept arrives, then what is published from now on.
      client.resume();
      await eventually(
        "the runtime to write what it held",
        () => seen.socket!.bufferedAmount === 0,
        10_000,
      );
      await topics.publish("feed", "last");
      await eventually(
        "the last message",
        () => messages(client.frames()).texts.at(-1) === "last",
        10_000,
      );
      const { texts, close } = messages(client.frames());
      assert.equal(close, null);
      assert.ok(
        texts.length - 1 < published,
        `${texts.length - 1} of ${published} messages arrived: none was dropped`,
      );
      assert.ok(texts.slice(0, -1).every((text) => text === MESSAGE));
    } finally {
      client.socket.destroy();
      await withDeadline(server.shutdown(), 10_000, "the server to shut down");
      await topics.close();
    }
  },
};

// Messages of one burst: the frame-header boundaries (RFC 6455 §5.2: 125/126 and 65,535/65,536
// bytes), a 126-byte text of 63 characters, four-byte characters, and texts sent twice in a row
// and again after another one.
const BURST = [
  "",
  "a",
  "x".repeat(125),
  "x".repeat(126),
  "é".repeat(63),
  "x".repeat(65_535),
  "x".repeat(65_536),
  "🎉".repeat(20_000),
  "again",
  "again",
  "a",
];
// After which message of BURST the burst's binary message goes out.
const BINARY_AFTER = 3;

// Every subscriber of /feed gets the texts of "feed" and, as a binary message it sends itself,
// those of "bytes"; the last one of "close" closes it after the messages before.
function burstApp(weft: typeof Weft, topics: Weft.Topics, seen: Seen): Weft.App {
  const { get, router, websocket } = weft;
  const stops = new Map<Weft.WebSocketConnection, (() => void)[]>();
  return router([
    get(
      "/feed",
      websocket({
        onOpen(socket) {
          stops.set(socket, [
            topics.attach(socket, ["feed"], { highWaterMark: HIGH_WATER_MARK }),
            topics.subscribe("bytes", (text) => socket.send(Buffer.from(text))),
            topics.subscribe("close", () => socket.close(1000, "done")),
          ]);
        },
        onClose(socket, code) {
          seen.closeCodes.push(code);
          for (const stop of stops.get(socket) ?? []) stop();
          stops.delete(socket);
        },
      }),
    ),
  ]);
}

// One burst, published within one task: the texts, a binary message among them.
function publishBurst(topics: Weft.Topics, round: number): Promise<unknown> {
  const published = BURST.map((text, i) =>
    i === BINARY_AFTER
      ? Promise.all([topics.publish("feed", text), topics.publish("bytes", `binary ${round}`)])
      : topics.publish("feed", text)
  );
  return Promise.all(published);
}

// A burst to many subscribers, among them one that stops reading.
const burstCases: Cases = {
  async "topics.attach(): a burst to several clients and one that stops reading reaches each reading client whole and in order, its close frame last"(
    weft,
  ) {
    const topics = weft.createTopics();
    const seen: Seen = { maxBuffered: 0, closeCodes: [] };
    const server = weft.serve(burstApp(weft, topics, seen), QUIET);
    const readers: RawClient[] = [];
    const slow = await openRaw(server.addr.port, "/feed");
    try {
      for (let i = 0; i < 3; i++) {
        const reader = await openRaw(server.addr.port, "/feed");
        reader.resume();
        readers.push(reader);
      }
      await eventually("the subscriptions", () => topics.subscribers("feed") === 4);
      // Until the client that does not read is closed (1013), each burst 280 KB or so.
      let rounds = 0;
      while (topics.subscribers("feed") === 4) {
        if (rounds === 64) throw new Error("The client that does not read was never closed");
        await publishBurst(topics, rounds++);
        await new Promise((resolve) => setTimeout(resolve, 1));
      }
      await publishBurst(topics, rounds++);
      await topics.publish("close", "");
      const expected: [number, string][] = [];
      for (let round = 0; round < rounds; round++) {
        BURST.forEach((text, i) => {
          expected.push([0x81, text]);
          if (i === BINARY_AFTER) expected.push([0x82, `binary ${round}`]);
        });
      }
      expected.push([0x88, "\u0003\u00e8done"]);
      for (const reader of readers) {
        await eventually("a reader's close frame", () => {
          const last = parseFrames(reader.frames()).at(-1);
          return last !== undefined && last.first === 0x88;
        }, 20_000);
        const got = parseFrames(reader.frames()).map((
          { first, payload },
        ): [number, string] => [first, first === 0x88 ? payload.toString("latin1") : `${payload}`]);
        assert.equal(got.length, expected.length);
        assert.deepEqual(got, expected);
      }
      // The clients leave without answering the close frames; the server reports its codes.
      slow.socket.destroy();
      for (const reader of readers) reader.socket.destroy();
      await eventually("every onClose", () => seen.closeCodes.length === 4, 10_000);
      assert.deepEqual(seen.closeCodes.toSorted(), [1000, 1000, 1000, 1013]);
    } finally {
      slow.socket.destroy();
      for (const reader of readers) reader.socket.destroy();
      await withDeadline(server.shutdown(), 10_000, "the server to shut down");
      await topics.close();
    }
  },
};

/** The cases, by name; each takes the weft module under test. */
export const slowSubscriberCases: Cases = { ...stalledCases, ...burstCases };
