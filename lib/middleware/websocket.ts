/**
 * `websocket()`: WebSocket upgrades (RFC 6455) as a middleware or a route handler, and
 * `acceptKey()`, the handshake's `Sec-WebSocket-Accept` computation.
 *
 * @module
 */
import type { Context } from "../context.ts";
import { problem } from "../http/problem.ts";
import { upgradeWebSocket } from "../server/deno.ts";
import type { Next } from "../types.ts";
import { isToken } from "./_headers.ts";
import { Connection } from "./_ws_connection.ts";
import { checkHandshake, upgradeRequired } from "./_ws_handshake.ts";
import type { WebSocketHandlers } from "./_ws_types.ts";

export type {
  WebSocketConnection,
  WebSocketFrame,
  WebSocketHandlers,
  WebSocketState,
} from "./_ws_types.ts";

/** Options of {@linkcode websocket}. */
export interface WebSocketOptions {
  /**
   * The largest message, in bytes (a text message counts its UTF-8 bytes, all fragments
   * together). A larger one is never delivered: the socket closes with 1009. On Deno the check
   * runs once the runtime has received the whole message (it accepts frames of up to 64 MiB and
   * drops the connection beyond); on Node it runs while receiving.
   *
   * @default {1048576}
   */
  maxMessageBytes?: number;
  /**
   * The subprotocols the server speaks, most preferred first. The first one the client offers
   * in `Sec-WebSocket-Protocol` is chosen; when it offers none of them the connection opens
   * without a subprotocol (RFC 6455 §4.2.2), and a browser then fails it.
   *
   * @default {[]}
   */
  protocols?: readonly string[];
  /**
   * Seconds without any frame from the client before the server closes the connection (with
   * 1001): it pings the client after half of it, and any frame, a pong included, restarts the
   * count. 0 disables it.
   *
   * @default {30}
   */
  idleTimeout?: number;
  /**
   * The origins whose pages may open a connection: a list of serialized origins
   * (`"https://app.example"`, `"http://localhost:8000"`: scheme, host and a port other than
   * the default, lowercase, no path), matched exactly against the `Origin` header, or a
   * function that receives the `Origin` and the context and returns whether to allow it. A
   * handshake whose `Origin` is not allowed gets 403 (problem+json) before any upgrade. A
   * handshake without `Origin` is allowed: browsers always send one, so it comes from a
   * non-browser client, which could forge any `Origin` anyway (RFC 6455 §10.2). The opaque
   * origin `"null"` is only allowed by a function.
   *
   * Browsers send cookies with a WebSocket handshake from any site, and neither the same-origin
   * policy nor `cors()` applies to it, so a socket authenticated by a cookie needs this option:
   * without it, any page a signed-in user visits can open the socket as that user (cross-site
   * WebSocket hijacking).
   *
   * @default {undefined} Any origin may connect.
   */
  origins?: readonly string[] | ((origin: string, ctx: Context) => boolean | Promise<boolean>);
  /**
   * How many messages of one connection may wait while an async handler runs (pings and pongs
   * count). Past it the socket closes with 1008 (policy violation; not 1013, "try again later",
   * since a client that comes back sending as fast is closed again) and the waiting messages
   * are dropped. Handlers run one at a time, so without a bound a client that sends faster than
   * `onMessage` finishes makes the server hold every message it sent.
   *
   * @default {64}
   */
  maxQueuedMessages?: number;
  /**
   * How many bytes of messages of one connection may wait while an async handler runs (a text
   * message counts its length in UTF-16 code units). Past it the socket closes with 1008, as
   * past {@linkcode WebSocketOptions.maxQueuedMessages}.
   *
   * @default {4194304}
   */
  maxQueuedBytes?: number;
}

/**
 * A WebSocket endpoint: a middleware (with `next`: requests that are not WebSocket handshakes
 * pass on) and a route handler (without: they get 426).
 */
export type WebSocketMiddleware = (ctx: Context, next?: Next) => Response | Promise<Response>;

/** The default of {@linkcode WebSocketOptions.maxMessageBytes}: 1 MiB. */
const DEFAULT_MAX_MESSAGE_BYTES = 1_048_576;
/** The default of {@linkcode WebSocketOptions.maxQueuedBytes}: 4 MiB. */
const DEFAULT_MAX_QUEUED_BYTES = 4_194_304;

const HANDLERS = ["onOpen", "onMessage", "onClose", "onError"] as const;

function fail(detail: string): never {
  throw new TypeError(`Cannot create websocket(): ${detail}`);
}

/**
 * Upgrades WebSocket handshakes (RFC 6455) and runs `handlers` on the connections. The upgrade
 * request goes through the whole chain like any other, so `logger` records the 101, `auth` can
 * answer 401 before any upgrade, and headers that middleware set (`ctx.setHeader`, cookies,
 * `cors`) are sent with the 101. Weft checks the handshake before the runtime sees it, and
 * every refusal is `application/problem+json`:
 *
 * - a method other than GET, no `Upgrade: websocket`, no `Connection: Upgrade`, or a
 *   `Sec-WebSocket-Key` that is not the base64 encoding of 16 bytes: 400;
 * - a `Sec-WebSocket-Version` other than 13 (or none): 426 with `Sec-WebSocket-Version: 13`;
 * - no WebSocket handshake at all: 426 with `Upgrade: websocket` when used as a route handler;
 *   `next()` when used as a middleware;
 * - an `Origin` that `origins` does not allow: 403.
 *
 * Any origin may connect unless `options.origins` says otherwise, and browsers send cookies
 * with the handshake from any site: a socket authenticated by a cookie must set `origins`.
 *
 * WebSockets stay on HTTP/1.1: over HTTP/2 a request cannot carry `Upgrade`, so it gets 426
 * (Weft does not implement RFC 8441). Messages are delivered whole. A client that sends
 * faster than an async handler keeps up is closed with 1008 past `maxQueuedMessages` or
 * `maxQueuedBytes` waiting. Graceful shutdown of `serve()` closes open sockets with 1001.
 *
 * What Deno decides before Weft sees a message: it joins fragments without a limit on the
 * total and drops the connection on a single frame over 64 MiB, so `maxMessageBytes` is
 * enforced once a message has arrived whole; it answers pings itself and reports neither pings
 * nor pongs, so `ping()` returns false and `ping`/`pong` frames never arrive; and it drops the
 * connection without a close frame on a text message that is not valid UTF-8 (the client sees
 * 1006 instead of 1007; `onError` gets "Invalid UTF-8", `onClose` 1006); and once the server
 * has started to close, it drops the connection on the next data frame, often before its close
 * frame went out (a client closed with 1008 while it floods the handler sees 1006; `onClose`
 * gets 1008); it takes an unmasked frame from a client as a message (RFC 6455 §5.1 says to
 * fail the connection), and drops the connection without a 1002 close frame on a malformed
 * frame. The Node build closes with 1002, 1007 and 1009 while receiving, sends every close
 * frame, and surfaces pings and pongs.
 *
 * @param handlers `onOpen`, `onMessage`, `onClose` and `onError`, all optional.
 * @param options `maxMessageBytes`, `protocols`, `idleTimeout`, `origins`,
 * `maxQueuedMessages`, `maxQueuedBytes`.
 * @returns A function that is both a middleware and a route handler.
 * @throws {TypeError} When a handler is not a function, a protocol is not an HTTP token or an
 * origin is not a serialized origin.
 * @throws {RangeError} When `maxMessageBytes` is not a positive integer, `maxQueuedMessages`
 * or `maxQueuedBytes` not a non-negative integer, or `idleTimeout` is negative.
 *
 * @example An echo route
 * ```ts
 * import { get, router, serve } from "../../mod.ts";
 * import { websocket } from "./websocket.ts";
 * import assert from "node:assert/strict";
 *
 * const app = router([
 *   get("/echo", websocket({
 *     onMessage(socket, frame) {
 *       if (frame.type === "text") socket.send(`echo: ${frame.text}`);
 *     },
 *   })),
 * ]);
 * const server = serve(app, { port: 0, hostname: "127.0.0.1", onListen() {} });
 * const client = new WebSocket(`ws://127.0.0.1:${server.addr.port}/echo`);
 * client.onopen = () => client.send("hi");
 * const reply = await new Promise((resolve) => client.onmessage = (event) => resolve(event.data));
 * assert.equal(reply, "echo: hi");
 * client.close();
 * await server.shutdown();
 *
 * const plain = await app.fetch(new Request("http://localhost/echo"));
 * assert.equal(plain.status, 426);
 * assert.equal(plain.headers.get("upgrade"), "websocket");
 * ```
 */
export function websocket(
  handlers: WebSocketHandlers,
  options?: WebSocketOptions,
): WebSocketMiddleware;
export function websocket(
  handlers: WebSocketHandlers,
  options: WebSocketOptions = {},
): WebSocketMiddleware {
  // 1. validate and prepare everything once
  if (typeof handlers !== "object" || handlers === null) fail("handlers must be an object");
  for (const name of HANDLERS) {
    const handler = handlers[name];
    if (handler !== undefined && typeof handler !== "function") {
      fail(`${name} must be a function`);
    }
  }
  const maxMessageBytes = options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES;
  if (!Number.isSafeInteger(maxMessageBytes) || maxMessageBytes < 1) {
    throw new RangeError(
      `Cannot create websocket(): maxMessageBytes ${maxMessageBytes} is not a positive integer`,
    );
  }
  const idleTimeout = options.idleTimeout ?? 30;
  if (typeof idleTimeout !== "number" || !Number.isFinite(idleTimeout) || idleTimeout < 0) {
    throw new RangeError(
      `Cannot create websocket(): idleTimeout ${idleTimeout} is not a non-negative number`,
    );
  }
  const protocols = [...(options.protocols ?? [])];
  for (const name of protocols) {
    if (typeof name !== "string" || !isToken(name)) {
      fail(`protocol ${JSON.stringify(name)} is not an HTTP token`);
    }
  }
  const allowOrigin = compileOrigins(options.origins);
  const limits = {
    maxQueuedMessages: count("maxQueuedMessages", options.maxQueuedMessages ?? 64),
    maxQueuedBytes: count("maxQueuedBytes", options.maxQueuedBytes ?? DEFAULT_MAX_QUEUED_BYTES),
  };

  return function websocket(ctx: Context, next?: Next): Response | Promise<Response> {
    // 2. Weft's own handshake check, before the runtime sees the request
    const handshake = checkHandshake(ctx.req, protocols);
    if (handshake.kind === "none") return next === undefined ? upgradeRequired() : next();
    if (handshake.kind === "refused") return handshake.response;
    // 3. the origin (RFC 6455 §4.2.2 item 4, §10.2): only browsers must send one
    const origin = ctx.req.headers.get("origin");
    if (allowOrigin !== undefined && origin !== null) {
      const allowed = allowOrigin(origin, ctx);
      if (allowed instanceof Promise) {
        return allowed.then((ok) => ok ? upgrade(ctx, handshake.protocol) : forbidden());
      }
      if (!allowed) return forbidden();
    }
    // 4. the upgrade
    return upgrade(ctx, handshake.protocol);
  };

  // The runtime's 101, which the chain returns like any response.
  function upgrade(ctx: Context, protocol: string | undefined): Response {
    const connection = new Connection(ctx, handlers, limits);
    try {
      return upgradeWebSocket(ctx.req, {
        protocol,
        maxMessageBytes,
        idleTimeout,
        info: ctx.info,
      }, (socket) => connection.attach(socket));
    } catch {
      // The runtime refused a handshake Weft accepts (a request it cannot upgrade).
      return problem({ status: 400, detail: "The WebSocket handshake could not be completed" });
    }
  }
}

type AllowOrigin = (origin: string, ctx: Context) => boolean | Promise<boolean>;

// A list becomes a set lookup; entries must be serialized origins, since a trailing slash or
// an uppercase host would otherwise never match and lock every browser out without a word.
function compileOrigins(origins: WebSocketOptions["origins"]): AllowOrigin | undefined {
  if (origins === undefined || typeof origins === "function") return origins;
  if (!Array.isArray(origins)) fail("origins must be an array of origins or a function");
  for (const origin of origins) {
    if (typeof origin !== "string" || !URL.canParse(origin) || new URL(origin).origin !== origin) {
      fail(
        `origin ${JSON.stringify(origin)} is not a serialized origin like "https://example.com"`,
      );
    }
  }
  const allowed = new Set<string>(origins);
  return (origin) => allowed.has(origin);
}

function count(name: string, value: number): number {
  if (!Number.isSafeInteger(value) || value < 0) {
    throw new RangeError(
      `Cannot create websocket(): ${name} ${value} is not a non-negative integer`,
    );
  }
  return value;
}

function forbidden(): Response {
  return problem({
    status: 403,
    detail: "This origin may not open a WebSocket connection to this resource",
  });
}

/** RFC 6455 §1.3: the GUID appended to the key. */
const GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11";

/**
 * Computes `Sec-WebSocket-Accept` for a `Sec-WebSocket-Key` (RFC 6455 §4.2.2 item 5.4): the
 * base64 encoding of the SHA-1 digest of the key followed by the protocol's GUID. The runtime
 * answers the handshake itself; this is for clients and tests that speak raw HTTP.
 *
 * @param key The client's `Sec-WebSocket-Key`.
 * @returns The value of `Sec-WebSocket-Accept`.
 *
 * @example The RFC 6455 §1.3 example
 * ```ts
 * import { acceptKey } from "./websocket.ts";
 * import assert from "node:assert/strict";
 *
 * assert.equal(await acceptKey("dGhlIHNhbXBsZSBub25jZQ=="), "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=");
 * ```
 */
export async function acceptKey(key: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-1", new TextEncoder().encode(key + GUID));
  return btoa(String.fromCharCode(...new Uint8Array(digest)));
}
