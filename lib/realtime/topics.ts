/**
 * Topics: publish/subscribe for real-time apps, in one process, across the workers of one
 * process (`BroadcastChannel`), or across processes and machines (Redis, in `weft/redis`),
 * behind one interface. `attach()` connects a WebSocket or a server-sent event stream.
 *
 * Delivery rules (every transport):
 *
 * 1. **At most once.** A message reaches each handler subscribed to its topic when the message
 *    arrives, once or not at all. Nothing is stored or replayed: a subscriber that was not
 *    subscribed (or not connected) when a message passed misses it, and a transport that is
 *    down loses what is published meanwhile (`publish()` rejects with
 *    {@linkcode TopicsUnavailableError} where the transport can tell).
 * 2. **Order per publisher.** Messages published by one `Topics` on one topic reach every
 *    subscriber in the order of the `publish()` calls. Messages of different publishers, or of
 *    different topics, are not ordered with respect to each other.
 * 3. **No buffering in topics.** Handlers run synchronously as a message arrives; a handler
 *    that throws is reported (`onError`) and the others still run. A message published (or
 *    arriving) while another is being delivered waits until that one has reached every
 *    handler, so a handler that publishes never gets ahead of the message it answers. A slow
 *    subscriber is the connection's business: an attached SSE stream queues up to its
 *    `highWaterMark` and then applies its overflow policy (disconnect by default, or drop); an
 *    attached WebSocket gets the message while its `bufferedAmount` stays within the
 *    `highWaterMark` of `attach()`, and past it the same policy applies (close with 1013 by
 *    default, or drop).
 *
 * @module
 */
import { utf8Length } from "../http/_utf8.ts";
import type { SseEvent, SseOverflow, SseStream } from "./sse.ts";
import type { WebSocketConnection } from "../middleware/websocket.ts";

/** A handler of {@linkcode Topics.subscribe}. */
export type TopicHandler = (message: string, topic: string) => void;

/**
 * Ends a subscription: its handler is not called from then on, not even for the rest of a
 * message being delivered when another handler ends it. Calling it again does nothing.
 */
export type Unsubscribe = () => void;

/**
 * How messages travel between `Topics` instances. Weft calls `listen` for a topic when it gets
 * its first local subscriber and `unlisten` when it loses its last, and sets `deliver`, which
 * the transport calls for every message that arrives for a topic it listens to, its own
 * publications included (except where {@linkcode TopicTransport.echoes} is false).
 */
export interface TopicTransport {
  /** Whether messages published here come back through `deliver`; when false, Topics delivers them locally itself. */
  readonly echoes: boolean;
  /** Set by Topics before any other call. */
  deliver: (topic: string, message: string) => void;
  /** Sends a message to every listener of `topic`; rejects when it cannot. */
  publish(topic: string, message: string): Promise<void>;
  /** Starts receiving `topic`; a promise settles once messages of `topic` arrive. */
  listen(topic: string): void | Promise<void>;
  /** Stops receiving `topic`. */
  unlisten(topic: string): void;
  /** Releases connections and channels. */
  close(): Promise<void>;
}

/** Options of {@linkcode createTopics}. */
export interface TopicsOptions {
  /**
   * How messages travel: {@linkcode inProcessTransport} (this `Topics` only),
   * {@linkcode broadcastChannelTransport} (the workers of one process) or `redisTransport()`
   * from `weft/redis` (processes and machines).
   *
   * @default {inProcessTransport()}
   */
  transport?: TopicTransport;
  /**
   * The longest topic name, in UTF-8 bytes; a longer one throws a RangeError.
   *
   * @default {256}
   */
  maxTopicBytes?: number;
  /**
   * The largest message, in UTF-8 bytes; `publish()` rejects a larger one with a RangeError
   * before it leaves. The default equals the WebSocket middleware's `maxMessageBytes`, so a
   * message that topics carry is one a Weft client could also have sent.
   *
   * @default {1048576}
   */
  maxMessageBytes?: number;
  /**
   * Receives what a handler threw (the other handlers still run).
   *
   * @default {console.error}
   */
  onError?: (error: unknown, topic: string) => void;
}

/** Options of {@linkcode Topics.attach}. */
export interface AttachOptions {
  /**
   * Turns a message into what the connection sends: for an SSE stream an event or its data,
   * for a WebSocket a text message.
   *
   * @default {the message itself (SSE: a `message` event with the message as data)}
   */
  format?: (message: string, topic: string) => SseEvent | string;
  /**
   * WebSockets only (an SSE stream has the `highWaterMark` of `sse()`): the bytes that may wait
   * to be written to the socket (its `bufferedAmount`, which a client that stops reading makes
   * grow once the kernel's socket buffer is full). A message that would pass it triggers
   * `overflow`.
   *
   * @default {1048576}
   */
  highWaterMark?: number;
  /**
   * WebSockets only (an SSE stream has the `overflow` of `sse()`): what happens to a message
   * that would pass `highWaterMark`. `"disconnect"` closes the socket with 1013 ("Try Again
   * Later": a client that reconnects gets the messages from then on; what it missed is lost, as
   * the delivery rules say) and ends these subscriptions; `"drop"` skips that message and keeps
   * the socket, so the client sees a gap.
   *
   * @default {"disconnect"}
   */
  overflow?: SseOverflow;
}

/** `publish()` could not hand the message to the transport (Redis unreachable, closed topics). */
export class TopicsUnavailableError extends Error {
  /** Always `"TopicsUnavailableError"`. */
  override name = "TopicsUnavailableError";
}

/** The default of {@linkcode AttachOptions.highWaterMark}: 1 MiB. */
const DEFAULT_HIGH_WATER_MARK = 1_048_576;
/** The default of {@linkcode TopicsOptions.maxMessageBytes}: 1 MiB. */
const DEFAULT_MAX_MESSAGE_BYTES = 1_048_576;
const DEFAULT_MAX_TOPIC_BYTES = 256;

// A topic as error messages quote it: its start, or its type.
function label(topic: unknown): string {
  return typeof topic === "string" ? `"${topic.slice(0, 40)}"` : typeof topic;
}

/**
 * A transport within one `Topics`: publishing delivers to its own subscribers and nowhere else.
 *
 * @returns The transport.
 */
export function inProcessTransport(): TopicTransport {
  return {
    echoes: false,
    deliver: () => {},
    publish: () => Promise.resolve(),
    listen() {},
    unlisten() {},
    close: () => Promise.resolve(),
  };
}

/**
 * A transport over a `BroadcastChannel`: every `Topics` on a channel of the same name in the
 * same process hears the others, which is what the workers of `deno serve --parallel` are
 * (and Node's `worker_threads`; Node's `cluster` forks processes, which need Redis). One channel
 * carries every topic; each worker keeps the topics it listens to.
 *
 * @param name The channel's name; use one per app.
 * @default name `"weft-topics"`
 * @returns The transport.
 */
export function broadcastChannelTransport(
  name = "weft-topics",
): TopicTransport {
  const channel = new BroadcastChannel(name);
  const listening = new Set<string>();
  let closed = false;
  const transport: TopicTransport = {
    echoes: false, // a BroadcastChannel never delivers to itself
    deliver: () => {},
    publish(topic, message) {
      if (closed) {
        return Promise.reject(
          new TopicsUnavailableError("The channel is closed"),
        );
      }
      channel.postMessage([topic, message]);
      return Promise.resolve();
    },
    listen: (topic) => void listening.add(topic),
    unlisten: (topic) => void listening.delete(topic),
    close() {
      closed = true;
      channel.close();
      return Promise.resolve();
    },
  };
  channel.onmessage = (event: MessageEvent) => {
    const data = event.data;
    if (
      !Array.isArray(data) || typeof data[0] !== "string" ||
      typeof data[1] !== "string"
    ) return;
    if (listening.has(data[0])) transport.deliver(data[0], data[1]);
  };
  return transport;
}

/** Publish/subscribe over a transport; made by {@linkcode createTopics}. */
export interface Topics {
  /**
   * Sends `message` to every subscriber of `topic` that the transport reaches.
   *
   * @param topic The topic's name: a non-empty string of at most `maxTopicBytes` bytes.
   * @param message The message text, at most `maxMessageBytes` bytes.
   * @returns Settles once the transport took the message (in process: once delivered).
   * @throws {TypeError} (as a rejection) For a topic or message that is not a string.
   * @throws {RangeError} (as a rejection) For an empty or too long topic, or a too big message.
   * @throws {TopicsUnavailableError} (as a rejection) When the transport cannot send.
   */
  publish(topic: string, message: string): Promise<void>;
  /**
   * Calls `handler` for every message of `topic` from now on.
   *
   * @param topic The topic's name.
   * @param handler Called with the message and the topic; must not block.
   * @returns The function that ends this subscription.
   * @throws {TypeError} For a topic that is not a string or a handler that is not a function.
   * @throws {RangeError} For an empty or too long topic.
   */
  subscribe(topic: string, handler: TopicHandler): Unsubscribe;
  /**
   * Sends every message of `topics` to a WebSocket or an SSE stream until it closes: the
   * subscriptions end by themselves when the stream's signal aborts or when a socket of
   * `websocket()` closes (another object with the shape of a connection loses them when a
   * message finds it closed). A WebSocket whose client stops reading is bounded by
   * `highWaterMark` and `overflow`.
   *
   * @param target A WebSocket connection (in `onOpen`) or an SSE stream.
   * @param topics The topics to follow.
   * @param options `format`, and for a WebSocket `highWaterMark` and `overflow`.
   * @returns The function that ends all these subscriptions.
   * @throws {RangeError} When `highWaterMark` is not a positive integer.
   * @throws {TypeError} When `overflow` is not `"disconnect"` or `"drop"`.
   */
  attach(
    target: WebSocketConnection | SseStream,
    topics: readonly string[],
    options?: AttachOptions,
  ): Unsubscribe;
  /**
   * Settles once the transport receives the messages of `topic`, which has a subscriber here:
   * at once in process and over a BroadcastChannel, once Redis acknowledged the subscription
   * over Redis. A message published before that may not reach this process (at most once).
   *
   * @param topic The topic's name.
   * @returns A promise that never rejects.
   */
  ready(topic: string): Promise<void>;
  /** How many handlers are subscribed to `topic` here. */
  subscribers(topic: string): number;
  /** Ends every subscription and closes the transport; later publishes reject. */
  close(): Promise<void>;
}

/**
 * Makes a publish/subscribe hub (see the module documentation for the delivery rules).
 *
 * @param options `transport`, `maxTopicBytes`, `maxMessageBytes`, `onError`.
 * @returns The hub.
 * @throws {RangeError} When a limit is not a positive integer.
 *
 * @example Two subscribers, one publisher
 * ```ts
 * import { createTopics } from "./topics.ts";
 * import assert from "node:assert/strict";
 *
 * const topics = createTopics();
 * const seen: string[] = [];
 * const stop = topics.subscribe("notes", (message) => seen.push(`a:${message}`));
 * topics.subscribe("notes", (message) => seen.push(`b:${message}`));
 * await topics.publish("notes", "hello");
 * stop();
 * await topics.publish("notes", "again");
 * assert.deepEqual(seen, ["a:hello", "b:hello", "b:again"]);
 * await topics.close();
 * ```
 */
export function createTopics(options: TopicsOptions = {}): Topics {
  const transport = options.transport ?? inProcessTransport();
  const maxTopicBytes = limit(
    "maxTopicBytes",
    options.maxTopicBytes ?? DEFAULT_MAX_TOPIC_BYTES,
  );
  const maxMessageBytes = limit(
    "maxMessageBytes",
    options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES,
  );
  const onError = options.onError ?? ((error: unknown) => console.error(error));
  const handlers = new Map<string, Subscribed>();
  // The transport's listen() of each topic with subscribers, for ready().
  const listening = new Map<string, Promise<void>>();
  let closed = false;

  function checkTopic(action: string, topic: string): void {
    if (typeof topic !== "string") {
      throw new TypeError(`Cannot ${action}: the topic must be a string`);
    }
    if (topic === "") {
      throw new RangeError(`Cannot ${action}: the topic is empty`);
    }
    const bytes = utf8Length(topic, maxTopicBytes);
    if (bytes > maxTopicBytes) {
      throw new RangeError(
        `Cannot ${action}: the topic name is over the ${maxTopicBytes}-byte limit (${bytes} ` +
          "bytes or more)",
      );
    }
  }

  // Messages that arrive while a delivery runs (a handler that publishes, or a transport that
  // echoes within publish()), topic and message by turns, delivered in arrival order once it
  // ends. Delivered at once, nested, such a message would reach the subscribers after the
  // handler before the message being delivered (order per publisher, rule 2).
  const pending: string[] = [];
  let delivering = false;
  const MAX_PENDING = 65_536;

  function deliver(topic: string, message: string): void {
    if (delivering) {
      // A handler that publishes for every message it gets would queue for ever: past the
      // bound, a message is refused and reported, as the stack overflow of a nested delivery
      // was before.
      if (pending.length >= MAX_PENDING * 2) {
        report(
          new RangeError(
            `Cannot deliver to ${
              label(topic)
            }: ${MAX_PENDING} messages were published while one was delivered (does a handler publish for every message it gets?)`,
          ),
          topic,
        );
        return;
      }
      pending.push(topic, message);
      return;
    }
    // No try/finally (it costs the common path): deliverNow() catches what handlers throw.
    delivering = true;
    deliverNow(topic, message);
    if (pending.length !== 0) {
      // pending grows while it is walked: what a queued message makes its handlers publish
      // comes after everything queued before it.
      for (let i = 0; i < pending.length; i += 2) {
        deliverNow(pending[i], pending[i + 1]);
      }
      pending.length = 0;
    }
    delivering = false;
  }

  function deliverNow(topic: string, message: string): void {
    const subscribed = handlers.get(topic);
    if (subscribed === undefined) return;
    // An array made once per change of the subscribers, not once per message: a handler may
    // unsubscribe itself or others while a message is delivered, which makes a new one.
    const list = subscribed.list ??= [...subscribed.set];
    for (const handler of list) {
      // close() ends every subscription, those this message has not reached yet included
      if (closed) return;
      try {
        handler(message, topic);
      } catch (error) {
        report(error, topic);
      }
    }
  }
  transport.deliver = deliver;

  function report(error: unknown, topic: string): void {
    try {
      onError(error, topic);
    } catch {
      // a failing reporter must not stop the other handlers
    }
  }

  function subscribe(topic: string, handler: TopicHandler): Unsubscribe {
    checkTopic(`subscribe to ${label(topic)}`, topic);
    if (typeof handler !== "function") {
      throw new TypeError("Cannot subscribe: the handler must be a function");
    }
    let subscribed = handlers.get(topic);
    if (subscribed === undefined) {
      handlers.set(topic, subscribed = { set: new Set(), list: undefined });
      listening.set(
        topic,
        Promise.resolve(transport.listen(topic)).catch(() => {}),
      );
    }
    // Each subscription is its own entry, so the same function may subscribe twice. An entry
    // ended while a message is delivered is skipped for the rest of that delivery: the array
    // being walked was made before, and a handler must not run once its unsubscribe returned.
    let active = true;
    const entry: TopicHandler = (message, name) => {
      if (active) handler(message, name);
    };
    subscribed.set.add(entry);
    subscribed.list = undefined;
    return () => {
      active = false;
      const current = handlers.get(topic);
      if (current === undefined || !current.set.delete(entry)) return;
      current.list = undefined;
      if (current.set.size > 0) return;
      handlers.delete(topic);
      listening.delete(topic);
      if (!closed) transport.unlisten(topic);
    };
  }

  return {
    publish(topic, message) {
      try {
        if (closed) {
          throw new TopicsUnavailableError(
            "Cannot publish: the topics are closed",
          );
        }
        checkTopic(`publish to ${label(topic)}`, topic);
        if (typeof message !== "string") {
          throw new TypeError("Cannot publish: the message must be a string");
        }
        const bytes = utf8Length(message, maxMessageBytes);
        if (bytes > maxMessageBytes) {
          throw new RangeError(
            `Cannot publish to ${label(topic)}: the message is ${bytes} bytes, ` +
              `over the ${maxMessageBytes}-byte limit`,
          );
        }
      } catch (error) {
        return Promise.reject(error);
      }
      // Handed to the transport first: a handler that publishes during the local delivery
      // must not get its message to the other hubs before this one.
      const sent = transport.publish(topic, message);
      if (!transport.echoes) deliver(topic, message);
      return sent;
    },
    subscribe,
    attach(target, topics, attachOptions = {}) {
      const format = attachOptions.format;
      const highWaterMark = limit(
        "highWaterMark",
        attachOptions.highWaterMark ?? DEFAULT_HIGH_WATER_MARK,
        "attach",
      );
      const overflow = attachOptions.overflow ?? "disconnect";
      if (overflow !== "disconnect" && overflow !== "drop") {
        throw new TypeError('Cannot attach: overflow must be "disconnect" or "drop"');
      }
      const stops: Unsubscribe[] = [];
      // A socket of websocket() calls these as it closes (see below).
      const closing = !isStream(target) && ON_CLOSED in target
        ? target as { [ON_CLOSED]: Set<() => void> | null }
        : undefined;
      const stop = () => {
        closing?.[ON_CLOSED]?.delete(stop);
        for (const unsubscribe of stops.splice(0)) unsubscribe();
      };
      const send = isStream(target)
        ? (message: string, topic: string) => {
          if (target.isClosed) return stop();
          target.send(format === undefined ? message : format(message, topic));
        }
        : (message: string, topic: string) => {
          if (
            target.readyState === "closed" || target.readyState === "closing"
          ) return stop();
          const out = format === undefined ? message : format(message, topic);
          const text = typeof out === "string" ? out : out.data;
          // The bound of a client that stopped reading: what the runtime holds for it.
          if (target.bufferedAmount + utf8Length(text, highWaterMark) > highWaterMark) {
            if (overflow === "drop") return;
            stop();
            target.close(1013, "The client does not keep up with its messages");
            return;
          }
          target.send(text);
        };
      for (const topic of topics) stops.push(subscribe(topic, send));
      if (isStream(target)) {
        if (target.isClosed) stop();
        else target.signal.addEventListener("abort", stop, { once: true });
      } else if (target.readyState === "closed") stop();
      else if (closing !== undefined) {
        // A socket of websocket() ends the subscriptions as it closes: a topic that gets no
        // message for a long time would otherwise hold every socket that left (and its
        // context) until its next message. Ended sooner, they leave the set (a socket that
        // moves from topic to topic does not gather them).
        (closing[ON_CLOSED] ??= new Set()).add(stop);
      }
      return stop;
    },
    subscribers: (topic) => handlers.get(topic)?.set.size ?? 0,
    ready: (topic) => listening.get(topic) ?? Promise.resolve(),
    async close() {
      if (closed) return;
      closed = true;
      handlers.clear();
      await transport.close();
    },
  };
}

// Where a connection of websocket() keeps what to call once closed (lib/middleware/
// _ws_connection.ts), found through the registry so that topics import none of it.
const ON_CLOSED = /* @__PURE__ */ Symbol.for("weft.ws.onClosed");

// The handlers of one topic, and the array deliver() walks, made again after each change.
interface Subscribed {
  set: Set<TopicHandler>;
  list: TopicHandler[] | undefined;
}

function isStream(
  target: WebSocketConnection | SseStream,
): target is SseStream {
  return "lastEventId" in target && "signal" in target;
}

function limit(name: string, value: number, action = "create topics"): number {
  if (!Number.isSafeInteger(value) || value < 1) {
    throw new RangeError(`Cannot ${action}: ${name} ${value} is not a positive integer`);
  }
  return value;
}
