// Real time on Node, against the npm build: sse() with the `eventsource` npm client (events, a
// reconnection with Last-Event-ID after the server ends the response, heartbeats unseen), and
// weft/redis with its ioredis dependency against a redis-server the test starts, stops and
// starts again.
import { type ChildProcess, spawn } from "node:child_process";
import { createServer } from "node:net";
import { Worker } from "node:worker_threads";
import assert from "node:assert/strict";
import { afterAll, describe, test } from "vitest";
import { EventSource } from "eventsource";
import {
  broadcastChannelTransport,
  createTopics,
  get,
  router,
  serve,
  sse,
  TopicsUnavailableError,
} from "weft";
import { redisTransport } from "weft/redis";
import * as weft from "weft";
import { eventually, terminate, withDeadline } from "../_deadline.ts";
import { slowSubscriberCases } from "../realtime/slow_subscriber_cases.ts";
import { publishTimeoutValidation, stalledRedis } from "../realtime/redis_stall_cases.ts";
import { stalledStream } from "../conformance/sse_cases.ts";
import { RUNTIME_DIFFERENCES } from "./runtime_differences.ts";

const QUIET = { port: 0, hostname: "127.0.0.1", onListen() {} };

describe("sse() with the eventsource client", () => {
  test("receives events, reconnects with Last-Event-ID, and sees no heartbeat", async () => {
    const lastEventIds: string[] = [];
    const app = router([
      get("/events", (ctx) =>
        sse(ctx, async (stream) => {
          lastEventIds.push(stream.lastEventId);
          if (stream.lastEventId === "") {
            stream.send({ id: "1", data: "one" });
            stream.send({ id: "2", event: "tick", data: "two\nlines" });
            return; // the server ends the response: the client reconnects
          }
          stream.send({ id: "3", data: "resumed" });
          // Heartbeats every 20 ms; the last event once ten have passed.
          await new Promise((resolve) => setTimeout(resolve, 200));
          // With its own id: the eventsource client (4.1) reports "" as the lastEventId of an
          // event without one, where browsers report the last id seen (WHATWG HTML §9.2.6).
          stream.send({ event: "done", data: "bye", id: "4" });
          await stream.closed;
        }, { heartbeat: 20, retry: 50 })),
    ]);
    const server = serve(app, QUIET);
    const source = new EventSource(
      `http://127.0.0.1:${server.addr.port}/events`,
    );
    const received: string[][] = [];
    let opens = 0;
    try {
      await withDeadline(
        new Promise<void>((resolve) => {
          source.onopen = () => opens++;
          source.onmessage = (e) => received.push(["message", e.data, e.lastEventId]);
          source.addEventListener(
            "tick",
            (e) => received.push(["tick", e.data, e.lastEventId]),
          );
          source.addEventListener("done", (e) => {
            received.push(["done", e.data, e.lastEventId]);
            resolve();
          });
        }),
        20_000,
        "the done event",
      );
      assert.deepEqual(received, [
        ["message", "one", "1"],
        ["tick", "two\nlines", "2"],
        ["message", "resumed", "3"],
        ["done", "bye", "4"],
      ]);
      assert.deepEqual(lastEventIds, ["", "2"]);
      assert.equal(opens, 2);
    } finally {
      source.close();
      await withDeadline(server.shutdown(), 10_000, "the server to shut down");
    }
  });
});

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const address = probe.address();
      probe.close(() => resolve(typeof address === "object" && address ? address.port : 0));
    });
  });
}

// A redis-server without persistence on `port`; resolves once it accepts connections.
async function startRedis(port: number): Promise<ChildProcess> {
  const child = spawn("redis-server", [
    "--port",
    String(port),
    "--bind",
    "127.0.0.1",
    "--save",
    "",
    "--appendonly",
    "no",
  ], { stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  await withDeadline(
    new Promise<void>((resolve, reject) => {
      child.once(
        "error",
        (error) =>
          reject(
            new Error(
              `Cannot start redis-server (apt-get install redis-server): ${error}`,
            ),
          ),
      );
      child.stdout!.on("data", (chunk) => {
        output += chunk;
        if (output.includes("Ready to accept connections")) resolve();
      });
    }),
    15_000,
    "redis-server to accept connections",
    { onTimeout: () => child.kill("SIGKILL") },
  );
  return child;
}

async function stopRedis(child: ChildProcess): Promise<void> {
  const exited = child.exitCode !== null || child.signalCode !== null
    ? Promise.resolve()
    : new Promise<void>((resolve) => child.once("exit", () => resolve()));
  await terminate(
    { kill: (signal) => child.kill(signal), exited },
    "redis-server",
  );
}

describe("weft/redis on Node", () => {
  const children: ChildProcess[] = [];
  afterAll(async () => {
    for (const child of children) await stopRedis(child);
  });

  test("carries topics between hubs and reconnects after a restart", async () => {
    const port = await freePort();
    let redis = await startRedis(port);
    children.push(redis);
    const url = `redis://127.0.0.1:${port}`;
    const a = createTopics({ transport: await redisTransport({ url }) });
    const b = createTopics({ transport: await redisTransport({ url }) });
    try {
      const seen: string[] = [];
      b.subscribe("feed", (message) => seen.push(message));
      await b.ready("feed");
      for (let i = 0; i < 20; i++) await a.publish("feed", `m${i}`);
      await eventually("20 messages", () => seen.length === 20);
      assert.deepEqual(seen, Array.from({ length: 20 }, (_, i) => `m${i}`));
      await assert.rejects(
        a.publish("x".repeat(1_048_576), "big topic"),
        RangeError,
      );

      await stopRedis(redis);
      await eventually("publishing to fail while Redis is down", () => {
        a.publish("feed", "down").then(() => {}, (error) => {
          if (error instanceof TopicsUnavailableError) seen.push("rejected");
        });
        return seen.includes("rejected");
      }, 10_000);
      redis = await startRedis(port);
      children.push(redis);
      await eventually("messages to flow again", () => {
        a.publish("feed", "after").catch(() => {});
        return seen.includes("after");
      }, 30_000);
      assert.ok(!seen.includes("down"));
    } finally {
      await withDeadline(
        Promise.all([a.close(), b.close()]),
        10_000,
        "the hubs to close",
      );
    }
  });

  test("publishTimeout other than a positive finite number is a RangeError", () =>
    publishTimeoutValidation({ weft, redisTransport }));

  test("with Redis stalled: publish() rejects after publishTimeout, close() ends, both work again when it resumes", async () => {
    const port = await freePort();
    const redis = await startRedis(port);
    children.push(redis);
    let paused = false;
    try {
      await stalledRedis({ weft, redisTransport }, {
        url: `redis://127.0.0.1:${port}`,
        pause() {
          redis.kill("SIGSTOP");
          paused = true;
        },
        resume() {
          redis.kill("SIGCONT");
          paused = false;
        },
      });
    } finally {
      // A stopped process keeps SIGTERM pending until it runs again.
      if (paused) redis.kill("SIGCONT");
      await stopRedis(redis);
    }
  });
});

describe("broadcastChannelTransport() on Node", () => {
  test("carries topics between worker_threads of one process", async () => {
    const name = `weft-worker-test-${process.pid}`;
    // The worker subscribes, says so, and sends back every message it receives.
    const worker = new Worker(
      `const { parentPort, workerData } = require("node:worker_threads");
      import("weft").then(({ broadcastChannelTransport, createTopics }) => {
        const topics = createTopics({ transport: broadcastChannelTransport(workerData) });
        topics.subscribe("feed", (message) => parentPort.postMessage(message));
        parentPort.postMessage("ready");
      });`,
      { eval: true, workerData: name },
    );
    const topics = createTopics({ transport: broadcastChannelTransport(name) });
    const received: string[] = [];
    try {
      await withDeadline(
        new Promise<void>((resolve, reject) => {
          worker.on("message", (message: string) => {
            if (message === "ready") resolve();
            else received.push(message);
          });
          worker.once("error", reject);
        }),
        20_000,
        "the worker to subscribe",
      );
      const sent = Array.from({ length: 50 }, (_, i) => `m${i}`);
      for (const message of sent) await topics.publish("feed", message);
      await eventually("50 messages in the worker", () => received.length === 50);
      assert.deepEqual(received, sent);
    } finally {
      await topics.close();
      await worker.terminate();
    }
  });
});

describe("a WebSocket subscriber that stops reading (tests/realtime/slow_subscriber_cases.ts)", () => {
  for (const [name, run] of Object.entries(slowSubscriberCases)) {
    test(`on Node: ${name}`, () => run(weft as never), 60_000);
  }
});

describe("sse() and the server's shutdown", () => {
  test(
    "[stalledStreamShutdown] shutdown() does not wait for an event-stream client that stopped reading",
    async () => {
      assert.ok(RUNTIME_DIFFERENCES.stalledStreamShutdown);
      const { server, stream, slow } = await stalledStream(weft as never);
      try {
        await withDeadline(server.shutdown(), 10_000, "shutdown() with the client still there");
        assert.equal((stream.signal.reason as { kind: string }).kind, "server");
      } finally {
        slow.close();
      }
    },
    60_000,
  );
});
