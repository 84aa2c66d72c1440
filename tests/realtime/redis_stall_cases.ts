// weft/redis against a Redis that stops answering but keeps its connections (a stalled host, a
// partition; here redis-server frozen with SIGSTOP), written once over node: APIs and run by
// Deno.test (tests/realtime/redis_test.ts) and by vitest (tests/node/realtime.test.ts, the npm
// build), each with a redis-server of its own.
import assert from "node:assert/strict";
import { eventually, withDeadline } from "../_deadline.ts";
import type * as Weft from "../../mod.ts";
import type * as WeftRedis from "../../lib/realtime/redis.ts";

/** A redis-server of the test's own that the case may freeze and thaw. */
export interface StallableRedis {
  readonly url: string;
  /** SIGSTOP: the connections stay open, nothing is answered. */
  pause(): void;
  /** SIGCONT. */
  resume(): void;
}

/** What the cases use of `weft` and of `weft/redis`. */
export interface RedisCaseModules {
  weft: Pick<typeof Weft, "createTopics" | "TopicsUnavailableError">;
  redisTransport: typeof WeftRedis.redisTransport;
}

// Small, so that the case is quick; the deadlines are a few times as long, so that a loaded
// machine's late timers pass and a publish that waits for ever fails.
const PUBLISH_TIMEOUT = 300;
const DEADLINE = 2_000;

/** `publishTimeout` other than a positive finite number of milliseconds: a RangeError. */
export async function publishTimeoutValidation(
  { redisTransport }: RedisCaseModules,
): Promise<void> {
  // Refused before any connection is tried (nothing listens on port 1).
  for (const bad of [0, -1, Number.NaN, Infinity, 2 ** 31, "5000"]) {
    await assert.rejects(
      withDeadline(
        redisTransport({
          url: "redis://127.0.0.1:1",
          connectTimeout: 1_000,
          publishTimeout: bad as number,
        }),
        10_000,
        `redisTransport() with publishTimeout ${String(bad)}`,
      ),
      (error: unknown) =>
        error instanceof RangeError && /publishTimeout .* is not a positive finite/.test(
          error.message,
        ),
      `publishTimeout ${String(bad)}`,
    );
    // connectTimeout alike: past a timer's limit it fired at once, so Infinity ("as long as it
    // takes") failed every connection at once as timed out.
    await assert.rejects(
      withDeadline(
        redisTransport({ url: "redis://127.0.0.1:1", connectTimeout: bad as number }),
        10_000,
        `redisTransport() with connectTimeout ${String(bad)}`,
      ),
      (error: unknown) =>
        error instanceof RangeError && /connectTimeout .* is not a positive finite/.test(
          error.message,
        ),
      `connectTimeout ${String(bad)}`,
    );
  }
}

/**
 * Redis frozen: publish() rejects with TopicsUnavailableError within a deadline (not never), a
 * hub closes within one; Redis thawed: publishing works again and the subscriber receives.
 */
export async function stalledRedis(
  { weft, redisTransport }: RedisCaseModules,
  redis: StallableRedis,
): Promise<void> {
  const { createTopics, TopicsUnavailableError } = weft;
  const options = { url: redis.url, publishTimeout: PUBLISH_TIMEOUT };
  const publisher = createTopics({ transport: await redisTransport(options) });
  const receiver = createTopics({ transport: await redisTransport(options) });
  const closedWhileStalled = createTopics({
    transport: await redisTransport(options),
  });
  let paused = false;
  try {
    const seen: string[] = [];
    receiver.subscribe("feed", (message) => seen.push(message));
    closedWhileStalled.subscribe("feed", () => {});
    await withDeadline(
      Promise.all([receiver.ready("feed"), closedWhileStalled.ready("feed")]),
      10_000,
      "the subscriptions",
    );
    await withDeadline(publisher.publish("feed", "before"), 10_000, "a publish");
    await eventually("the message before the stall", () => seen.includes("before"), 10_000);

    redis.pause();
    paused = true;
    for (const message of ["stalled 1", "stalled 2"]) {
      const error = await withDeadline(
        publisher.publish("feed", message).then(
          () => new Error("publish() resolved while Redis was stalled"),
          (error: unknown) => error,
        ),
        DEADLINE,
        `publish() to a stalled Redis to reject (publishTimeout ${PUBLISH_TIMEOUT} ms)`,
      );
      assert.ok(error instanceof TopicsUnavailableError, String(error));
      assert.match(
        error.message,
        new RegExp(`^Cannot publish through Redis: no answer within ${PUBLISH_TIMEOUT} ms`),
      );
      assert.ok(error.cause instanceof Error);
    }
    // QUIT gets no answer either: the connections are dropped after publishTimeout.
    await withDeadline(
      closedWhileStalled.close(),
      DEADLINE,
      "close() while Redis is stalled",
    );

    redis.resume();
    paused = false;
    await withDeadline(
      publisher.publish("feed", "after"),
      10_000,
      "a publish once Redis runs again",
    );
    await eventually("the message after the stall", () => seen.includes("after"), 10_000);
    // The rejected publishes were in Redis's socket, which it reads on waking: they may arrive
    // late, in order, never twice.
    assert.equal(seen[0], "before");
    assert.equal(seen.at(-1), "after");
    const between = seen.slice(1, -1);
    assert.ok(
      ["", "stalled 1", "stalled 1,stalled 2", "stalled 2"].includes(between.join(",")),
      `between: ${between.join(",")}`,
    );
  } finally {
    if (paused) redis.resume();
    await withDeadline(
      Promise.all([publisher.close(), receiver.close(), closedWhileStalled.close()]),
      10_000,
      "the hubs to close",
    );
  }
}
