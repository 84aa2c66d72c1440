import assert from "node:assert/strict";
import { get, router, sse, type SseStream } from "../../mod.ts";
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
