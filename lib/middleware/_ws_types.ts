// The types of a WebSocket as handlers see it, shared by websocket() (which exports them) and
// the connection behind it (_ws_connection.ts), so that neither imports the other's types.
import type { Context } from "../context.ts";

/**
 * A message or control frame as handlers receive it. Messages are whole (fragments are joined
 * before delivery). `ping` and `pong` arrive only where the runtime surfaces them (Node; Deno
 * answers pings itself and reports neither). `close` is the peer's close frame when the peer
 * started the closing handshake (`code` 1005 when the frame carried none); `onClose` follows.
 */
export type WebSocketFrame =
  | { type: "text"; text: string }
  | { type: "binary"; data: Uint8Array }
  | { type: "ping" }
  | { type: "pong" }
  | { type: "close"; code: number; reason: string };

/** Where a connection is in its life. */
export type WebSocketState = "connecting" | "open" | "closing" | "closed";

/** An upgraded WebSocket, as handlers see it. */
export interface WebSocketConnection {
  /** The context of the upgrade request: params, and the variables middleware set (`ctx.var`). */
  readonly ctx: Context;
  /** The negotiated subprotocol; `""` when none. */
  readonly protocol: string;
  /** `"open"` from `onOpen` until `close()` is called or the peer closes. */
  readonly readyState: WebSocketState;
  /**
   * Bytes of messages sent and not yet written to the connection by the runtime (0 unless
   * open). The kernel's socket buffer comes first, so it grows once a peer that stopped reading
   * has filled that; compare it with a bound before sending to a peer that may be slow
   * (`topics.attach()` does).
   */
  readonly bufferedAmount: number;
  /**
   * Sends a text (string) or binary (bytes) message; does nothing unless the socket is open.
   *
   * @param data The message.
   */
  send(data: string | Uint8Array): void;
  /**
   * Starts the closing handshake; does nothing unless the socket is open.
   *
   * @param code A close code an endpoint may send: 1000-1003, 1007-1014 or 3000-4999.
   * @param reason At most 123 bytes of UTF-8.
   * @throws {RangeError} For another code or a longer reason.
   */
  close(code?: number, reason?: string): void;
  /**
   * Sends a ping.
   *
   * @returns Whether a ping went out: false on Deno (it pings on its own, see `idleTimeout`,
   * and exposes no ping API) and when the socket is not open.
   */
  ping(): boolean;
}

/**
 * What a WebSocket route does. Every handler is optional and may return a promise; calls on
 * one connection never overlap and come in order (`onOpen`, the messages, `onClose`), so an
 * async `onMessage` sees messages in the order they arrived. Messages that arrive while a
 * handler runs wait, up to `maxQueuedMessages` and `maxQueuedBytes`; once the connection has
 * closed, the waiting messages are dropped: the running call finishes, then only the peer's
 * close frame and `onClose` follow.
 */
export interface WebSocketHandlers {
  /** The 101 response went out; `socket.send()` works from here on. */
  onOpen?(socket: WebSocketConnection): void | Promise<void>;
  /** A whole message, or a control frame (see {@linkcode WebSocketFrame}). */
  onMessage?(socket: WebSocketConnection, frame: WebSocketFrame): void | Promise<void>;
  /**
   * The connection is closed; called once. `code` is the peer's when it started the closing
   * handshake, the server's own when the server did (the argument of `close()`, 1009 for an
   * over-size message, 1008 when too many messages wait for the handler, 1011 after a handler
   * threw, 1001 on shutdown or an idle timeout), or 1006 when the connection ended without one
   * (a protocol error, invalid UTF-8 on Deno, a lost peer).
   */
  onClose?(socket: WebSocketConnection, code: number, reason: string): void | Promise<void>;
  /**
   * A handler threw (the socket then closes with 1011), or the runtime failed the connection
   * because the peer broke the protocol. Without `onError`, handler errors go to the app's
   * `onError` hook (`console.error` without one) and protocol errors are dropped.
   */
  onError?(socket: WebSocketConnection, error: unknown): void | Promise<void>;
}
