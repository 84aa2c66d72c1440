// WebSockets through the npm `ws` package in `noServer` mode: the WebSocket half of
// lib/server/node.ts.
import type { Buffer } from "node:buffer";
import type * as http from "node:http";
import type { Socket } from "node:net";
// @ts-types="@types/ws"
import type * as Ws from "ws";
import type { RuntimeSocket, RuntimeSocketEvents, RuntimeUpgradeOptions } from "./types.ts";
import { binaryFrame, hold, spill, textFrame } from "./_node_ws_write.ts";

type WsSocket = Ws.WebSocket;

// `ws` is loaded on the first upgrade an app accepts, with the handshake that uses it
// (_node_upgrade.ts), not with the server: apps that never accept a WebSocket do not load it,
// and bundlers that split code put it in a chunk of their own (the Node core size budget,
// scripts/size_check.ts). upgradeWebSocket() starts loading it.
/** How long a peer may take to answer the 1001 close frame of a shutdown or idle timeout. */
export const WS_CLOSE_GRACE_MS = 2_000;
/** The close reason of a shutdown. */
export const SHUTDOWN_REASON = "Server shutting down";

/** The WebSockets of one server, so that its shutdown() closes them. */
export interface SocketRegistry {
  readonly closing: boolean;
  readonly sockets: Map<RuntimeSocket, WsSocket>;
}

/** An HTTP/1.1 request with `Upgrade`, as node:http's 'upgrade' event hands it over. */
export interface Upgrade {
  incoming: http.IncomingMessage;
  socket: Socket;
  head: Buffer;
  registry: SocketRegistry;
}

/** What upgradeWebSocket() leaves on its 101 response for the handshake. */
export interface PendingSocket {
  upgrade: Upgrade;
  options: RuntimeUpgradeOptions;
  bind(ws: WsSocket): void;
}

/**
 * Where an upgrade is found: on the request, or on the ConnInfo handed out with it
 * (`options.info`), which still works when middleware replaced `ctx.req` (set by
 * _node_upgrade.ts). Registered symbols, so that this module and that one, which loads lazily,
 * share them without importing each other.
 */
export const UPGRADE: unique symbol = Symbol.for("weft.upgrade") as never;
/** Where the 101 response keeps its {@linkcode PendingSocket}. */
export const PENDING: unique symbol = Symbol.for("weft.pendingSocket") as never;

/** An object that may carry an upgrade. */
export type Marked = { [UPGRADE]?: Upgrade };

// Whether the last failure `ws` reported carried its close code under a symbol.
let statusCodeSymbol: boolean | undefined;

/**
 * Whether `ws` gave the close code of its last failure under its symbol (`undefined` before the
 * first). Read by tests/node/internals.test.ts only (bundlers drop it).
 */
export function statusCodeSymbolLive(): boolean | undefined {
  return statusCodeSymbol;
}

// The close code `ws` sent when it failed a connection itself (1009 over maxPayload, 1007 for
// invalid UTF-8, 1002 for a protocol error): ws keeps it under a symbol on the error; without
// it, the error's code names the three that Weft knows.
function failureCode(error: Error): number {
  for (const key of Object.getOwnPropertySymbols(error)) {
    const value = (error as unknown as Record<symbol, unknown>)[key];
    if (key.description === "status-code" && typeof value === "number") {
      statusCodeSymbol = true;
      return value;
    }
  }
  const code = (error as NodeJS.ErrnoException).code;
  if (code?.startsWith("WS_ERR_")) statusCodeSymbol = false; // a failure of ws's own, without it
  return code === "WS_ERR_UNSUPPORTED_MESSAGE_LENGTH"
    ? 1009
    : code === "WS_ERR_INVALID_UTF8"
    ? 1007
    : 1002;
}

/**
 * Upgrades a request that arrived with `Upgrade: websocket` over HTTP/1.1, through `ws` in
 * `noServer` mode: returns the 101 response for the app to return; the handshake happens once
 * the response leaves the app, with every header it carries by then. `ws` refuses a message
 * over `maxMessageBytes` while receiving it (1009, all fragments counted), answers pings, and
 * reports pings and pongs, which reach `onPing` and `onPong`.
 */
export function upgradeWebSocket(
  request: Request,
  options: RuntimeUpgradeOptions,
  events: (socket: RuntimeSocket) => RuntimeSocketEvents,
): Response {
  const upgrade = (request as Marked)[UPGRADE] ?? (options.info as Marked | undefined)?.[UPGRADE];
  if (upgrade === undefined) {
    throw new TypeError(
      "Cannot upgrade to a WebSocket: the request did not reach serve() over HTTP/1.1 with Upgrade: websocket",
    );
  }
  import("./_node_ws_handshake.ts").catch(() => {});
  const registry = upgrade.registry;
  let ws: WsSocket | undefined;
  // The code and reason of the close frame the server sent, which onClose reports.
  let sent: [number, string] | undefined;
  const socket: RuntimeSocket = {
    send(data) {
      if (ws === undefined || ws.readyState !== 1) return;
      hold(upgrade.socket);
      // A text frame goes to the socket as made once for every socket that sends this text,
      // a binary frame with a copy of the bytes (the caller may reuse them at once); ws writes
      // its own frames (pings, close) straight to the socket too (it queues only while
      // compressing or reading a Blob, and Weft enables neither), so the frames keep their order.
      upgrade.socket.write(typeof data === "string" ? textFrame(data) : binaryFrame(data));
      spill(upgrade.socket);
    },
    close(code, reason) {
      if (sent !== undefined || ws === undefined || ws.readyState !== 1) return;
      sent = [code ?? 1005, reason ?? ""];
      ws.close(code, reason);
    },
    ping() {
      if (ws !== undefined && ws.readyState === 1) ws.ping();
      return true;
    },
    get protocol() {
      return ws?.protocol ?? "";
    },
    get bufferedAmount() {
      return ws?.bufferedAmount ?? 0;
    },
  };
  const handlers = events(socket);
  const response = new Response(null, { status: 200 });
  Object.defineProperty(response, "status", { value: 101 }); // undici refuses 101 in `new Response`
  (response as { [PENDING]?: PendingSocket })[PENDING] = {
    upgrade,
    options,
    bind(bound) {
      ws = bound;
      // Idle timeout: a ping after half of it without a frame, 1001 after the whole of it.
      const idle = (options.idleTimeout ?? 0) * 1000;
      let seen = Date.now();
      const heartbeat = idle > 0
        ? setInterval(() => {
          const quiet = Date.now() - seen;
          if (quiet >= idle) {
            socket.close(1001, "No response from ping frame");
            setTimeout(() => bound.terminate(), WS_CLOSE_GRACE_MS).unref();
          } else if (quiet >= idle / 2 && bound.readyState === 1) bound.ping();
        }, Math.max(idle / 4, 10))
        : undefined;
      heartbeat?.unref();
      bound.on("message", (data: Buffer, isBinary: boolean) => {
        seen = Date.now();
        if (sent !== undefined) return;
        if (isBinary) {
          handlers.onBinary(new Uint8Array(data.buffer, data.byteOffset, data.byteLength));
        } else handlers.onText(data.toString("utf8"));
      });
      bound.on("ping", () => {
        seen = Date.now();
        handlers.onPing();
      });
      bound.on("pong", () => {
        seen = Date.now();
        handlers.onPong();
      });
      bound.on("error", (error: Error) => {
        // ws failed the connection and sent its own close frame (1009, 1007, 1002).
        sent ??= [failureCode(error), ""];
        handlers.onError(error);
      });
      bound.on("close", (code: number, reason: Buffer) => {
        clearInterval(heartbeat);
        registry.sockets.delete(socket);
        if (sent !== undefined) handlers.onClose(sent[0], sent[1], false);
        else if (code === 1006) handlers.onClose(1006, "", false);
        else handlers.onClose(code, reason.toString("utf8"), true);
      });
      registry.sockets.set(socket, bound);
      handlers.onOpen();
      if (registry.closing) socket.close(1001, SHUTDOWN_REASON);
    },
  };
  return response;
}
