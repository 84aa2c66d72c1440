import assert from "node:assert/strict";
import {
  broadcastChannelTransport,
  createTopics,
  get,
  inProcessTransport,
  router,
  sse,
  type SseStream,
  TopicsUnavailableError,
  type TopicTransport,
  type WebSocketConnection,
} from "../../mod.ts";
import { eventually, withDeadline } from "../_deadline.ts";

Deno.test("createTopics() delivers in publish order, to each subscription once", async () => {
  const topics = createTopics();
  const seen: string[] = [];
  const handler = (message: string, topic: string) => seen.push(`${topic}:${message}`);
  const first = topics.subscribe("a", handler);
  topics.subscribe("a", handler); // the same function twice: two subscriptions
  topics.subscribe("b", handler);
  for (let i = 0; i < 3; i++) await topics.publish("a", String(i));
  await topics.publish("b", "x");
  await topics.publish("c", "nobody");
  assert.deepEqual(seen, ["a:0", "a:0", "a:1", "a:1", "a:2", "a:2", "b:x"]);
  first();
  first(); // a second call does nothing
  assert.equal(topics.subscribers("a"), 1);
  await topics.close();
  await assert.rejects(topics.publish("a", "late"), TopicsUnavailableError);
});

Deno.test("createTopics() refuses bad topics and messages with clear errors", async () => {
  const topics = createTopics({ maxMessageBytes: 10 });
  await assert.rejects(topics.publish("", "x"), /the topic is empty/);
  await assert.rejects(
    topics.publish("t".repeat(1_048_576), "x"),
    /over the 256-byte limit/,
  );
  await assert.rejects(
    topics.publish("t", "é".repeat(6)),
    /12 bytes, over the 10-byte limit/,
  );
  await assert.rejects(
    topics.publish(null as never, "x"),
    /topic must be a string/,
  );
  assert.throws(
    () => topics.subscribe("t", "no" as never),
    /handler must be a function/,
  );
  assert.throws(() => createTopics({ maxTopicBytes: 0 }), RangeError);
});

Deno.test("a throwing subscriber is reported and the others still receive", async () => {
  const errors: [unknown, string][] = [];
  const topics = createTopics({
    onError: (error, topic) => errors.push([error, topic]),
  });
  const seen: string[] = [];
  topics.subscribe("t", () => {
    throw new Error("gone");
  });
  topics.subscribe("t", (message) => seen.push(message));
  await topics.publish("t", "still delivered");
  assert.deepEqual(seen, ["still delivered"]);
  assert.equal((errors[0][0] as Error).message, "gone");
  assert.equal(errors[0][1], "t");
});

Deno.test("a subscription ended while a message is delivered does not get that message", async () => {
  // 2,000 subscribers; each even one ends the odd one after it before its turn comes, as a
  // handler that tears down another connection's subscriptions would. A subscription that
  // starts meanwhile gets the messages after this one.
  const topics = createTopics();
  const calls = new Array<number>(2_000).fill(0);
  const stops: (() => void)[] = [];
  const late: string[] = [];
  for (let i = 0; i < 2_000; i++) {
    stops.push(topics.subscribe("crowd", (message) => {
      calls[i]++;
      if (i % 2 === 0) stops[i + 1]();
      if (i === 0 && message === "first") topics.subscribe("crowd", (m) => late.push(m));
    }));
  }
  await topics.publish("crowd", "first");
  await topics.publish("crowd", "second");
  assert.deepEqual(
    calls.flatMap((n, i) => n === (i % 2 === 0 ? 2 : 0) ? [] : [`${i}: ${n}`]),
    [],
  );
  assert.deepEqual(late, ["second"]);
  assert.equal(topics.subscribers("crowd"), 1_001);
  // A handler that ends its own subscription is not called again either.
  let own = 0;
  const stop = topics.subscribe("self", () => {
    own++;
    stop();
  });
  await topics.publish("self", "1");
  await topics.publish("self", "2");
  assert.equal(own, 1);
  await topics.close();
});

Deno.test("close() from a handler ends the delivery it is in, and the messages queued behind it", async () => {
  const topics = createTopics();
  const seen: string[] = [];
  for (let i = 0; i < 3; i++) {
    topics.subscribe("t", (message) => {
      seen.push(`${i}:${message}`);
      if (i === 0 && message === "first") {
        void topics.publish("t", "queued");
        void topics.close();
      }
    });
  }
  await topics.publish("t", "first");
  assert.deepEqual(seen, ["0:first"]);
  assert.equal(topics.subscribers("t"), 0);
  await assert.rejects(topics.publish("t", "after"), TopicsUnavailableError);
});

Deno.test("a subscriber that publishes for every message it gets is stopped and reported, not a hang", async () => {
  const errors: unknown[] = [];
  const topics = createTopics({ onError: (error) => errors.push(error) });
  let received = 0;
  topics.subscribe("echo", (message) => {
    received++;
    void topics.publish("echo", message).catch(() => {});
  });
  await withDeadline(topics.publish("echo", "again"), 20_000, "the publish to return");
  assert.equal(received, 65_537); // the first, then the bound's worth of republished ones
  assert.ok(errors.length > 0);
  assert.match(String(errors[0]), /65536 messages were published while one was delivered/);
});

// A transport that hands each message back from within publish(), as a custom one may.
function echoingTransport(): TopicTransport {
  const transport: TopicTransport = {
    echoes: true,
    deliver: () => {},
    publish(topic, message) {
      transport.deliver(topic, message);
      return Promise.resolve();
    },
    listen() {},
    unlisten() {},
    close: () => Promise.resolve(),
  };
  return transport;
}

Deno.test("a message a subscriber publishes while another is delivered comes after it, for every subscriber", async () => {
  const channel = `weft-test-${crypto.randomUUID()}`;
  const transports: [string, () => TopicTransport][] = [
    ["in process", inProcessTransport],
    ["BroadcastChannel", () => broadcastChannelTransport(channel)],
    ["echoing within publish()", echoingTransport],
  ];
  for (const [name, transport] of transports) {
    const errors: unknown[] = [];
    const topics = createTopics({
      transport: transport(),
      onError: (error) => errors.push(error),
    });
    // Another hub of the channel, for the BroadcastChannel case.
    const remote = name === "BroadcastChannel"
      ? createTopics({ transport: broadcastChannelTransport(channel) })
      : undefined;
    try {
      const atA: string[] = [];
      const atB: string[] = [];
      const atRemote: string[] = [];
      remote?.subscribe("room", (message) => atRemote.push(message));
      const answered: Promise<boolean>[] = [];
      // A answers every question on the same topic, twice; its answers reach B only after the
      // question, and publish() settles once they have.
      topics.subscribe("room", (message) => {
        atA.push(message);
        if (!message.startsWith("question")) return;
        for (const answer of [`answer to ${message}`, `again: answer to ${message}`]) {
          answered.push(topics.publish("room", answer).then(() => atB.includes(answer)));
        }
      });
      // A subscriber that throws: reported, and the queued messages still go out.
      topics.subscribe("room", () => {
        throw new Error("broken subscriber");
      });
      // B thanks for the first answer: queued behind what was queued before it.
      topics.subscribe("room", (message) => {
        atB.push(message);
        if (message === "answer to question 1") void topics.publish("room", "thanks");
      });
      await topics.publish("room", "question 1");
      await topics.publish("room", "question 2");
      const expected = [
        "question 1",
        "answer to question 1",
        "again: answer to question 1",
        "thanks",
        "question 2",
        "answer to question 2",
        "again: answer to question 2",
      ];
      assert.deepEqual(atA, expected, name);
      assert.deepEqual(atB, expected, name);
      assert.deepEqual(await Promise.all(answered), [true, true, true, true], name);
      assert.equal(errors.length, expected.length, name);
      assert.equal((errors[0] as Error).message, "broken subscriber", name);
      if (remote !== undefined) {
        await eventually("the messages at the other hub", () => atRemote.length === 7);
        assert.deepEqual(atRemote, expected, name);
      }
    } finally {
      await topics.close();
      await remote?.close();
    }
  }
});

Deno.test("attach() feeds an SSE stream and ends its subscriptions when the stream ends", async () => {
  const topics = createTopics();
  let stream: SseStream | undefined;
  const app = router([
    get("/feed", (ctx) =>
      sse(ctx, async (s) => {
        stream = s;
        topics.attach(s, ["a", "b"], {
          format: (message, topic) => ({ event: topic, data: message }),
        });
        await s.closed;
      })),
  ]);
  const res = await app.fetch(new Request("http://localhost/feed"));
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  await eventually(
    "the handler to attach",
    () => topics.subscribers("b") === 1,
  );
  await topics.publish("a", "one");
  await topics.publish("b", "two\nlines");
  let text = "";
  while (!text.includes("lines")) {
    text += (await withDeadline(reader.read(), 5_000, "the events")).value;
  }
  assert.equal(
    text,
    ":\nevent: a\ndata: one\n\nevent: b\ndata: two\ndata: lines\n\n",
  );
  await reader.cancel();
  await eventually(
    "the subscriptions to end",
    () => topics.subscribers("a") === 0,
  );
  assert.equal(topics.subscribers("b"), 0);
  assert.equal(stream!.isClosed, true);
});

Deno.test("attach() drops a WebSocket subscriber whose socket is gone on the next message", async () => {
  const topics = createTopics();
  const sent: string[] = [];
  const socket = {
    readyState: "open",
    bufferedAmount: 0,
    send: (data: string) => sent.push(data),
  } as unknown as WebSocketConnection & { readyState: string };
  topics.attach(socket, ["t"], { format: (message) => `<${message}>` });
  await topics.publish("t", "1");
  (socket as { readyState: string }).readyState = "closed";
  await topics.publish("t", "2");
  assert.deepEqual(sent, ["<1>"]);
  assert.equal(topics.subscribers("t"), 0);
});

Deno.test("attach() applies its overflow policy to a WebSocket past the high-water mark", async () => {
  const topics = createTopics();
  const sent: string[] = [];
  const closes: [number, string][] = [];
  const socket = {
    readyState: "open",
    bufferedAmount: 0,
    send: (data: string) => sent.push(data),
    close(code: number, reason: string) {
      closes.push([code, reason]);
      socket.readyState = "closing";
    },
  };
  const target = socket as unknown as WebSocketConnection;
  const stopDrop = topics.attach(target, ["drop"], { highWaterMark: 10, overflow: "drop" });
  topics.attach(target, ["cut"], { highWaterMark: 10 });
  await topics.publish("drop", "12345");
  socket.bufferedAmount = 6; // 6 + 5 > 10: dropped, the socket stays
  await topics.publish("drop", "67890");
  socket.bufferedAmount = 5; // 5 + 5 = 10: sent
  await topics.publish("drop", "abcde");
  assert.deepEqual(sent, ["12345", "abcde"]);
  assert.equal(closes.length, 0);
  stopDrop();
  socket.bufferedAmount = 6;
  await topics.publish("cut", "fghij");
  assert.deepEqual(sent, ["12345", "abcde"]);
  assert.deepEqual(closes.map(([code]) => code), [1013]);
  assert.equal(topics.subscribers("cut"), 0);
  assert.throws(
    () => topics.attach(target, ["x"], { highWaterMark: 0 }),
    /Cannot attach: highWaterMark 0 is not a positive integer/,
  );
  assert.throws(
    () => topics.attach(target, ["x"], { overflow: "buffer" as never }),
    TypeError,
  );
  assert.equal(topics.subscribers("x"), 0);
});

Deno.test("broadcastChannelTransport() reaches the other hubs of the channel and its own", async () => {
  const name = `weft-test-${crypto.randomUUID()}`;
  const a = createTopics({ transport: broadcastChannelTransport(name) });
  const b = createTopics({ transport: broadcastChannelTransport(name) });
  try {
    const atA: string[] = [];
    const atB: string[] = [];
    a.subscribe("t", (message) => atA.push(message));
    b.subscribe("t", (message) => atB.push(message));
    for (let i = 0; i < 50; i++) await a.publish("t", String(i));
    await eventually("50 messages at the other hub", () => atB.length === 50);
    const expected = Array.from({ length: 50 }, (_, i) => String(i));
    assert.deepEqual(atA, expected);
    assert.deepEqual(atB, expected);
  } finally {
    await a.close();
    await b.close();
  }
});
