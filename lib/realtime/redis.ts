/**
 * `redisTransport()`: topics (see `createTopics()` in `weft`) over Redis pub/sub, so that Weft
 * processes on one or several machines share them. Built on the `ioredis` client; this entry
 * point is the only part of Weft that depends on it.
 *
 * Each transport holds two connections: one that publishes and one that subscribes (a
 * subscribed Redis connection can run nothing else). Topics are Redis channels named
 * `prefix + topic`; a process subscribes to a channel while it has a local subscriber.
 *
 * **Redis going away.** Both connections reconnect by themselves, forever, waiting 50 ms more
 * after each failed attempt (at most 2 s), and the subscriber subscribes again to every
 * channel once it is back. Meanwhile:
 *
 * - `publish()` rejects at once with `TopicsUnavailableError` (nothing is queued to be sent
 *   later), and a publish in flight when the connection drops rejects too, since Redis may or
 *   may not have received it and it is never sent twice (at most once);
 * - messages that other processes publish while this one's subscriber is disconnected, and
 *   between Redis's restart and the new subscription, are lost for this process's
 *   subscribers: Redis pub/sub keeps nothing;
 * - local subscriptions stay in place and receive again once the subscriber is back.
 *
 * **Redis stalled.** A Redis that keeps its connections but stops answering (a stalled host, a
 * network partition, a paused process) is not seen as gone: the connections stay up. Then:
 *
 * - `publish()` rejects with `TopicsUnavailableError` once Redis has not answered within
 *   `publishTimeout` (5 s unless set); each publish meanwhile waits that long. Redis may still
 *   have the message in its socket: it reaches subscribers late if Redis resumes, and is never
 *   sent twice;
 * - the subscriber receives nothing, and receives again once Redis resumes (messages that
 *   Redis took before it stalled or while it was stalled arrive then, in order);
 * - `close()` waits at most `publishTimeout` for Redis to answer `QUIT`, then drops the
 *   connections.
 *
 * Both sockets send TCP keep-alive probes after 30 s of silence, so that a connection whose
 * peer is gone (a host that rebooted behind a partition) fails and is made again rather than
 * stay open for ever; a stalled process's kernel still answers the probes.
 *
 * @module
 */
import { Redis, type RedisOptions } from "ioredis";
import { TopicsUnavailableError, type TopicTransport } from "./topics.ts";

/** Connection settings passed to the ioredis client, for both connections. */
export interface RedisConnectionOptions {
  /** The ACL user (the URL may carry it too). */
  username?: string;
  /** The password (the URL may carry it too). */
  password?: string;
  /** The database number; pub/sub channels are shared by every database. */
  db?: number;
  /** Options of `tls.connect()`: set to use TLS (or use a `rediss://` URL). */
  tls?: Record<string, unknown>;
  /**
   * Milliseconds to wait before reconnection attempt `times` (1, 2, …); `null` stops trying.
   *
   * @default {(times) => Math.min(times * 50, 2000)}
   */
  retryStrategy?: (times: number) => number | null;
}

/** Options of {@linkcode redisTransport}. */
export interface RedisTransportOptions {
  /**
   * The server: `redis://[[user]:password@]host[:port][/db]` (or `rediss://` for TLS).
   *
   * @default {"redis://127.0.0.1:6379"}
   */
  url?: string;
  /**
   * Put before every topic to make its channel name, so that apps can share a server.
   *
   * @default {"weft:"}
   */
  prefix?: string;
  /**
   * Milliseconds to wait for both connections at start; past it the call rejects. A positive
   * finite number, at most 2147483647 (a timer's limit); otherwise `redisTransport()` rejects
   * with a `RangeError`.
   *
   * @default {10000}
   */
  connectTimeout?: number;
  /**
   * Milliseconds that `publish()` waits for Redis to answer; past it the call rejects with
   * `TopicsUnavailableError`. It bounds a publish to a Redis that keeps its connection but has
   * stopped answering (a stalled host, a network partition): such a Redis is not seen as down,
   * so the publish is sent and waits. The message may still reach subscribers if Redis resumes
   * (it was in Redis's socket); it is never sent twice. `close()` waits at most as long for
   * Redis to answer `QUIT`. A positive finite number, at most 2147483647 (a timer's limit);
   * otherwise `redisTransport()` rejects with a `RangeError`.
   *
   * @default {5000}
   */
  publishTimeout?: number;
  /**
   * Authentication, TLS, database and reconnection delays for both connections.
   *
   * @default {{}}
   */
  redis?: RedisConnectionOptions;
}

/** A topic transport over Redis, with what it knows about its connections. */
export interface RedisTransport extends TopicTransport {
  /** Whether both connections are up. */
  readonly connected: boolean;
}

function unavailable(
  error: unknown,
  action = "publish through",
): TopicsUnavailableError {
  const detail = error instanceof Error ? error.message : String(error);
  return new TopicsUnavailableError(`Cannot ${action} Redis: ${detail}`, {
    cause: error,
  });
}

// What a timer can wait (2^31 - 1 ms): past it setTimeout() fires at once.
const MAX_TIMEOUT = 2_147_483_647;

/**
 * Connects to Redis and returns a transport for `createTopics()`.
 *
 * @param options `url`, `prefix`, `connectTimeout`, `publishTimeout`, `redis`.
 * @returns The transport, once both connections are ready.
 * @throws {TopicsUnavailableError} (as a rejection) When Redis is not reachable within
 * `connectTimeout`.
 * @throws {RangeError} (as a rejection) When `connectTimeout` or `publishTimeout` is not a
 * positive finite number of milliseconds up to 2147483647.
 *
 * @example Topics shared by every process connected to one Redis (needs a server)
 * ```ts ignore
 * import { createTopics } from "../../mod.ts";
 * import { redisTransport } from "./redis.ts";
 *
 * const transport = await redisTransport({ url: "redis://127.0.0.1:6379" });
 * const topics = createTopics({ transport });
 * topics.subscribe("notes", (message) => console.log(message));
 * await topics.publish("notes", "reaches every process subscribed to notes");
 * ```
 *
 * @example No server: a clear error, not a hang
 * ```ts
 * import { TopicsUnavailableError } from "../../mod.ts";
 * import { redisTransport } from "./redis.ts";
 * import assert from "node:assert/strict";
 *
 * await assert.rejects(
 *   redisTransport({ url: "redis://127.0.0.1:1", connectTimeout: 2_000 }),
 *   TopicsUnavailableError,
 * );
 * ```
 */
export async function redisTransport(
  options: RedisTransportOptions = {},
): Promise<RedisTransport> {
  const url = options.url ?? "redis://127.0.0.1:6379";
  const prefix = options.prefix ?? "weft:";
  const connectTimeout = options.connectTimeout ?? 10_000;
  const publishTimeout = options.publishTimeout ?? 5_000;
  // Past MAX_TIMEOUT (Infinity included) a timer fires at once: connectTimeout: Infinity, meant
  // as "wait as long as it takes", failed every connection at once as timed out.
  for (
    const [name, value] of [["connectTimeout", connectTimeout], ["publishTimeout", publishTimeout]]
  ) {
    if (typeof value !== "number" || !(value > 0) || value > MAX_TIMEOUT) {
      throw new RangeError(
        `Cannot connect to Redis: ${name} ${
          String(value)
        } is not a positive finite number of milliseconds up to ${MAX_TIMEOUT}`,
      );
    }
  }
  const common: RedisOptions = {
    retryStrategy: (times) => Math.min(times * 50, 2_000),
    // A connection whose peer is gone fails after 30 s of silence and some probes, rather
    // than never (the subscriber sends nothing of its own).
    keepAlive: 30_000,
    ...options.redis as RedisOptions,
    lazyConnect: true,
  };
  const publisher = new Redis(url, {
    ...common,
    // At most once: no queue of publishes for later, and nothing resent after a reconnect.
    enableOfflineQueue: false,
    autoResendUnfulfilledCommands: false,
    maxRetriesPerRequest: 0,
    // A Redis that stops answering but keeps the connection: the publish rejects ("Command
    // timed out") rather than wait for ever; the command stays in ioredis's queue, so a late
    // answer is matched to it and the answers after it to theirs.
    commandTimeout: publishTimeout,
  });
  const subscriber = new Redis(url, {
    ...common,
    // SUBSCRIBE issued while down goes out on reconnect, with the resubscription.
    enableOfflineQueue: true,
    autoResubscribe: true,
    maxRetriesPerRequest: null,
  });
  // ioredis reports connection errors as events; without a listener they would be thrown.
  publisher.on("error", () => {});
  subscriber.on("error", () => {});
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    await Promise.race([
      Promise.all([publisher.connect(), subscriber.connect()]),
      new Promise((_, reject) => {
        timer = setTimeout(
          () =>
            reject(
              new Error(`no connection to ${url} within ${connectTimeout} ms`),
            ),
          connectTimeout,
        );
      }),
    ]);
  } catch (error) {
    publisher.disconnect();
    subscriber.disconnect();
    throw unavailable(error, "connect to");
  } finally {
    clearTimeout(timer);
  }

  const transport: RedisTransport = {
    echoes: true,
    deliver: () => {},
    get connected() {
      return publisher.status === "ready" && subscriber.status === "ready";
    },
    async publish(topic, message) {
      if (publisher.status !== "ready") {
        throw unavailable(new Error(`the connection is ${publisher.status}`));
      }
      try {
        await publisher.publish(prefix + topic, message);
      } catch (error) {
        if (error instanceof Error && error.message === "Command timed out") {
          throw new TopicsUnavailableError(
            `Cannot publish through Redis: no answer within ${publishTimeout} ms (publishTimeout)`,
            { cause: error },
          );
        }
        throw unavailable(error);
      }
    },
    listen(topic) {
      // Settles on the acknowledgement (after a reconnection, when Redis is down meanwhile).
      return subscriber.subscribe(prefix + topic).then(() => {}, () => {});
    },
    unlisten(topic) {
      subscriber.unsubscribe(prefix + topic).catch(() => {});
    },
    async close() {
      await Promise.all([
        quit(publisher, publishTimeout),
        quit(subscriber, publishTimeout),
      ]);
    },
  };
  subscriber.on("message", (channel: string, message: string) => {
    if (channel.startsWith(prefix)) {
      transport.deliver(channel.slice(prefix.length), message);
    }
  });
  return transport;
}

// QUIT when connected (replies flushed), else drop the connection and stop reconnecting; a
// Redis that does not answer QUIT within `ms` (stalled) has its connection dropped too.
async function quit(client: Redis, ms: number): Promise<void> {
  if (client.status === "ready") {
    let timer: ReturnType<typeof setTimeout> | undefined;
    try {
      await Promise.race([
        client.quit(),
        new Promise((_, reject) => {
          timer = setTimeout(() => reject(new Error("QUIT timed out")), ms);
        }),
      ]);
      return;
    } catch {
      // fall through
    } finally {
      clearTimeout(timer);
    }
  }
  client.disconnect();
}
