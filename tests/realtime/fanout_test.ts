// Fan-out across processes: two Weft processes (examples/realtime_redis.ts) share one
// redis-server; WebSocket and event-stream clients are spread over both; 1,000 messages are
// published through randomly chosen processes; every client must receive every message once,
// in order per publisher. The CI size is 100 WebSockets and 40 event streams;
// WEFT_FANOUT_FULL=1 runs the full size of 500 and 200.
import assert from "node:assert/strict";
import { type ChildHandle, spawnChild } from "../_child.ts";
import { eventually, withDeadline } from "../_deadline.ts";
import { openHttp1, type SsePeer } from "../conformance/_sse_peer.ts";
import { freePort, startRedis } from "./_redis_server.ts";

const FULL = Deno.env.get("WEFT_FANOUT_FULL") === "1";
const WEBSOCKETS = FULL ? 500 : 100;
const STREAMS = FULL ? 200 : 40;
const MESSAGES = 1_000;
const BATCH = 50;
// The full size moves 700,000 deliveries through this one test process: give it time.
const WAIT_MS = FULL ? 600_000 : 60_000;

function startWeft(redisUrl: string, port = freePort()): { child: ChildHandle; port: number } {
  const child = spawnChild(Deno.execPath(), {
    what: `examples/realtime_redis.ts on port ${port}`,
    args: ["run", "-A", "examples/realtime_redis.ts"],
    cwd: new URL("../..", import.meta.url).pathname,
    env: { PORT: String(port), REDIS_URL: redisUrl },
    stdout: "piped",
    stderr: "piped",
    deadlineMs: 2 * WAIT_MS + 60_000,
  });
  return { child, port };
}

/** A WebSocket client that records what it receives after the hello. */
async function openSocket(
  port: number,
  received: string[] = [],
): Promise<{ socket: WebSocket; received: string[] }> {
  const socket = new WebSocket(`ws://127.0.0.1:${port}/ws`);
  const hello = new Promise<void>((resolve, reject) => {
    socket.onmessage = (event) => {
      if (String(event.data).startsWith("hello ")) resolve();
      else received.push(String(event.data));
    };
    socket.onerror = () => reject(new Error(`WebSocket to port ${port} failed`));
  });
  await withDeadline(hello, 20_000, `the hello of a WebSocket on port ${port}`);
  return { socket, received };
}

Deno.test(`fan-out: ${WEBSOCKETS} WebSockets and ${STREAMS} event streams over two processes sharing Redis get all ${MESSAGES} messages in order`, async () => {
  const redis = await startRedis();
  const weft = [startWeft(redis.url), startWeft(redis.url)];
  const sockets: { socket: WebSocket; received: string[] }[] = [];
  const streams: SsePeer[] = [];
  try {
    for (const { child } of weft) {
      await child.waitForOutput("stdout", /listening on/, {
        ms: 60_000,
        what: "Weft to listen",
      });
    }
    // 1. Clients, alternating between the processes, in groups so the handshakes overlap.
    for (let i = 0; i < WEBSOCKETS; i += 25) {
      const group = Array.from(
        { length: Math.min(25, WEBSOCKETS - i) },
        (_, j) => openSocket(weft[(i + j) % 2].port),
      );
      sockets.push(...await Promise.all(group));
    }
    for (let i = 0; i < STREAMS; i++) {
      const stream = await openHttp1(
        `http://127.0.0.1:${weft[i % 2].port}/events`,
      );
      await stream.until(
        "the hello event",
        () => stream.parser.events.length === 1,
      );
      streams.push(stream);
    }
    // 2. 1,000 messages, each through a random process; each process publishes its share in
    //    batches, one batch after the other, so its messages have one order.
    const shares: string[][] = [[], []];
    for (let i = 0; i < MESSAGES; i++) {
      const p = Math.random() < 0.5 ? 0 : 1;
      shares[p].push(`${p}:${shares[p].length}`);
    }
    await withDeadline(
      Promise.all(weft.map(async ({ port }, p) => {
        for (let i = 0; i < shares[p].length; i += BATCH) {
          const res = await fetch(`http://127.0.0.1:${port}/publish`, {
            method: "POST",
            headers: { "content-type": "application/json" },
            body: JSON.stringify(shares[p].slice(i, i + BATCH)),
          });
          assert.equal(res.status, 200, await res.text());
        }
      })),
      WAIT_MS,
      "the messages to be published",
    );
    // 3. Everything arrives, once, in order per publisher.
    const streamData = (stream: SsePeer) => stream.parser.events.slice(1).map((e) => e.data);
    await eventually(
      "every client to receive every message",
      () =>
        sockets.every(({ received }) => received.length >= MESSAGES) &&
        streams.every((stream) => stream.parser.events.length >= MESSAGES + 1),
      WAIT_MS,
    );
    const all = [
      ...sockets.map(({ received }) => received),
      ...streams.map(streamData),
    ];
    for (const received of all) {
      assert.equal(received.length, MESSAGES, "nothing duplicated");
      for (const p of [0, 1]) {
        assert.deepEqual(
          received.filter((m) => m.startsWith(`${p}:`)),
          shares[p],
        );
      }
    }
  } finally {
    for (const { socket } of sockets) socket.close();
    for (const stream of streams) stream.close();
    for (const { child } of weft) await child.stop();
    await redis.stop();
  }
});

/** Publishes `messages` through the process on `port`, in batches, one after the other. */
async function publishThrough(port: number, messages: string[]): Promise<void> {
  for (let i = 0; i < messages.length; i += BATCH) {
    const res = await withDeadline(
      fetch(`http://127.0.0.1:${port}/publish`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(messages.slice(i, i + BATCH)),
      }),
      10_000,
      `a publish through port ${port}`,
    );
    assert.equal(res.status, 200, await res.text());
  }
}

Deno.test("fan-out: a process killed and restarted in the middle; its clients reconnect and miss exactly what was published while it was down", async () => {
  const redis = await startRedis();
  const a = startWeft(redis.url);
  let b = startWeft(redis.url);
  // Per client: the process it uses, what it received across reconnections, how to close it.
  const clients: { on: "a" | "b"; received: string[]; close: () => void }[] = [];
  const connect = async (on: "a" | "b", kind: "ws" | "sse", received: string[]) => {
    const port = on === "a" ? a.port : b.port;
    if (kind === "ws") {
      const { socket } = await openSocket(port, received);
      return () => socket.close();
    }
    const stream = await openHttp1(`http://127.0.0.1:${port}/events`);
    await stream.until("the hello event", () => stream.parser.events.length === 1);
    let seen = 1;
    const copy = setInterval(() => {
      for (; seen < stream.parser.events.length; seen++) {
        received.push(stream.parser.events[seen].data);
      }
    }, 5);
    return () => {
      clearInterval(copy);
      for (; seen < stream.parser.events.length; seen++) {
        received.push(stream.parser.events[seen].data);
      }
      stream.close();
    };
  };
  const kinds = ["ws", "ws", "sse"] as const;
  try {
    for (const { child } of [a, b]) {
      await child.waitForOutput("stdout", /listening on/, { ms: 60_000, what: "Weft to listen" });
    }
    for (let i = 0; i < 30; i++) {
      const on = i % 2 === 0 ? "a" : "b";
      const received: string[] = [];
      clients.push({ on, received, close: await connect(on, kinds[i % 3], received) });
    }
    const all = (n: number, of = clients) => of.every(({ received }) => received.length >= n);
    // 1. 300 messages through both processes: everyone gets them.
    const before = Array.from({ length: 300 }, (_, i) => `${i % 2 ? "b" : "a"}:${i}`);
    await Promise.all([
      publishThrough(a.port, before.filter((m) => m.startsWith("a"))),
      publishThrough(b.port, before.filter((m) => m.startsWith("b"))),
    ]);
    await eventually("every client to get the first 300", () => all(300), 30_000);
    // 2. b stops (its sockets get 1001, its streams end); 100 messages through a meanwhile.
    await b.child.stop();
    for (const client of clients) if (client.on === "b") client.close();
    const whileDown = Array.from({ length: 100 }, (_, i) => `a:down${i}`);
    await publishThrough(a.port, whileDown);
    const onA = clients.filter(({ on }) => on === "a");
    await eventually("a's clients to get what was published while b was down", () => all(400, onA));
    // 3. b is back on its port; its clients reconnect and keep their record.
    b = startWeft(redis.url, b.port);
    await b.child.waitForOutput("stdout", /listening on/, {
      ms: 60_000,
      what: "b to listen again",
    });
    for (const [i, client] of clients.entries()) {
      if (client.on === "b") client.close = await connect("b", kinds[i % 3], client.received);
    }
    // 4. 300 more through both.
    const after = Array.from({ length: 300 }, (_, i) => `${i % 2 ? "b" : "a"}:after${i}`);
    await Promise.all([
      publishThrough(a.port, after.filter((m) => m.startsWith("a"))),
      publishThrough(b.port, after.filter((m) => m.startsWith("b"))),
    ]);
    const byPublisher = (list: string[]) => [
      list.filter((m) => m.startsWith("a:")),
      list.filter((m) => m.startsWith("b:")),
    ];
    await eventually(
      "every client to get the last 300",
      () => clients.every(({ on, received }) => received.length >= (on === "a" ? 700 : 600)),
      30_000,
    );
    for (const client of clients) {
      if (client.on === "b") client.close(); // flushes what the stream parsed into the record
    }
    for (const { on, received } of clients) {
      const expected = on === "a" ? [...before, ...whileDown, ...after] : [...before, ...after];
      assert.equal(received.length, expected.length, `a client of ${on}: nothing duplicated`);
      assert.deepEqual(byPublisher(received), byPublisher(expected), `a client of ${on}`);
    }
  } finally {
    for (const client of clients) client.close();
    await a.child.stop();
    await b.child.stop().catch(() => {});
    await redis.stop();
  }
});
