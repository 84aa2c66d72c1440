/**
 * `sse()`: server-sent events (`text/event-stream`, WHATWG HTML §9.2) as a response a handler
 * returns, with heartbeats, `Last-Event-ID`, a bounded send queue and cancellation.
 *
 * @module
 */
import { report } from "../_app.ts";
import type { Context } from "../context.ts";
import { intendedCut, SHUTDOWN, type ShutdownRegistry } from "../server/types.ts";
import { formatComment, formatEvent, retryValue, type SseEvent } from "./_sse_format.ts";

export type { SseEvent };

/** What {@linkcode SseOptions.overflow} does when a send would pass the high-water mark. */
export type SseOverflow = "disconnect" | "drop";

/** Options of {@linkcode sse}. */
export interface SseOptions {
  /**
   * Milliseconds between heartbeats: a comment line (`:`) the client ignores, which keeps
   * proxies from timing the connection out and gives TCP data to deliver, so that a peer that
   * vanished without a FIN or RST is noticed once the kernel gives up retransmitting (about
   * 15 minutes with Linux defaults), not never. 0 disables them.
   *
   * @default {15000}
   */
  heartbeat?: number;
  /**
   * Bytes of events that may wait for a slow client (sent, but not yet taken by the server's
   * socket). A send that would pass it triggers {@linkcode SseOptions.overflow}.
   *
   * @default {1048576}
   */
  highWaterMark?: number;
  /**
   * What happens to a send that would pass `highWaterMark`: `"disconnect"` ends the response
   * at once (what waits is discarded, the handler's signal aborts, and a browser's
   * `EventSource` reconnects with `Last-Event-ID`, so an app that can replay loses nothing;
   * a burst sent before the runtime took any event, such as that replay, is not cut: the events
   * that fit go out, then the response ends);
   * `"drop"` discards that event (`send()` returns false, `stream.dropped` counts it) and
   * keeps the connection.
   *
   * @default {"disconnect"}
   */
  overflow?: SseOverflow;
  /**
   * A reconnection delay in milliseconds sent before any event (the `retry` field), or none.
   *
   * @default {undefined}
   */
  retry?: number;
  /**
   * Ends the stream when it aborts, as the shutdown of the server does (see {@linkcode sse}).
   * Only needed to end streams at another moment, or for a response served by something other
   * than Weft's `serve()`.
   *
   * @default {undefined}
   */
  signal?: AbortSignal;
}

/** The event stream as the handler of {@linkcode sse} sees it. */
export interface SseStream {
  /**
   * The `Last-Event-ID` the client sent when reconnecting (decoded as UTF-8, as `EventSource`
   * sends it, so it equals the `id` sent); `""` on a first connection.
   */
  readonly lastEventId: string;
  /**
   * Aborts when the stream ends: the client went away, `close()` was called, the `signal`
   * option aborted, a send overflowed with `"disconnect"`, or the handler returned. Its
   * `reason` is an {@linkcode SseClosed} that says which.
   */
  readonly signal: AbortSignal;
  /** Settles when `signal` aborts; a handler that only reacts to others awaits it. */
  readonly closed: Promise<void>;
  /** Whether the stream has ended; sends do nothing from then on. */
  readonly isClosed: boolean;
  /** Events discarded by the `"drop"` overflow policy. */
  readonly dropped: number;
  /** Bytes queued for the client and not yet taken by the server's socket. */
  readonly bufferedAmount: number;
  /**
   * Sends one event (a string is the `data` of a `message` event). `data` with CR, LF or
   * CRLF goes out as several `data:` lines, which the client joins with LF.
   *
   * @param event The event, or its data.
   * @returns Whether it was queued: false once closed and for an event the overflow policy
   * discarded.
   * @throws {TypeError} When `event` or `id` contains a line break or a lone surrogate, or `id`
   * contains NULL.
   * @throws {RangeError} When `retry` is not a non-negative integer.
   */
  send(event: SseEvent | string): boolean;
  /**
   * Sends a comment, which the client ignores (heartbeats are comments).
   *
   * @param text The comment; each of its lines becomes a comment line.
   * @returns Whether it was queued.
   */
  comment(text?: string): boolean;
  /** Ends the response after what is queued; the signal aborts. */
  close(): void;
}

// The last line of a stream that the server's shutdown ends: a comment, which a browser
// ignores before it reconnects (to another instance, behind a load balancer).
const SHUTDOWN_COMMENT = ": server shutting down\n\n";

/** The default of {@linkcode SseOptions.heartbeat}: 15 s. */
const DEFAULT_HEARTBEAT_MS = 15_000;
/** The default of {@linkcode SseOptions.highWaterMark}: 1 MiB. */
const DEFAULT_HIGH_WATER_MARK = 1_048_576;

const encoder = /* @__PURE__ */ new TextEncoder();
const utf8 = /* @__PURE__ */ new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

// The Last-Event-ID as the id was sent. An id goes out as UTF-8 and EventSource sends it back
// as UTF-8, but both runtimes give header bytes as Latin-1 characters, one per byte: "café-1"
// would read "cafÃ©-1". Such a value is turned back into its bytes and decoded; one that is not
// UTF-8 (or that has a character over 0xFF, from a caller that built the request itself) stays
// as it is.
function lastEventId(header: string | null): string {
  if (header === null) return "";
  let ascii = true;
  for (let i = 0; i < header.length; i++) {
    const code = header.charCodeAt(i);
    if (code > 0xff) return header;
    if (code > 0x7f) ascii = false;
  }
  if (ascii) return header;
  const bytes = new Uint8Array(header.length);
  for (let i = 0; i < header.length; i++) bytes[i] = header.charCodeAt(i);
  try {
    return utf8.decode(bytes);
  } catch {
    return header;
  }
}

// Sent as the first bytes: the head goes out with them (some servers hold it until the body
// starts), and the client's `open` fires at once.
const OPENING = ":\n";

/** Why a stream ended, as `signal.reason` carries it. */
export class SseClosed extends Error {
  /** Always `"SseClosed"`. */
  override name = "SseClosed";
  /**
   * `client`: the client went away; `server`: `close()`, the handler's return, the `signal`
   * option or the server's shutdown; `overflow`: the queue was full. (A `timeout()` around the
   * handler bounds only the time until the response is returned; it never ends the stream.)
   */
  readonly kind: "client" | "server" | "overflow";
  /**
   * Makes the reason a stream's signal aborts with.
   *
   * @param kind What ended the stream.
   * @param message A sentence saying so.
   */
  constructor(kind: "client" | "server" | "overflow", message: string) {
    super(message);
    this.kind = kind;
  }
}

function check(options: SseOptions): {
  heartbeat: number;
  highWaterMark: number;
  overflow: SseOverflow;
  retry: number | undefined;
} {
  const heartbeat = options.heartbeat ?? DEFAULT_HEARTBEAT_MS;
  if (
    typeof heartbeat !== "number" || !Number.isFinite(heartbeat) ||
    heartbeat < 0
  ) {
    throw new RangeError(
      `Cannot start sse(): heartbeat ${heartbeat} is not a non-negative number`,
    );
  }
  const highWaterMark = options.highWaterMark ?? DEFAULT_HIGH_WATER_MARK;
  if (!Number.isSafeInteger(highWaterMark) || highWaterMark < 1) {
    throw new RangeError(
      `Cannot start sse(): highWaterMark ${highWaterMark} is not a positive integer`,
    );
  }
  const overflow = options.overflow ?? "disconnect";
  if (overflow !== "disconnect" && overflow !== "drop") {
    throw new TypeError(
      `Cannot start sse(): overflow must be "disconnect" or "drop"`,
    );
  }
  const retry = options.retry === undefined ? undefined : retryValue(options.retry);
  return { heartbeat, highWaterMark, overflow, retry };
}

/**
 * Answers with a `text/event-stream` and runs `handler` with the stream. The response ends
 * when the handler's promise settles (a throw goes to the app's error reporter), when it calls
 * `stream.close()`, or when the client goes away; in the last two cases `stream.signal`
 * aborts, so a handler that waits for others (topics, timers) awaits `stream.closed` and
 * stops there.
 *
 * - **Format**: WHATWG HTML §9.2.6. Multi-line data is split on CR, LF and CRLF; `event` and
 *   `id` with a line break, or `id` with NULL, throw a TypeError at `send()`.
 * - **Heartbeats**: a comment every `heartbeat` ms, sent when nothing is queued. Both runtimes
 *   cancel the body as soon as a client closes its connection or resets its HTTP/2 stream; a
 *   connection that vanished without a word is noticed once the kernel gives up resending a
 *   heartbeat (minutes: the write itself succeeds into the socket's buffer). A
 *   stream of which nothing was read by the first heartbeat is ended (kind `"client"`): its
 *   response never reached a client (a middleware answered with another one after `next()`).
 * - **Back-pressure**: events wait in a queue bounded by `highWaterMark` bytes; past it the
 *   `overflow` policy applies (`"disconnect"` by default). The runtime's and the kernel's
 *   socket buffers come before this queue, so a slow client holds that much more.
 * - **Shutdown**: `shutdown()` of the server the request came through (`serve()`, both
 *   runtimes) ends every open stream, and the signal aborts with kind `"server"`: the comment
 *   `: server shutting down` goes out and the response ends, or, for a client that is behind
 *   (events wait in the queue), the response is cut as by the `"disconnect"` policy. A stream
 *   whose body has not started (a request that reaches `sse()` during the shutdown) is not
 *   behind: it ends with the comment. So shutdown never waits for event-stream clients; a
 *   browser reconnects with `Last-Event-ID`.
 * - **Headers**: `Content-Type: text/event-stream`, `Cache-Control: no-cache, no-transform`
 *   (no-transform tells a compressor or proxy not to hold the body back: a compressing
 *   middleware leaves such responses alone or flushes after every chunk) and
 *   `X-Accel-Buffering: no` (nginx). Middleware that passes the response through (`logger`,
 *   `cors`) does not touch the body. HEAD gets the head only: the router cancels the body.
 *
 * @param ctx The request's context (`Last-Event-ID` is read from it).
 * @param handler Receives the {@linkcode SseStream}.
 * @param options `heartbeat`, `highWaterMark`, `overflow`, `retry`, `signal`.
 * @returns The response, to return from the route handler.
 * @throws {RangeError} When `heartbeat`, `highWaterMark` or `retry` is out of range.
 * @throws {TypeError} When `overflow` is not `"disconnect"` or `"drop"`.
 *
 * @example A clock
 * ```ts
 * import { get, router } from "../../mod.ts";
 * import { sse } from "./sse.ts";
 * import assert from "node:assert/strict";
 *
 * const app = router([
 *   get("/clock", (ctx) =>
 *     sse(ctx, async (stream) => {
 *       stream.send({ event: "tick", id: "1", data: "first\nsecond" });
 *       stream.send(`resumed after ${stream.lastEventId}`);
 *     })),
 * ]);
 * const res = await app.fetch(
 *   new Request("http://localhost/clock", { headers: { "last-event-id": "41" } }),
 * );
 * assert.equal(res.headers.get("content-type"), "text/event-stream");
 * assert.equal(
 *   await res.text(),
 *   ":\nevent: tick\nid: 1\ndata: first\ndata: second\n\ndata: resumed after 41\n\n",
 * );
 * ```
 */
export function sse(
  ctx: Context,
  handler: (stream: SseStream) => void | Promise<void>,
  options: SseOptions = {},
): Response {
  if (typeof handler !== "function") {
    throw new TypeError("Cannot start sse(): handler must be a function");
  }
  const { heartbeat, highWaterMark, overflow, retry } = check(options);
  const stream = new EventStream(
    lastEventId(ctx.header("last-event-id")),
    highWaterMark,
    overflow,
  );
  const body = stream.open(
    retry === undefined ? OPENING : `retry: ${retry}\n\n`,
  );
  // A client that goes away makes both runtimes cancel the body (the stream's cancel()). The
  // request's signal is not watched: Deno 2.9 warns about its legacy abort on first use.
  const timer = heartbeat > 0 ? setInterval(() => stream.heartbeat(), heartbeat) : undefined;
  const shutdown = options.signal;
  // The registry of the server the request came through (lib/server/types.ts), if any.
  const server = (ctx.info as { [SHUTDOWN]?: ShutdownRegistry } | undefined)?.[SHUTDOWN];
  // A client that is behind (events wait in the queue) is cut, not waited for: one that stopped
  // reading would hold the shutdown (on Node) until it leaves. The opening alone is not being
  // behind: it waits until the runtime starts the body, which a request that reaches sse()
  // during the shutdown, or whose response a middleware still holds, has not done yet.
  const onShutdown = () =>
    stream.end(
      new SseClosed("server", "The server is shutting down"),
      stream.behind,
      SHUTDOWN_COMMENT,
    );
  if (shutdown?.aborted || server?.closing) onShutdown();
  else {
    shutdown?.addEventListener("abort", onShutdown, { once: true });
    server?.closers.add(onShutdown);
  }
  stream.closed.then(() => {
    clearInterval(timer);
    shutdown?.removeEventListener("abort", onShutdown);
    server?.closers.delete(onShutdown);
  });
  queueMicrotask(async () => {
    try {
      if (!stream.isClosed) await handler(stream);
    } catch (error) {
      report(ctx, error);
    } finally {
      clearInterval(timer);
      stream.end(new SseClosed("server", "The handler returned"), false);
    }
  });
  return new Response(body, {
    headers: {
      "content-type": "text/event-stream",
      "cache-control": "no-cache, no-transform",
      "x-accel-buffering": "no",
    },
  });
}

// The stream behind SseStream: a ReadableStream whose queue is counted in bytes.
class EventStream implements SseStream {
  readonly lastEventId: string;
  readonly closed: Promise<void>;
  #abort = new AbortController();
  #controller!: ReadableStreamDefaultController<Uint8Array>;
  #highWaterMark: number;
  #overflow: SseOverflow;
  #dropped = 0;
  #ended = false;
  // Bytes enqueued, and those of the opening chunk: nothing was read while they match.
  #enqueued = 0;
  #opening = 0;
  #resolveClosed!: () => void;

  constructor(
    lastEventId: string,
    highWaterMark: number,
    overflow: SseOverflow,
  ) {
    this.lastEventId = lastEventId;
    this.#highWaterMark = highWaterMark;
    this.#overflow = overflow;
    this.closed = new Promise((resolve) => this.#resolveClosed = resolve);
  }

  open(first: string): ReadableStream<Uint8Array> {
    return new ReadableStream<Uint8Array>({
      start: (controller) => {
        this.#controller = controller;
        const bytes = encoder.encode(first);
        this.#enqueued = this.#opening = bytes.byteLength;
        controller.enqueue(bytes);
      },
      // a runtime cancels for a client that left (timeout() leaves event streams alone)
      cancel: () => this.end(new SseClosed("client", "The client went away"), true),
    }, {
      highWaterMark: this.#highWaterMark,
      size: (chunk) => chunk.byteLength,
    });
  }

  get signal(): AbortSignal {
    return this.#abort.signal;
  }

  get isClosed(): boolean {
    return this.#ended;
  }

  get dropped(): number {
    return this.#dropped;
  }

  get bufferedAmount(): number {
    return this.#ended ? 0 : this.#highWaterMark - (this.#controller.desiredSize ?? 0);
  }

  // Whether more than the opening waits for the client: events, or anything once the opening
  // was taken (a client that stopped reading).
  get behind(): boolean {
    const waiting = this.bufferedAmount;
    return waiting > (waiting === this.#enqueued ? this.#opening : 0);
  }

  send(event: SseEvent | string): boolean {
    const text = formatEvent(
      typeof event === "string" ? { data: event } : event,
    );
    return this.#write(text, true);
  }

  comment(text = ""): boolean {
    return this.#write(formatComment(text), true);
  }

  heartbeat(): void {
    if (this.#ended) return;
    const waiting = this.bufferedAmount;
    // Nothing taken since the stream began, a heartbeat period later: no server is sending this
    // body (a middleware answered with another response, or the client's HTTP/2 window never
    // opened). It ends as for a client that left, so its handler and timers stop.
    if (waiting === this.#enqueued) {
      this.end(new SseClosed("client", "Nothing read the stream"), true);
      return;
    }
    // Only on an empty queue: a queued event reaches the socket anyway, and a heartbeat must
    // never be the send that overflows.
    if (waiting === 0) this.#write(":\n", false);
  }

  close(): void {
    this.end(new SseClosed("server", "The stream was closed"), false);
  }

  #write(text: string, counted: boolean): boolean {
    if (this.#ended) return false;
    const bytes = encoder.encode(text);
    if (
      counted && this.bufferedAmount + bytes.byteLength > this.#highWaterMark
    ) {
      if (this.#overflow === "drop") {
        this.#dropped++;
        return false;
      }
      // No event taken yet, only the opening at most (a burst, such as a replay after
      // Last-Event-ID, sent before the runtime started the body): what waits fits the mark and
      // goes out, then the response ends, so the client gets a 200 and reconnects from the last
      // event it got. Cut, the response would carry no event (Deno), or become a 500 when its
      // head was not out yet (Node), after which EventSource never reconnects. A client that
      // stopped reading is not taken for one: the runtime fills the socket's buffers first.
      const unstarted = this.#enqueued - this.bufferedAmount <= this.#opening;
      this.end(
        new SseClosed(
          "overflow",
          `More than ${this.#highWaterMark} bytes waited for the client`,
        ),
        !unstarted,
      );
      return false;
    }
    this.#enqueued += bytes.byteLength;
    this.#controller.enqueue(bytes);
    return true;
  }

  // Ends the stream once: `cut` errors it (what waits is discarded and the client sees the
  // body end early), else it closes after what is queued and `last`.
  end(reason: SseClosed, cut: boolean, last?: string): void {
    if (this.#ended) return;
    this.#ended = true;
    try {
      if (cut) {
        // Deno.serve reports a failed body as the server's failure; this one is meant.
        this.#controller.error(intendedCut(reason));
      } else {
        if (last !== undefined) this.#controller.enqueue(encoder.encode(last));
        this.#controller.close();
      }
    } catch {
      // already cancelled by the runtime
    }
    this.#abort.abort(reason);
    this.#resolveClosed();
  }
}
