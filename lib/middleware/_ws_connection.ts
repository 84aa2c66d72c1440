// One upgraded WebSocket as handlers see it: the runtime socket behind WebSocketConnection,
// and the runtime's events turned into handler calls that run one at a time, in order.
import { recover } from "../_app.ts";
import type { Context } from "../context.ts";
import type { RuntimeSocket, RuntimeSocketEvents } from "../server/types.ts";
import type {
  WebSocketConnection,
  WebSocketFrame,
  WebSocketHandlers,
  WebSocketState,
} from "./websocket.ts";

const encoder = new TextEncoder();

// RFC 6455 §7.4.1 and the IANA registry: codes an endpoint may send. 1004 is reserved; 1005,
// 1006 and 1015 must never appear on the wire; 1012-1014 were registered after the RFC.
function sendable(code: number): boolean {
  return Number.isInteger(code) &&
    ((code >= 1000 && code <= 1003) || (code >= 1007 && code <= 1014) ||
      (code >= 3000 && code <= 4999));
}

/** A WebSocketConnection over a runtime socket. */
export class Connection implements WebSocketConnection {
  readonly ctx: Context;
  #handlers: WebSocketHandlers;
  #raw: RuntimeSocket | undefined;
  #state: WebSocketState = "connecting";
  // The last handler call still running; later calls wait for it.
  #tail: Promise<void> | undefined;

  constructor(ctx: Context, handlers: WebSocketHandlers) {
    this.ctx = ctx;
    this.#handlers = handlers;
  }

  get readyState(): WebSocketState {
    return this.#state;
  }

  get protocol(): string {
    return this.#raw?.protocol ?? "";
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
      onText: (text) => this.#message({ type: "text", text }),
      onBinary: (data) => this.#message({ type: "binary", data }),
      onPing: () => this.#message({ type: "ping" }),
      onPong: () => this.#message({ type: "pong" }),
      onClose: (code, reason, byPeer) => {
        this.#state = "closed";
        if (byPeer) this.#message({ type: "close", code, reason });
        if (onClose !== undefined) this.#dispatch(() => onClose(this, code, reason));
      },
      onError: (error) => {
        // A client's protocol error is not the server's failure: only onError hears of it.
        if (this.#handlers.onError !== undefined) this.#report(error);
      },
    };
  }

  #message(frame: WebSocketFrame): void {
    const onMessage = this.#handlers.onMessage;
    if (onMessage !== undefined) this.#dispatch(() => onMessage(this, frame));
  }

  // Runs `call` now when nothing is pending (the common, synchronous case), else after the
  // pending calls, so an async handler never sees messages out of order.
  #dispatch(call: () => unknown): void {
    const tail = this.#tail;
    const next = tail === undefined ? this.#invoke(call) : tail.then(() => this.#invoke(call));
    if (next === undefined) return;
    this.#tail = next;
    next.then(() => {
      if (this.#tail === next) this.#tail = undefined;
    });
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
      recover(this.ctx, error);
      return;
    }
    try {
      const result = onError(this, error) as unknown;
      if (result instanceof Promise) result.catch((failure) => recover(this.ctx, failure));
    } catch (failure) {
      recover(this.ctx, failure);
    }
  }
}
