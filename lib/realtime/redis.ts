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
   * Milliseconds to wait for both connections at start; past it the call rejects.
   *
   * @default {10000}
   */
  connectTimeout?: number;
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
  return new TopicsUnavailableError(`Cannot ${action} Redis: ${detail}`);
}

/**
 * Connects to Redis and returns a transport for `createTopics()`.
 *
 * @param options `url`, `prefix`, `connectTimeout`, `redis`.
 * @returns The transport, once both connections are ready.
 * @throws {TopicsUnavailableError} (as a rejection) When Redis is not reachable within
 * `connectTimeout`.
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
  const common: RedisOptions = {
    retryStrategy: (times) => Math.min(times * 50, 2_000),
    ...options.redis as RedisOptions,
    lazyConnect: true,
  };
  const publisher = new Redis(url, {
    ...common,
    // At most once: no queue of publishes for later, and nothing resent after a reconnect.
    enableOfflineQueue: false,
    autoResendUnfulfilledCommands: false,
    maxRetriesPerRequest: 0,
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
      await Promise.all([quit(publisher), quit(subscriber)]);
    },
  };
  subscriber.on("message", (channel: string, message: string) => {
    if (channel.startsWith(prefix)) {
      transport.deliver(channel.slice(prefix.length), message);
    }
  });
  return transport;
}

// QUIT when connected (replies flushed), else drop the connection and stop reconnecting.
async function quit(client: Redis): Promise<void> {
  if (client.status === "ready") {
    try {
      await client.quit();
      return;
    } catch {
      // fall through
    }
  }
  client.disconnect();
}
