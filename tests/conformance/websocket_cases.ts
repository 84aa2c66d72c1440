// Conformance cases for the websocket middleware over real sockets. Written like suite.ts
// (plain async functions over Env, no runtime APIs) so that the Node runner can run them
// against the npm build; each case starts the servers it needs on port 0 and shuts them down.
// Clients: the global WebSocket (Deno, Node 22+; `env.WebSocket` when the runner passes one,
// as Node 20 must) and raw HTTP/1.1 over node:net, which both runtimes implement, for what a
// browser API cannot send (malformed handshakes, Authorization, invalid UTF-8).
import assert from "node:assert/strict";
import { connect, type Socket } from "node:net";
import { eventually, withDeadline } from "../_deadline.ts";
import type { Env, WeftModule } from "./suite.ts";
import type * as Weft from "../../mod.ts";
import type {
  acceptKey,
  websocket,
  WebSocketConnection,
  WebSocketFrame,
} from "../../lib/middleware/websocket.ts";

/** The module under test with the websocket exports (mod.ts re-exports them). */
type WithWebSocket = WeftModule & { websocket: typeof websocket; acceptKey: typeof acceptKey };

function weft(env: Env): WithWebSocket {
  return env.weft as WithWebSocket;
}

/** The WebSocket client constructor: the runner's own, else the global one. */
function clientClass(env: Env): typeof WebSocket {
  const own = (env as Env & { WebSocket?: typeof WebSocket }).WebSocket;
  const found = own ?? (globalThis as { WebSocket?: typeof WebSocket }).WebSocket;
  if (found === undefined) throw new Error("No WebSocket client: pass env.WebSocket");
  return found;
}

/** The RFC 6455 §1.3 sample key, and its accept value. */
export const SAMPLE_KEY = "dGhlIHNhbXBsZSBub25jZQ==";

const QUIET = { port: 0, hostname: "127.0.0.1", onListen() {} };

/** Starts `app` on a free port, runs `fn` with its port, and always shuts the server down. */
async function withServer(
  env: Env,
  app: Weft.App,
  fn: (port: number) => Promise<void>,
): Promise<void> {
  const server = env.weft.serve(app, QUIET);
  try {
    await fn(server.addr.port);
  } finally {
    await withDeadline(server.shutdown(), 10_000, "server.shutdown()");
  }
}

/** An HTTP response read from a raw socket. */
export interface RawResponse {
  status: number;
  headers: Headers;
  body: string;
}

/** A raw TCP client that reads HTTP/1.1 heads and WebSocket frames. */
export class RawClient {
  #socket: Socket;
  #buffer: Uint8Array = new Uint8Array(0);
  #ended = false;
  #wake: (() => void) | undefined;

  private constructor(socket: Socket) {
    this.#socket = socket;
    socket.on("data", (chunk: Uint8Array) => {
      const joined = new Uint8Array(this.#buffer.byteLength + chunk.byteLength);
      joined.set(this.#buffer);
      joined.set(chunk, this.#buffer.byteLength);
      this.#buffer = joined;
      this.#wake?.();
    });
    const end = () => {
      this.#ended = true;
      this.#wake?.();
    };
    socket.on("end", end);
    socket.on("close", end);
    socket.on("error", end);
  }

  /** Connects to 127.0.0.1:`port`. */
  static open(port: number): Promise<RawClient> {
    return new Promise<RawClient>((resolve, reject) => {
      const socket = connect({ port, host: "127.0.0.1" }, () => resolve(new RawClient(socket)));
      socket.once("error", reject);
      socket.setTimeout(10_000, () => socket.destroy(new Error(`No connection to port ${port}`)));
    }).then((client) => {
      client.#socket.setTimeout(0);
      return client;
    });
  }

  write(data: string | Uint8Array): void {
    this.#socket.write(typeof data === "string" ? new TextEncoder().encode(data) : data);
  }

  // Waits until `ready()` is true or the peer ended the connection, for at most 10 s.
  #until(ready: () => boolean, what: string): Promise<boolean> {
    return withDeadline(
      (async () => {
        while (!ready()) {
          if (this.#ended) return false;
          await new Promise<void>((resolve) => this.#wake = resolve);
          this.#wake = undefined;
        }
        return true;
      })(),
      10_000,
      what,
      { onTimeout: () => this.#socket.destroy() },
    );
  }

  #take(n: number): Uint8Array {
    const out = this.#buffer.slice(0, n);
    this.#buffer = this.#buffer.slice(n);
    return out;
  }

  /** Reads one HTTP response: the head, then a body of `Content-Length` bytes (none for 101). */
  async response(): Promise<RawResponse> {
    let end = -1;
    const found = await this.#until(() => {
      end = indexOfHeadEnd(this.#buffer);
      return end !== -1;
    }, "a response head");
    if (!found) throw new Error("The connection ended before a response head");
    const head = new TextDecoder().decode(this.#take(end + 4));
    const [statusLine, ...lines] = head.slice(0, -4).split("\r\n");
    const headers = new Headers();
    for (const line of lines) {
      const colon = line.indexOf(":");
      headers.append(line.slice(0, colon).trim(), line.slice(colon + 1).trim());
    }
    const status = Number(statusLine.split(" ")[1]);
    const length = status === 101 ? 0 : Number(headers.get("content-length") ?? 0);
    if (!await this.#until(() => this.#buffer.byteLength >= length, "a response body")) {
      throw new Error("The connection ended inside a response body");
    }
    return { status, headers, body: new TextDecoder().decode(this.#take(length)) };
  }

  /** Reads one frame from the server (unmasked), or null when the connection ended first. */
  async frame(): Promise<{ opcode: number; payload: Uint8Array } | null> {
    if (!await this.#until(() => this.#buffer.byteLength >= 2, "a frame")) return null;
    let length = this.#buffer[1] & 0x7f;
    let offset = 2;
    if (length === 126) offset = 4;
    if (length === 127) offset = 10;
    if (!await this.#until(() => this.#buffer.byteLength >= offset, "a frame length")) return null;
    const view = new DataView(this.#buffer.buffer, this.#buffer.byteOffset);
    if (length === 126) length = view.getUint16(2);
    if (length === 127) length = Number(view.getBigUint64(2));
    const whole = () => this.#buffer.byteLength >= offset + length;
    if (!await this.#until(whole, "a frame payload")) return null;
    const opcode = this.#buffer[0] & 0x0f;
    return { opcode, payload: this.#take(offset + length).subarray(offset) };
  }

  /** Reads frames until a close frame (its code and reason) or the end of the connection. */
  async closeFrame(): Promise<{ code: number; reason: string } | null> {
    for (;;) {
      const frame = await this.frame();
      if (frame === null) return null;
      if (frame.opcode !== 8) continue;
      const p = frame.payload;
      if (p.byteLength < 2) return { code: 1005, reason: "" };
      return { code: (p[0] << 8) | p[1], reason: new TextDecoder().decode(p.subarray(2)) };
    }
  }

  /** Whether the server ended the connection (waits for it). */
  ended(): Promise<boolean> {
    return this.#until(() => false, "the end of the connection").then(() => true);
  }

  close(): void {
    this.#socket.destroy();
  }
}

function indexOfHeadEnd(bytes: Uint8Array): number {
  for (let i = 0; i + 3 < bytes.byteLength; i++) {
    if (bytes[i] === 13 && bytes[i + 1] === 10 && bytes[i + 2] === 13 && bytes[i + 3] === 10) {
      return i;
    }
  }
  return -1;
}

/**
 * A handshake request: the RFC 6455 §1.3 sample request with `changes` applied (a `null`
 * value removes the header).
 */
export function handshake(
  path: string,
  changes: Record<string, string | null> = {},
  method = "GET",
): string {
  const fields: Record<string, string | null> = {
    host: "localhost",
    upgrade: "websocket",
    connection: "Upgrade",
    "sec-websocket-key": SAMPLE_KEY,
    "sec-websocket-version": "13",
    ...changes,
  };
  let head = `${method} ${path} HTTP/1.1\r\n`;
  for (const [name, value] of Object.entries(fields)) {
    if (value !== null) head += `${name}: ${value}\r\n`;
  }
  return head + "\r\n";
}

/** A masked client frame (RFC 6455 §5.3), FIN set, payload under 4 GiB. */
export function clientFrame(opcode: number, payload: Uint8Array): Uint8Array {
  const mask = [0x37, 0xfa, 0x21, 0x3d];
  const n = payload.byteLength;
  const head = n < 126
    ? [0x80 | opcode, 0x80 | n]
    : n < 65_536
    ? [0x80 | opcode, 0x80 | 126, n >> 8, n & 0xff]
    : [
      0x80 | opcode,
      0x80 | 127,
      0,
      0,
      0,
      0,
      n >>> 24,
      (n >> 16) & 0xff,
      (n >> 8) & 0xff,
      n & 0xff,
    ];
  const out = new Uint8Array(head.length + 4 + n);
  out.set(head);
  out.set(mask, head.length);
  for (let i = 0; i < n; i++) out[head.length + 4 + i] = payload[i] ^ mask[i % 4];
  return out;
}

/** A close frame's payload: the code in network order and the reason. */
export function closePayload(code: number, reason = ""): Uint8Array {
  const text = new TextEncoder().encode(reason);
  const out = new Uint8Array(2 + text.byteLength);
  out[0] = code >> 8;
  out[1] = code & 0xff;
  out.set(text, 2);
  return out;
}

// Messages each client received that no nextMessage() has taken yet: a server that sends in
// onOpen may have its message dispatched before the code after `await open` runs.
const inbox = new WeakMap<WebSocket, { queue: unknown[]; wake?: () => void }>();

/** Opens a client and resolves once it is open (rejects when the handshake fails). */
function openClient(
  env: Env,
  url: string,
  { protocols, openMs = 10_000 }: { protocols?: string | string[]; openMs?: number } = {},
): Promise<WebSocket> {
  const Client = clientClass(env);
  const client = new Client(url, protocols);
  client.binaryType = "arraybuffer";
  const box: { queue: unknown[]; wake?: () => void } = { queue: [] };
  inbox.set(client, box);
  client.onmessage = (event) => {
    box.queue.push(event.data);
    box.wake?.();
  };
  return withDeadline(
    new Promise((resolve, reject) => {
      client.onopen = () => resolve(client);
      client.onerror = () => reject(new Error(`Could not open ${url}`));
    }),
    openMs,
    `opening ${url}`,
  );
}

function closed(client: WebSocket): Promise<CloseEvent> {
  return withDeadline(
    new Promise((resolve) => client.onclose = resolve),
    10_000,
    "the close event",
  );
}

function nextMessage(client: WebSocket): Promise<unknown> {
  const box = inbox.get(client)!;
  return withDeadline(
    (async () => {
      while (box.queue.length === 0) await new Promise<void>((resolve) => box.wake = resolve);
      return box.queue.shift();
    })(),
    10_000,
    "a message",
  );
}

/** A record of what the server's handlers saw on each connection. */
interface Seen {
  frames: WebSocketFrame[];
  closes: [number, string][];
  errors: unknown[];
}

function echoApp(env: Env, seen: Seen, options: Parameters<typeof websocket>[1] = {}): Weft.App {
  const { get, router } = env.weft;
  return router([
    get(
      "/ws",
      weft(env).websocket({
        onMessage(socket: WebSocketConnection, frame: WebSocketFrame) {
          seen.frames.push(frame);
          if (frame.type === "text") {
            if (frame.text.startsWith("close ")) {
              const [, code, reason] = frame.text.split(" ");
              socket.close(Number(code), reason);
            } else if (frame.text === "throw") throw new Error("handler failed");
            else if (frame.text === "bad code") {
              try {
                socket.close(1005);
              } catch (error) {
                socket.send((error as Error).name);
              }
            } else socket.send(frame.text);
          } else if (frame.type === "binary") socket.send(frame.data);
        },
        onClose(_socket: WebSocketConnection, code: number, reason: string) {
          seen.closes.push([code, reason]);
        },
        onError(_socket: WebSocketConnection, error: unknown) {
          seen.errors.push(error);
        },
      }, options),
    ),
  ]);
}

function newSeen(): Seen {
  return { frames: [], closes: [], errors: [] };
}

const isDeno = typeof (globalThis as { Deno?: unknown }).Deno !== "undefined";

/** The cases, by name. */
export const websocketCases: Record<string, (env: Env) => Promise<void>> = {
  async "websocket: echoes text and binary messages whole"(env) {
    const seen = newSeen();
    await withServer(env, echoApp(env, seen), async (port) => {
      const client = await openClient(env, `ws://127.0.0.1:${port}/ws`);
      assert.equal(client.protocol, "");
      const reply = nextMessage(client);
      client.send("héllo wörld");
      assert.equal(await reply, "héllo wörld");
      const bytes = new Uint8Array(70_000).map((_, i) => i % 251);
      const echoed = nextMessage(client);
      client.send(bytes);
      assert.deepEqual(new Uint8Array(await echoed as ArrayBuffer), bytes);
      const done = closed(client);
      client.close(1000, "done");
      const event = await done;
      assert.equal(event.code, 1000);
      await eventually("onClose", () => seen.closes.length === 1);
      assert.deepEqual(seen.frames.map((f) => f.type), ["text", "binary", "close"]);
      assert.deepEqual(seen.frames[2], { type: "close", code: 1000, reason: "done" });
      assert.deepEqual(seen.closes, [[1000, "done"]]);
    });
  },

  async "websocket: send() takes the bytes as they are at the call; the caller may reuse them"(
    env,
  ) {
    // One buffer filled anew for each message of a burst: on Node the socket is corked until the
    // tick ends and `ws` did not copy, so every message carried the last content.
    const { get, router } = env.weft;
    const app = router([
      get(
        "/ws",
        weft(env).websocket({
          onMessage(socket: WebSocketConnection) {
            const buffer = new Uint8Array(300);
            for (let i = 0; i < 5; i++) {
              buffer.fill(i);
              socket.send(buffer);
              socket.send(buffer.subarray(1, 2));
            }
          },
        }),
      ),
    ]);
    await withServer(env, app, async (port) => {
      const client = await openClient(env, `ws://127.0.0.1:${port}/ws`);
      client.send("go");
      const got: number[][] = [];
      for (let i = 0; i < 10; i++) {
        const bytes = new Uint8Array(await nextMessage(client) as ArrayBuffer);
        got.push([bytes.length, ...new Set(bytes)]);
      }
      assert.deepEqual(got, [0, 1, 2, 3, 4].flatMap((i) => [[300, i], [1, i]]));
      client.close();
    });
  },

  async "websocket: topics attached to a socket end as it closes, with no message to find it closed"(
    env,
  ) {
    const { createTopics, get, router } = env.weft as WithWebSocket & typeof Weft;
    const topics = createTopics();
    const app = router([
      get(
        "/ws",
        weft(env).websocket({
          onOpen(socket: WebSocketConnection) {
            // A socket that moves from topic to topic: what it left keeps nothing on it.
            for (let i = 0; i < 100; i++) topics.attach(socket, [`room ${i}`])();
            topics.attach(socket, ["quiet", "also-quiet"]);
            const closers = (socket as unknown as Record<symbol, Set<unknown>>)[
              Symbol.for("weft.ws.onClosed")
            ];
            socket.send(`attached ${closers.size}`);
          },
          onMessage(socket: WebSocketConnection, frame: WebSocketFrame) {
            if (frame.type === "text" && frame.text === "bye") socket.close(1000, "bye");
          },
        }),
      ),
    ]);
    await withServer(env, app, async (port) => {
      // closed by the client, and by the server
      for (const how of ["client", "server"]) {
        const client = await openClient(env, `ws://127.0.0.1:${port}/ws`);
        assert.equal(await nextMessage(client), "attached 1");
        assert.equal(topics.subscribers("quiet"), 1);
        const done = closed(client);
        if (how === "client") client.close();
        else client.send("bye");
        await done;
        await eventually(
          `the subscriptions of a socket closed by the ${how} to end`,
          () => topics.subscribers("quiet") === 0 && topics.subscribers("also-quiet") === 0,
        );
      }
    });
    await topics.close();
  },

  async "websocket: 200 concurrent clients × 1,000 messages, none lost or reordered"(env) {
    const seen = newSeen();
    const clients = 200;
    const messages = 1_000;
    await withServer(env, echoApp(env, seen), async (port) => {
      const run = async (c: number): Promise<void> => {
        // Bounded by the whole run's deadline: on a loaded machine the last of 200 clients opens
        // while the first ones exchange their messages.
        const client = await openClient(env, `ws://127.0.0.1:${port}/ws`, { openMs: 120_000 });
        const received: string[] = [];
        const all = new Promise<void>((resolve) => {
          client.onmessage = (event) => {
            received.push(event.data as string);
            if (received.length === messages) resolve();
          };
        });
        for (let i = 0; i < messages; i++) client.send(`${c}:${i}`);
        await all;
        for (let i = 0; i < messages; i++) {
          if (received[i] !== `${c}:${i}`) {
            assert.fail(`client ${c}: message ${i} is ${received[i]}`);
          }
        }
        const done = closed(client);
        client.close();
        await done;
      };
      await withDeadline(
        Promise.all(Array.from({ length: clients }, (_, c) => run(c))),
        120_000,
        `${clients} clients × ${messages} messages`,
      );
      await eventually("every onClose", () => seen.closes.length === clients);
      assert.equal(seen.frames.filter((f) => f.type === "text").length, clients * messages);
    });
  },

  async "websocket: close codes go both ways; a throwing handler closes with 1011"(env) {
    const seen = newSeen();
    await withServer(env, echoApp(env, seen), async (port) => {
      const url = `ws://127.0.0.1:${port}/ws`;
      // 1. the client closes: the handler sees the close frame, then onClose
      let client = await openClient(env, url);
      let done = closed(client);
      client.close(4000, "bye");
      let event = await done;
      assert.equal(event.code, 4000);
      assert.equal(event.reason, "bye");
      await eventually("onClose", () => seen.closes.length === 1);
      assert.deepEqual(seen.frames.at(-1), { type: "close", code: 4000, reason: "bye" });
      assert.deepEqual(seen.closes[0], [4000, "bye"]);
      // 2. the server closes
      client = await openClient(env, url);
      done = closed(client);
      client.send("close 4001 done");
      event = await done;
      assert.equal(event.code, 4001);
      assert.equal(event.reason, "done");
      await eventually("onClose", () => seen.closes.length === 2);
      assert.deepEqual(seen.closes[1], [4001, "done"]);
      // 3. a code an endpoint may not send throws RangeError in the handler
      client = await openClient(env, url);
      const reply = nextMessage(client);
      client.send("bad code");
      assert.equal(await reply, "RangeError");
      // 4. a handler that throws: 1011, and onError hears of it
      done = closed(client);
      client.send("throw");
      event = await done;
      assert.equal(event.code, 1011);
      await eventually("onClose", () => seen.closes.length === 3);
      assert.deepEqual(seen.closes[2], [1011, "Internal error"]);
      assert.equal((seen.errors[0] as Error).message, "handler failed");
    });
  },

  async "websocket: a message over maxMessageBytes closes with 1009"(env) {
    const seen = newSeen();
    await withServer(env, echoApp(env, seen, { maxMessageBytes: 1024 }), async (port) => {
      const url = `ws://127.0.0.1:${port}/ws`;
      let client = await openClient(env, url);
      const echoed = nextMessage(client);
      client.send(new Uint8Array(1024)); // exactly the limit
      assert.equal((await echoed as ArrayBuffer).byteLength, 1024);
      let done = closed(client);
      client.send(new Uint8Array(1025));
      assert.equal((await done).code, 1009);
      // 513 characters but 1026 bytes of UTF-8: the limit counts bytes
      client = await openClient(env, url);
      done = closed(client);
      client.send("é".repeat(513));
      assert.equal((await done).code, 1009);
      await eventually("onClose", () => seen.closes.length === 2);
      assert.deepEqual(seen.closes.map(([code]) => code), [1009, 1009]);
      assert.equal(seen.frames.filter((f) => f.type === "text").length, 0);
      assert.equal(seen.frames.filter((f) => f.type === "binary").length, 1);
    });
  },

  async "websocket: a client that floods a slow handler is closed with 1008 (Deno: dropped)"(
    env,
  ) {
    const { get, router } = env.weft;
    const seen = newSeen();
    const app = router([
      get(
        "/ws",
        weft(env).websocket({
          async onMessage(socket: WebSocketConnection, frame: WebSocketFrame) {
            seen.frames.push(frame);
            // The first message holds the handler until the server closes, so the rest wait.
            await eventually("the server's close", () => socket.readyState !== "open")
              .catch(() => {});
          },
          onClose(_socket: WebSocketConnection, code: number, reason: string) {
            seen.closes.push([code, reason]);
          },
        }),
      ),
    ]);
    // 1. more than 64 messages waiting (the default maxQueuedMessages)
    // 2. more than 4 MiB waiting (the default maxQueuedBytes), in 17 messages of 256 KiB
    const floods = [
      Array.from({ length: 100 }, (_, i) => clientFrame(0x1, new TextEncoder().encode(`${i}`))),
      Array.from({ length: 20 }, () => clientFrame(0x2, new Uint8Array(262_144))),
    ];
    await withServer(env, app, async (port) => {
      for (const frames of floods) {
        const raw = await RawClient.open(port);
        try {
          raw.write(handshake("/ws"));
          assert.equal((await raw.response()).status, 101);
          for (const frame of frames) raw.write(frame);
          const close = await withDeadline(raw.closeFrame(), 10_000, "the close");
          if (close !== null) assert.equal(close.code, 1008);
          // Deno drops a closing socket on the next data frame, before its close frame went out.
          else assert.ok(isDeno, "only Deno may end the connection without a 1008 close frame");
        } finally {
          raw.close();
        }
      }
      await eventually("onClose", () => seen.closes.length === 2);
      assert.deepEqual(seen.closes.map(([code]) => code), [1008, 1008]);
      // Only the message that held each handler was delivered; the waiting ones were dropped.
      assert.deepEqual(seen.frames.map((f) => f.type), ["text", "binary"]);
    });
  },

  async "websocket: messages still waiting when the client leaves are dropped"(env) {
    const { get, router } = env.weft;
    let calls = 0;
    const closes: number[] = [];
    const app = router([
      get(
        "/ws",
        weft(env).websocket({
          async onMessage(socket: WebSocketConnection, frame: WebSocketFrame) {
            if (frame.type !== "text") return;
            calls++;
            // The first message holds the handler until the connection is gone.
            await eventually("the client's close", () => socket.readyState === "closed")
              .catch(() => {});
          },
          onClose(_socket: WebSocketConnection, code: number) {
            closes.push(code);
          },
        }),
      ),
    ]);
    await withServer(env, app, async (port) => {
      const client = await openClient(env, `ws://127.0.0.1:${port}/ws`);
      for (let i = 0; i < 30; i++) client.send(String(i));
      const done = closed(client);
      client.close(1000);
      await done;
      await eventually("onClose", () => closes.length === 1);
      assert.deepEqual(closes, [1000]);
      assert.equal(calls, 1, "only the running call finished; none started after the close");
    });
  },

  async "websocket: invalid UTF-8 in a text message closes with 1007 (Deno: drops the connection)"(
    env,
  ) {
    const seen = newSeen();
    await withServer(env, echoApp(env, seen), async (port) => {
      const raw = await RawClient.open(port);
      try {
        raw.write(handshake("/ws"));
        assert.equal((await raw.response()).status, 101);
        raw.write(clientFrame(0x1, new Uint8Array([0x68, 0x69, 0xff, 0xfe])));
        const close = await withDeadline(raw.closeFrame(), 10_000, "the close");
        if (close !== null) assert.equal(close.code, 1007);
        // Deno drops the connection without a close frame (documented in websocket()).
        else assert.ok(isDeno, "only Deno may end the connection without a 1007 close frame");
        await eventually("onClose", () => seen.closes.length === 1);
        assert.equal(seen.frames.length, 0, "the invalid message is never delivered");
        assert.ok([1006, 1007].includes(seen.closes[0][0]));
      } finally {
        raw.close();
      }
    });
  },

  async "websocket: malformed handshakes get 400 or 426 problem+json, never a 500"(env) {
    const { chain, get, router } = env.weft;
    const { websocket } = weft(env);
    let opened = 0;
    const handlers = { onOpen: () => void opened++ };
    const middleware = websocket(handlers);
    const app = chain(
      [async function onlyMw(ctx, next) {
        // The same handshake rules in middleware mode on another path.
        if (ctx.path === "/mw") return await middleware(ctx, next);
        return await next();
      }],
      router([get("/ws", websocket(handlers)), get("/mw", () => new Response("plain"))]),
    );
    const cases: [string, number, Record<string, string>?][] = [
      [
        handshake("/ws", {
          upgrade: null,
          connection: null,
          "sec-websocket-key": null,
          "sec-websocket-version": null,
        }),
        426,
        { upgrade: "websocket", "sec-websocket-version": "13" },
      ],
      [handshake("/ws", { "sec-websocket-version": "8" }), 426, { "sec-websocket-version": "13" }],
      [handshake("/ws", { "sec-websocket-version": null }), 426, { "sec-websocket-version": "13" }],
      [handshake("/ws", { "sec-websocket-version": "13, 8" }), 426, {
        "sec-websocket-version": "13",
      }],
      [handshake("/ws", { "sec-websocket-key": null }), 400],
      [handshake("/ws", { "sec-websocket-key": "abc" }), 400],
      [handshake("/ws", { "sec-websocket-key": "AAAAAAAAAAAAAAAAAAAA" }), 400], // 15 bytes
      [handshake("/ws", { "sec-websocket-key": "AAAAAAAAAAAAAAAAAAAAAAA=" }), 400], // 17 bytes
      [handshake("/ws", { "sec-websocket-key": "dGhlIHNhbXBsZSBub25jZR==" }), 400], // stray bits
      [handshake("/ws", { "sec-websocket-key": "dGhlIHNhbXBsZSBub25jZQ" }), 400], // no padding
      [handshake("/ws", { "sec-websocket-key": `${SAMPLE_KEY}, ${SAMPLE_KEY}` }), 400],
      [handshake("/ws", { connection: null }), 400],
      [handshake("/ws", { connection: "keep-alive" }), 400],
      [handshake("/ws", { upgrade: null }), 400],
      [handshake("/ws", { upgrade: "h2c" }), 400],
      [handshake("/mw", {}, "POST"), 400],
      [handshake("/mw", {}, "DELETE"), 400],
    ];
    await withServer(env, app, async (port) => {
      for (const [request, status, headers] of cases) {
        const raw = await RawClient.open(port);
        try {
          raw.write(request);
          const res = await withDeadline(raw.response(), 10_000, request);
          assert.equal(res.status, status, request);
          assert.equal(res.headers.get("content-type"), "application/problem+json", request);
          assert.equal(JSON.parse(res.body).status, status);
          for (const [name, value] of Object.entries(headers ?? {})) {
            assert.equal(res.headers.get(name), value, `${name} on ${request}`);
          }
        } finally {
          raw.close();
        }
      }
      // Case-insensitive tokens and a Connection list are a valid handshake.
      const raw = await RawClient.open(port);
      try {
        raw.write(handshake("/ws", { upgrade: "WebSocket", connection: "keep-alive, upgrade" }));
        const res = await raw.response();
        assert.equal(res.status, 101);
        assert.equal(res.headers.get("sec-websocket-accept"), "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=");
      } finally {
        raw.close();
      }
      // Middleware mode: what is not a handshake goes on down the chain.
      const plain = await withDeadline(
        fetch(`http://127.0.0.1:${port}/mw`),
        10_000,
        `a response from http://127.0.0.1:${port}/mw`,
      );
      assert.equal(await plain.text(), "plain");
      await eventually("the one socket opened", () => opened === 1);
    });
  },

  async "websocket: auth answers 401 before the upgrade; the 101 has middleware headers; the logger records 101"(
    env,
  ) {
    const { auth, bearerTokens, chain, cors, get, logger, router } = env.weft;
    const { acceptKey, websocket } = weft(env);
    const records: { path: string; status: number }[] = [];
    let user: unknown;
    const app = chain(
      [
        logger({ sink: (_line, record) => records.push(record) }),
        cors({ origin: ["https://app.example"], credentials: true }),
        async function session(ctx, next) {
          ctx.setHeader("set-cookie", "sid=abc; HttpOnly");
          ctx.setHeader("x-request-id", "r-1");
          return await next();
        },
        auth({ validate: bearerTokens(new Map([["s3cr3t", { name: "ada" }]])) }),
      ],
      router([
        get(
          "/ws",
          websocket({
            onOpen(socket: WebSocketConnection) {
              user = (socket.ctx.var as { user?: unknown }).user;
              socket.send("welcome");
            },
          }),
        ),
      ]),
    );
    await withServer(env, app, async (port) => {
      // 1. no token: 401 from auth, no upgrade
      let raw = await RawClient.open(port);
      try {
        raw.write(handshake("/ws"));
        const res = await raw.response();
        assert.equal(res.status, 401);
        assert.match(res.headers.get("www-authenticate") ?? "", /^Bearer realm=/);
        assert.equal(res.headers.get("content-type"), "application/problem+json");
        assert.equal(res.headers.get("sec-websocket-accept"), null);
      } finally {
        raw.close();
      }
      // 2. a valid token: 101 with the headers of cors, the cookie and the custom header
      raw = await RawClient.open(port);
      try {
        const key = "AQIDBAUGBwgJCgsMDQ4PEA==";
        raw.write(handshake("/ws", {
          "sec-websocket-key": key,
          authorization: "Bearer s3cr3t",
          origin: "https://app.example",
        }));
        const res = await raw.response();
        assert.equal(res.status, 101);
        assert.equal(res.headers.get("sec-websocket-accept"), await acceptKey(key));
        assert.equal(res.headers.get("access-control-allow-origin"), "https://app.example");
        assert.equal(res.headers.get("access-control-allow-credentials"), "true");
        assert.equal(res.headers.get("set-cookie"), "sid=abc; HttpOnly");
        assert.equal(res.headers.get("x-request-id"), "r-1");
        const frame = await raw.frame();
        assert.equal(new TextDecoder().decode(frame?.payload), "welcome");
        assert.deepEqual(user, { name: "ada" });
        raw.write(clientFrame(0x8, closePayload(1000)));
        assert.equal((await raw.closeFrame())?.code, 1000);
      } finally {
        raw.close();
      }
      await eventually("two log records", () => records.length === 2);
      assert.deepEqual(records.map((r) => [r.path, r.status]), [["/ws", 401], ["/ws", 101]]);
    });
  },

  async "websocket: origins refuses a handshake from another site with 403 before the upgrade"(
    env,
  ) {
    const { get, router } = env.weft;
    const { websocket } = weft(env);
    let opened = 0;
    const handlers = { onOpen: () => void opened++ };
    const app = router([
      get("/list", websocket(handlers, { origins: ["https://app.example"] })),
      get(
        "/fn",
        websocket(handlers, {
          origins: (origin) => Promise.resolve(origin.endsWith(".app.example")),
        }),
      ),
      get("/any", websocket(handlers)),
    ]);
    const cases: [string, string | null, number][] = [
      ["/list", "https://evil.example", 403],
      ["/list", "https://app.example.evil.example", 403],
      ["/list", "http://app.example", 403], // another scheme is another origin
      ["/list", "https://app.example:8443", 403],
      ["/list", "null", 403],
      ["/list", "https://app.example", 101],
      ["/list", null, 101], // no Origin: not a browser
      ["/fn", "https://evil.example", 403],
      ["/fn", "https://eu.app.example", 101],
      ["/any", "https://evil.example", 101], // without origins, any origin may connect
    ];
    await withServer(env, app, async (port) => {
      for (const [path, origin, status] of cases) {
        const raw = await RawClient.open(port);
        try {
          raw.write(handshake(path, { origin }));
          const res = await withDeadline(raw.response(), 10_000, `${path} from ${origin}`);
          assert.equal(res.status, status, `${path} from ${origin}`);
          if (status === 403) {
            assert.equal(res.headers.get("content-type"), "application/problem+json");
            assert.equal(JSON.parse(res.body).status, 403);
            assert.equal(res.headers.get("sec-websocket-accept"), null);
          }
        } finally {
          raw.close();
        }
      }
      await eventually("the sockets allowed to open", () => opened === 4);
    });
  },

  async "websocket: the first server protocol the client offers is chosen"(env) {
    const { get, router } = env.weft;
    const { websocket } = weft(env);
    const app = router([
      get(
        "/ws",
        websocket({ onOpen: (socket) => socket.send(socket.protocol) }, {
          protocols: ["v2.chat", "v1.chat"],
        }),
      ),
    ]);
    await withServer(env, app, async (port) => {
      const client = await openClient(env, `ws://127.0.0.1:${port}/ws`, {
        protocols: ["v1.chat", "v2.chat"],
      });
      const said = nextMessage(client);
      assert.equal(client.protocol, "v2.chat");
      assert.equal(await said, "v2.chat");
      const done = closed(client);
      client.close();
      await done;
      // None in common: no Sec-WebSocket-Protocol (RFC 6455 §4.2.2); the client decides.
      const raw = await RawClient.open(port);
      try {
        raw.write(handshake("/ws", { "sec-websocket-protocol": "mqtt" }));
        const res = await raw.response();
        assert.equal(res.status, 101);
        assert.equal(res.headers.get("sec-websocket-protocol"), null);
      } finally {
        raw.close();
      }
    });
  },

  async "websocket: graceful shutdown closes open sockets with 1001"(env) {
    for (const how of ["shutdown()", "signal"]) {
      const seen = newSeen();
      const controller = new AbortController();
      const server = env.weft.serve(echoApp(env, seen), { ...QUIET, signal: controller.signal });
      const url = `ws://127.0.0.1:${server.addr.port}/ws`;
      try {
        const clients = await Promise.all([openClient(env, url), openClient(env, url)]);
        const raw = await RawClient.open(server.addr.port);
        raw.write(handshake("/ws"));
        assert.equal((await raw.response()).status, 101);
        const events = clients.map(closed);
        const rawClose = raw.closeFrame();
        if (how === "signal") controller.abort();
        else await withDeadline(server.shutdown(), 10_000, "server.shutdown()");
        await withDeadline(server.finished, 10_000, "finished");
        for (const event of await Promise.all(events)) assert.equal(event.code, 1001, how);
        assert.equal((await rawClose)?.code, 1001, how);
        raw.close();
        await eventually("onClose", () => seen.closes.length === 3);
        assert.deepEqual(seen.closes.map(([code]) => code), [1001, 1001, 1001]);
      } finally {
        await withDeadline(server.shutdown(), 10_000, "server.shutdown()");
      }
    }
  },

  async "websocket: HTTP/2 requests get 426; WebSockets stay on HTTP/1.1"(env) {
    const { get, router } = env.weft;
    const app = router([get("/ws", weft(env).websocket({}))]);
    const server = env.weft.serve(app, { ...QUIET, cert: env.cert, key: env.key });
    try {
      const res = await env.curl([
        "--http2",
        "--cacert",
        env.caFile,
        `https://localhost:${server.addr.port}/ws`,
      ]);
      assert.equal(res.httpVersion, "2");
      assert.equal(res.status, 426);
      assert.equal(res.headers.get("content-type"), "application/problem+json");
      assert.equal(res.headers.get("sec-websocket-version"), "13");
    } finally {
      await withDeadline(server.shutdown(), 10_000, "server.shutdown()");
    }
  },
};
