// One upgraded WebSocket as handlers see it: the runtime socket behind WebSocketConnection,
// and the runtime's events turned into handler calls that run one at a time, in order.
import { report } from "../_app.ts";
import type { Context } from "../context.ts";
import type { RuntimeSocket, RuntimeSocketEvents } from "../server/types.ts";
import type {
  WebSocketConnection,
  WebSocketFrame,
  WebSocketHandlers,
  WebSocketState,
} from "./_ws_types.ts";

const encoder = /* @__PURE__ */ new TextEncoder();

/**
 * The key under which a connection keeps the functions to call once it has closed, before
 * `onClose` (`null` until one is added): `topics.attach()` ends a socket's subscriptions there,
 * and removes its function when they end sooner. Registered, so that lib/realtime/topics.ts
 * finds it without importing this module.
 */
export const ON_CLOSED: unique symbol = /* @__PURE__ */ Symbol.for("weft.ws.onClosed");

// RFC 6455 §7.4.1 and the IANA registry: codes an endpoint may send. 1004 is reserved; 1005,
// 1006 and 1015 must never appear on the wire; 1012-1014 were registered after the RFC.
function sendable(code: number): boolean {
  return Number.isInteger(code) &&
    ((code >= 1000 && code <= 1003) || (code >= 1007 && code <= 1014) ||
      (code >= 3000 && code <= 4999));
}

/** How much may wait for a running async handler on one connection. */
export interface QueueLimits {
  maxQueuedMessages: number;
  maxQueuedBytes: number;
}

// A handler call waiting for the one running, and the bytes of message it holds.
interface Pending {
  call: () => unknown;
  bytes: number;
}

/** A WebSocketConnection over a runtime socket. */
export class Connection implements WebSocketConnection {
  readonly ctx: Context;
  #handlers: WebSocketHandlers;
  #raw: RuntimeSocket | undefined;
  #state: WebSocketState = "connecting";
  #limits: QueueLimits;
  // Whether an async handler call is still running; later calls wait in #queue.
  #busy = false;
  #queue: Pending[] = [];
  #queuedBytes = 0;
  /**
   * Called once the connection has closed (see {@linkcode ON_CLOSED}). Declared, and set in the
   * constructor: a field with a computed key is evaluated when the class is, which bundlers
   * count as a side effect, so every app's bundle would keep this class (the Deno core figure
   * grew by 900 B).
   */
  declare [ON_CLOSED]: Set<() => void> | null;

  constructor(ctx: Context, handlers: WebSocketHandlers, limits: QueueLimits) {
    this.ctx = ctx;
    this.#handlers = handlers;
    this.#limits = limits;
    this[ON_CLOSED] = null;
  }

  get readyState(): WebSocketState {
    return this.#state;
  }

  get protocol(): string {
    return this.#raw?.protocol ?? "";
  }

  get bufferedAmount(): number {
    return this.#state === "open" ? this.#raw!.bufferedAmount : 0;
  }

  send(data: string | Uint8Array): void {
    if (typeof data !== "string" && !(data instanceof Uint8Array)) {
      throw new TypeError("Cannot send on a WebSocket: data must be a string or a Uint8Array");
    }
    if (this.#state === "open") this.#raw!.send(data);
  }

  close(code = 1000, reason = ""): void {
    if (!sendable(code)) {
      throw new RangeError(
        `Cannot close a WebSocket with code ${code}: use 1000-1003, 1007-1014 or 3000-4999`,
      );
    }
    if (encoder.encode(reason).byteLength > 123) {
      throw new RangeError("Cannot close a WebSocket: the reason exceeds 123 bytes of UTF-8");
    }
    if (this.#state !== "open") return;
    this.#state = "closing";
    this.#raw!.close(code, reason);
  }

  ping(): boolean {
    return this.#state === "open" && this.#raw!.ping();
  }

  /** Binds the runtime socket; returns the events the runtime reports to. */
  attach(raw: RuntimeSocket): RuntimeSocketEvents {
    this.#raw = raw;
    const { onOpen, onClose } = this.#handlers;
    return {
      onOpen: () => {
        this.#state = "open";
        if (onOpen !== undefined) this.#dispatch(() => onOpen(this));
      },
      // A text message counts its UTF-16 code units: each holds at least a byte in memory.
      onText: (text) => this.#message({ type: "text", text }, text.length),
      onBinary: (data) => this.#message({ type: "binary", data }, data.byteLength),
      onPing: () => this.#message({ type: "ping" }, 0),
      onPong: () => this.#message({ type: "pong" }, 0),
      onClose: (code, reason, byPeer) => {
        this.#state = "closed";
        // No one is left to answer: messages not yet handed to a handler are dropped, and the
        // running call is followed by the close frame and onClose only.
        this.#drop();
        const closers = this[ON_CLOSED];
        this[ON_CLOSED] = null;
        if (closers !== null) { for (const closed of closers) closed(); }
        if (byPeer) this.#message({ type: "close", code, reason });
        if (onClose !== undefined) this.#dispatch(() => onClose(this, code, reason));
      },
      onError: (error) => {
        // A client's protocol error is not the server's failure: only onError hears of it.
        if (this.#handlers.onError !== undefined) this.#report(error);
      },
    };
  }

  #message(frame: WebSocketFrame, bytes?: number): void {
    const onMessage = this.#handlers.onMessage;
    if (onMessage !== undefined) this.#dispatch(() => onMessage(this, frame), bytes);
  }

  // Runs `call` now when nothing is running (the common, synchronous case), else queues it
  // after the calls before it, so an async handler never sees messages out of order. A client
  // that sends faster than the handler keeps up is closed once the queue passes its limits.
  // `bytes` is the size of a message from the client; the calls that are not (onOpen, the
  // peer's close frame, onClose) have none and always run.
  #dispatch(call: () => unknown, bytes?: number): void {
    if (!this.#busy) {
      this.#run(call);
      return;
    }
    this.#queue.push({ call, bytes: bytes ?? 0 });
    if (bytes === undefined) return;
    this.#queuedBytes += bytes;
    const { maxQueuedMessages, maxQueuedBytes } = this.#limits;
    if (this.#queue.length > maxQueuedMessages || this.#queuedBytes > maxQueuedBytes) {
      this.#drop();
      // RFC 6455 §7.4.1: 1008, the client broke the server's policy. Not 1013 ("try again
      // later"): a client that reconnects and sends at the same pace is closed again.
      if (this.#state === "open") {
        this.#state = "closing";
        this.#raw!.close(1008, "Too many messages waiting for the handler");
      }
    }
  }

  // Runs `call`, then the queued calls, until one returns a promise; the rest waits for it.
  // #busy stays set throughout, so a call made from inside a handler queues behind the rest.
  #run(call: () => unknown): void {
    this.#busy = true;
    for (let next: (() => unknown) | undefined = call; next !== undefined; next = this.#shift()) {
      const running = this.#invoke(next);
      if (running !== undefined) {
        running.then(() => {
          const after = this.#shift();
          if (after === undefined) this.#busy = false;
          else this.#run(after);
        });
        return;
      }
    }
    this.#busy = false;
  }

  #shift(): (() => unknown) | undefined {
    const pending = this.#queue.shift();
    if (pending === undefined) return undefined;
    this.#queuedBytes -= pending.bytes;
    return pending.call;
  }

  #drop(): void {
    this.#queue = [];
    this.#queuedBytes = 0;
  }

  #invoke(call: () => unknown): Promise<void> | undefined {
    try {
      const result = call();
      if (result instanceof Promise) return result.then(() => {}, (error) => this.#fail(error));
      if (typeof (result as PromiseLike<unknown> | undefined)?.then === "function") {
        return Promise.resolve(result).then(() => {}, (error) => this.#fail(error));
      }
    } catch (error) {
      this.#fail(error);
    }
    return undefined;
  }

  // A handler threw: report it and close with 1011 (RFC 6455 §7.4.1, internal error).
  #fail(error: unknown): void {
    this.#report(error);
    if (this.#state === "open") {
      this.#state = "closing";
      this.#raw!.close(1011, "Internal error");
    }
  }

  // To onError when there is one, else to the app's error reporter (console.error by default).
  #report(error: unknown): void {
    const onError = this.#handlers.onError;
    if (onError === undefined) {
      report(this.ctx, error);
      return;
    }
    try {
      const result = onError(this, error) as unknown;
      if (result instanceof Promise) result.catch((failure) => report(this.ctx, failure));
    } catch (failure) {
      report(this.ctx, failure);
    }
  }
}
