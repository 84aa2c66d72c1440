// The Redis transport against a real redis-server started by the test: delivery between two
// hubs, order per publisher, bad input, Redis stopped and restarted in the middle, and Redis
// frozen (tests/realtime/redis_stall_cases.ts, shared with tests/node/realtime.test.ts).
import assert from "node:assert/strict";
import { createTopics, get, post, router, serve, TopicsUnavailableError } from "../../mod.ts";
import { redisTransport } from "../../lib/realtime/redis.ts";
import { eventually, withDeadline } from "../_deadline.ts";
import { startRedis } from "./_redis_server.ts";
import { publishTimeoutValidation, stalledRedis } from "./redis_stall_cases.ts";

const QUIET = { port: 0, hostname: "127.0.0.1", onListen() {} };

Deno.test("redisTransport() carries topics between hubs, in order per publisher", async () => {
  const redis = await startRedis();
  const a = createTopics({
    transport: await redisTransport({ url: redis.url }),
  });
  const b = createTopics({
    transport: await redisTransport({ url: redis.url }),
  });
  try {
    const atA: string[] = [];
    const atB: string[] = [];
    a.subscribe("feed", (message) => atA.push(message));
    b.subscribe("feed", (message) => atB.push(message));
    b.subscribe("other", (message) => atB.push(`other:${message}`));
    // SUBSCRIBE has been acknowledged once a message published after it comes back.
    await eventually("both subscriptions to be active", () => {
      a.publish("feed", "probe").catch(() => {});
      return atA.includes("probe") && atB.includes("probe");
    }, 10_000);
    // The probe of the last check (and maybe more) is still on its way: it may arrive after the
    // reset, so it is not counted.
    const real = (seen: string[]) => seen.filter((m) => m !== "probe");
    atA.length = 0;
    atB.length = 0;
    const sent = Array.from({ length: 200 }, (_, i) => `m${i}`);
    await Promise.all(sent.map((message) => a.publish("feed", message)));
    await eventually(
      "200 messages at both hubs",
      () => real(atA).length >= 200 && real(atB).length >= 200,
    );
    assert.deepEqual(real(atA), sent);
    assert.deepEqual(real(atB), sent);
    assert.ok(!atB.some((m) => m.startsWith("other:")));
    // A subscriber of a that answers on the same topic: its answer comes after the question,
    // at a's other subscriber and at b (every message comes back through Redis).
    const roomA: string[] = [];
    const roomB: string[] = [];
    a.subscribe("room", (message) => {
      if (message.startsWith("question")) void a.publish("room", `answer to ${message}`);
    });
    a.subscribe("room", (message) => roomA.push(message));
    b.subscribe("room", (message) => roomB.push(message));
    await Promise.all([a.ready("room"), b.ready("room")]);
    for (const question of ["question 1", "question 2"]) {
      // One at a time: the answer is published when the question comes back, which may be
      // after a next question was published.
      await a.publish("room", question);
      await eventually(
        "the answer at both hubs",
        () => roomA.includes(`answer to ${question}`) && roomB.includes(`answer to ${question}`),
      );
    }
    const expected = ["question 1", "answer to question 1", "question 2", "answer to question 2"];
    assert.deepEqual(roomA, expected);
    assert.deepEqual(roomB, expected);
  } finally {
    await withDeadline(
      Promise.all([a.close(), b.close()]),
      10_000,
      "the hubs to close",
    );
    await redis.stop();
  }
});

Deno.test("redisTransport(): bad input is a clear error and leaves the hub working", async () => {
  const redis = await startRedis();
  const errors: unknown[] = [];
  const topics = createTopics({
    transport: await redisTransport({ url: redis.url }),
    onError: (error) => errors.push(error),
  });
  try {
    const huge = "t".repeat(1_048_576);
    await assert.rejects(
      topics.publish(huge, "x"),
      /topic name is over the 256-byte limit/,
    );
    assert.throws(() => topics.subscribe(huge, () => {}), RangeError);
    await assert.rejects(
      topics.publish("feed", "x".repeat(1_048_577)),
      /the message is 1048577 bytes, over the 1048576-byte limit/,
    );
    await assert.rejects(topics.publish("feed", 42 as never), TypeError);
    const seen: string[] = [];
    // A subscriber that fails: reported, and the next one still gets the message.
    topics.subscribe("feed", () => {
      throw new Error("subscriber gone");
    });
    topics.subscribe("feed", (message) => seen.push(message));
    await eventually("the subscription to be active", () => {
      topics.publish("feed", "hello").catch(() => {});
      return seen.length > 0;
    }, 10_000);
    assert.equal(seen[0], "hello");
    assert.ok(errors.length >= 1);
    assert.equal((errors[0] as Error).message, "subscriber gone");
  } finally {
    await withDeadline(topics.close(), 10_000, "the hub to close");
    await redis.stop();
  }
});

Deno.test("redisTransport() reconnects after Redis restarts; publishing while it is down rejects, the server keeps serving", async () => {
  const redis = await startRedis();
  const topics = createTopics({
    transport: await redisTransport({ url: redis.url }),
  });
  const other = createTopics({
    transport: await redisTransport({ url: redis.url }),
  });
  const seen: string[] = [];
  topics.subscribe("feed", (message) => seen.push(message));
  const app = router([
    post("/publish/:text", async (ctx) => {
      try {
        await other.publish("feed", ctx.params.text);
        return new Response("published");
      } catch (error) {
        if (!(error instanceof TopicsUnavailableError)) throw error;
        return new Response(error.message, { status: 503 });
      }
    }),
    get("/ok", () => new Response("ok")),
  ]);
  const server = serve(app, QUIET);
  const base = `http://127.0.0.1:${server.addr.port}`;
  const call = async (path: string, method = "POST") => {
    const res = await withDeadline(
      fetch(`${base}${path}`, { method }),
      10_000,
      path,
    );
    return { status: res.status, body: await res.text() };
  };
  try {
    await eventually("the subscription to be active", () => {
      other.publish("feed", "before").catch(() => {});
      return seen.includes("before");
    }, 10_000);
    // 1. Redis stops: publishing rejects at once with a clear error, the server still answers.
    await redis.stop();
    // The client may need a moment to see the connection drop; a publish it still sent is
    // rejected when the connection closes (or, if Redis took it, reached no subscriber).
    let down = await call("/publish/while-down");
    for (let i = 0; i < 50 && down.status === 200; i++) {
      down = await call("/publish/while-down");
    }
    assert.equal(down.status, 503);
    assert.match(down.body, /^Cannot publish through Redis: /);
    assert.deepEqual(await call("/ok", "GET"), { status: 200, body: "ok" });
    // 2. Redis is back (empty, as after a crash): both connections reconnect, the subscriber
    //    subscribes again, and messages flow without anything done by the app.
    await redis.start();
    await eventually("messages to flow again after the restart", () => {
      other.publish("feed", "after").catch(() => {});
      return seen.includes("after");
    }, 30_000);
    assert.ok(
      !seen.includes("while-down"),
      "a message published while down is lost, not late",
    );
    const up = await call("/publish/up-again");
    assert.equal(up.status, 200);
    await eventually(
      "the message after the restart",
      () => seen.includes("up-again"),
    );
  } finally {
    await withDeadline(server.shutdown(), 10_000, "the server to shut down");
    await withDeadline(
      Promise.all([topics.close(), other.close()]),
      10_000,
      "the hubs to close",
    );
    await redis.stop();
  }
});

Deno.test("redisTransport(): connectTimeout or publishTimeout other than a positive finite number is a RangeError", () =>
  publishTimeoutValidation({ weft: { createTopics, TopicsUnavailableError }, redisTransport }));

Deno.test("redisTransport() with Redis stalled: publish() rejects after publishTimeout, close() ends, both work again when it resumes", async () => {
  const redis = await startRedis();
  try {
    await stalledRedis({ weft: { createTopics, TopicsUnavailableError }, redisTransport }, redis);
  } finally {
    await redis.stop();
  }
});
