// Serving, the part both protocols share (a request's URL, its Request, running the app) and
// HTTP/1.1's own: node:http's listeners, the limits of the table in lib/server/node.ts, h2c
// detection on the plain port and the bind. HTTP/2 streams are served by _node_h2.ts.
import { Buffer } from "node:buffer";
import cluster from "node:cluster";
import * as http from "node:http";
import type * as http2 from "node:http2";
import { isIP, type Socket } from "node:net";
import process from "node:process";
// @ts-types="@types/ws"
import type { WebSocket as WsSocket } from "ws";
import type { InternalApp } from "../_app.ts";
import { problem } from "../http/problem.ts";
import {
  type BodySource,
  type Closable,
  hasBody,
  type RequestHead,
  toRequest,
} from "./_node_request.ts";
import { type Answer, answerer } from "./_node_answer.ts";
import { isResponse, NativeResponse } from "./_node_response.ts";
import { send, type Writer } from "./_node_send.ts";
import { lazy } from "./_node_lazy.ts";
import type { SocketRegistry } from "./_node_ws.ts";
import type { Mark, Upgrading } from "./_node_upgrade.ts";
import {
  type ConnInfo,
  type FetchFunction,
  type RuntimeServeOptions,
  type RuntimeSocket,
  SHUTDOWN,
  type ShutdownRegistry,
} from "./types.ts";

export const MAX_HEADER_BYTES = 16_384;
export const MAX_H2_HEADER_LIST_BYTES = 65_536;
export const HEADERS_TIMEOUT_MS = 30_000;
export const REQUEST_TIMEOUT_MS = 300_000;
export const KEEP_ALIVE_TIMEOUT_MS = 65_000;
export const HANDSHAKE_TIMEOUT_MS = 10_000;
// How long a connection answered with an error and closed on Weft's side may stay open for the
// client to read the answer (nginx's lingering_timeout).
const LINGER_MS = 5_000;
// node:http looks for requests past headersTimeout or requestTimeout only this often (its
// default; shorter timeouts are looked for four times per timeout).
const CHECK_INTERVAL_MS = 30_000;
const H2_PREFACE = Buffer.from("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", "latin1");
const HOST = /^(?:[\w.~!$&'()*+,;=%-]+|\[[\da-fA-F:.]+\])(?::\d{1,5})?$/;

/** What one server keeps: the app, its connections and sockets, and whether it is closing. */
export class ServerState implements SocketRegistry, ShutdownRegistry {
  closing = false;
  readonly closers: Set<() => void> = new Set();
  readonly sessions: Set<http2.ServerHttp2Session> = new Set();
  readonly sockets: Map<RuntimeSocket, WsSocket> = new Map();
  readonly sniffing: Set<Socket> = new Set();
  /** HTTP/1.1 connections (not yet upgraded), for shutdown() to drop the stalled ones. */
  readonly h1: Set<Socket> = new Set();
  // Declared only: the constructor assigns them, so the bundle carries no field definitions.
  declare readonly fetch: FetchFunction;
  declare readonly answer: Answer | undefined;
  declare readonly onError: RuntimeServeOptions["onError"];
  declare readonly scheme: string;
  declare readonly fallbackHost: string;
  declare readonly headersTimeout: number;
  declare readonly requestTimeout: number;
  declare readonly keepAliveTimeout: number;
  // The last Host that passed the check: a client sends the same one on every request.
  host = "";

  constructor(fetch: FetchFunction, options: RuntimeServeOptions, scheme: string) {
    this.fetch = fetch;
    this.answer = options.app ? answerer(options.app as InternalApp) : undefined;
    this.onError = options.onError;
    this.scheme = scheme;
    this.headersTimeout = options.headersTimeout ?? HEADERS_TIMEOUT_MS;
    this.requestTimeout = options.requestTimeout ?? REQUEST_TIMEOUT_MS;
    this.keepAliveTimeout = options.keepAliveTimeout ?? KEEP_ALIVE_TIMEOUT_MS;
    const hostname = options.hostname;
    this.fallbackHost = `${hostname.includes(":") ? `[${hostname}]` : hostname}:${options.port}`;
  }
}

const INFO = Symbol("weft.connInfo");

// The peer address is read only on demand; one per connection, shared by its requests. It
// carries the server's registry, which sse() finds through `ctx.info`.
class NodeConnInfo implements ConnInfo {
  readonly #socket: Socket | null | undefined;
  readonly [SHUTDOWN]: ShutdownRegistry;
  constructor(socket: Socket | null | undefined, state: ServerState) {
    this.#socket = socket;
    this[SHUTDOWN] = state;
  }
  get remoteAddr(): { hostname: string; port: number } | undefined {
    const socket = this.#socket;
    const hostname = socket?.remoteAddress;
    return hostname === undefined ? undefined : { hostname, port: socket!.remotePort ?? 0 };
  }
}

// The Host field from the raw list, so that node:http never builds its header object for a
// request that does not read it; null when there are several (RFC 9112 §3.2: a 400).
function hostOf(raw: readonly string[]): string | undefined | null {
  let host: string | undefined;
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i];
    if (name === "Host" || (name.length === 4 && name.toLowerCase() === "host")) {
      if (host !== undefined) return null;
      host = raw[i + 1];
    }
  }
  return host;
}

// The absolute URL of a request target; undefined when the target or the Host is malformed,
// or Host is given twice (RFC 9112 §3.2: a 400, whatever the form of the target).
function urlOf(
  target: string,
  host: string | undefined | null,
  state: ServerState,
): string | undefined {
  if (host === null) return undefined;
  if (host !== undefined && host !== "" && host !== state.host) {
    if (!HOST.test(host)) return undefined;
    state.host = host;
  }
  if (target.charCodeAt(0) !== 47 /* / */) {
    return /^https?:\/\//i.test(target) ? target : undefined; // absolute-form (RFC 9112 §3.2.2)
  }
  if (host === undefined || host === "") return `${state.scheme}://${state.fallbackHost}${target}`;
  return `${state.scheme}://${host}${target}`;
}

function headerBytes(raw: readonly string[]): number {
  // RFC 9113 §6.5.2: the size of a field is its name, its value and 32 octets.
  let size = 0;
  for (let i = 0; i < raw.length; i += 2) size += raw[i].length + raw[i + 1].length + 32;
  return size;
}

function internalError(): Response {
  return new NativeResponse("Internal Server Error", { status: 500 });
}

function respondError(state: ServerState, error: unknown): Response | Promise<Response> {
  if (state.onError === undefined) return internalError();
  try {
    return state.onError(error);
  } catch {
    return internalError();
  }
}

/**
 * Answers a request whose head `head` carries the target as `url`: runs the app with the
 * request's `Request` (lazy where Node allows it), or answers itself when the target or Host is
 * malformed (400), an HTTP/2 header list is over the limit (431) or undici cannot represent the
 * request (400). The app's result may reject (settle() handles that). Given `done`, a Weft app
 * may instead return `undefined` and call `done` with its response later. `mark` sees an
 * upgrade's request before the app does (_node_upgrade.ts marks it for upgradeWebSocket()).
 */
export function handle(
  state: ServerState,
  head: RequestHead,
  host: string | undefined | null,
  input: BodySource | null,
  closer: Closable,
  info: ConnInfo,
  mark: Mark | undefined,
  done?: (response: Response) => void,
): Response | Promise<Response> | undefined {
  // 1. the request line and header block, as far as Node has not judged them already
  const url = urlOf(head.url, host, state);
  if (url === undefined) {
    return problem({ status: 400, detail: "The request target or Host is malformed" });
  }
  if (head.http2 && headerBytes(head.raw) > MAX_HEADER_BYTES) return problem({ status: 431 });
  if (head.url.charCodeAt(0) === 47 /* / */) head.target = head.url;
  head.url = url;
  // 2. the Request
  let request: Request;
  try {
    request = toRequest(head, input, closer);
  } catch {
    return problem({ status: 400, detail: "The request cannot be represented" });
  }
  // 3. the app
  mark?.(request, info);
  try {
    const answer = state.answer;
    return done && answer ? answer(request, info, done) : state.fetch(request, info);
  } catch (error) {
    return respondError(state, error);
  }
}

/** The connection facts of a request that came over `socket` to the server of `state`. */
export function connInfo(socket: Socket | null | undefined, state: ServerState): ConnInfo {
  return new NodeConnInfo(socket, state);
}

// HTTP/1.1: the facts of a connection, made once for all its requests.
function socketInfo(socket: Socket | null, state: ServerState): ConnInfo {
  if (socket === null) return new NodeConnInfo(socket, state);
  const owner = socket as Socket & { [INFO]?: NodeConnInfo };
  return owner[INFO] ??= new NodeConnInfo(socket, state);
}

/** Calls `done` with the app's response, whatever the app did. */
export function settle(
  state: ServerState,
  result: Response | Promise<Response>,
  done: (response: Response) => void,
): void {
  if (!(result instanceof Promise)) return done(checked(result));
  result.then((response) => done(checked(response)), (error) => {
    const fallback = respondError(state, error);
    if (fallback instanceof Promise) {
      fallback.then((response) => done(checked(response)), () => done(internalError()));
    } else done(checked(fallback));
  });
}

/** The app's response, or a 500 when the app answered with something else. */
export function checked(response: unknown): Response {
  return isResponse(response) ? response : internalError();
}

// handle() for a node:http request; `mark` is given for an upgrade.
function dispatch(
  state: ServerState,
  incoming: http.IncomingMessage,
  method: string,
  closer: Closable,
  mark: Mark | undefined,
  done?: (response: Response) => void,
): Response | Promise<Response> | undefined {
  let raw = incoming.rawHeaders;
  // RFC 9110 §7.8: an Upgrade in an HTTP/1.0 request is ignored (and RFC 6455 §4.1 asks for
  // HTTP/1.1), so such a request reaches the app without it and is never upgraded.
  if (mark !== undefined && (incoming.httpVersionMajor < 1 || incoming.httpVersionMinor < 1)) {
    raw = raw.filter((_, i) => !/^(?:upgrade|connection)$/i.test(raw[i - (i % 2)]));
    mark = undefined;
  }
  return handle(
    state,
    { method, url: incoming.url ?? "/", target: undefined, raw, http2: false },
    hostOf(raw),
    hasBody(incoming, method) ? incoming : null,
    closer,
    socketInfo(incoming.socket, state),
    mark,
    done,
  );
}

/** The 'request' listener of every server, for HTTP/1.1 (bound to its state). */
export function onRequest(
  this: ServerState,
  incoming: http.IncomingMessage,
  res: http.ServerResponse,
): void {
  const method = incoming.method ?? "GET";
  const done = (response: Response) => send(response, res as Writer, method, this.closing, this);
  const result = dispatch(this, incoming, method, res, undefined, done);
  if (result instanceof Promise) settle(this, result, done);
  else if (result) done(checked(result));
}

/**
 * The 'checkContinue' listener (bound to its state): a request with `Expect: 100-continue` gets
 * its 100 only when its response is the one the connection is writing. Behind a pipelined
 * request, node:http would write the 100 after that request's response, where a client reads
 * it as a stray interim answer; RFC 9110 §10.1.1 lets a server omit it.
 */
export function onCheckContinue(
  this: ServerState,
  incoming: http.IncomingMessage,
  res: http.ServerResponse,
): void {
  const socket = incoming.socket;
  // node:http has assigned this response or an earlier one to the socket by now.
  httpMessage = socket !== null && "_httpMessage" in socket;
  if (writing(socket) === res) res.writeContinue();
  onRequest.call(this, incoming, res);
}

// Whether the last 'checkContinue' found node:http's `_httpMessage` on its socket.
let httpMessage: boolean | undefined;

/**
 * Whether node:http's `_httpMessage` was on the socket of the last request with
 * `Expect: 100-continue` (`undefined` before the first). Read by tests/node/internals.test.ts
 * only (bundlers drop it).
 */
export function httpMessageLive(): boolean | undefined {
  return httpMessage;
}

// The response node:http is writing on a socket (`null` or absent when none): its private
// `_httpMessage`, read where an answer must not go out ahead of that response.
function writing(socket: Socket | null): http.ServerResponse | null | undefined {
  return (socket as { _httpMessage?: http.ServerResponse | null } | null)?._httpMessage;
}

/** Counts `socket` among the HTTP/1.1 connections of `state` until it closes. */
export function trackH1(state: ServerState, socket: Socket): void {
  state.h1.add(socket);
  socket.once("close", () => state.h1.delete(socket));
}

/**
 * Shutdown: closes the HTTP/1.1 connections that have no response under way, idle or half way
 * through a request head. node:http stops timing heads once the server closes, so a client
 * sending one slowly would otherwise hold shutdown() until it gave up; Deno.serve closes them
 * too. A request whose head arrived has its response assigned to the socket, and is left to
 * finish.
 */
export function dropStalled(state: ServerState): void {
  for (const socket of state.h1) if (!writing(socket)) socket.destroy();
}

/** The 'upgrade' listener of every server (bound to its state). */
export function onUpgrade(
  this: ServerState,
  incoming: http.IncomingMessage,
  socket: Socket,
  head: Buffer,
): void {
  this.h1.delete(socket); // a WebSocket now, which shutdown() closes with 1001
  socket.on("error", ignore); // ECONNRESET before ws takes over must not crash the process
  const module = upgrades.value;
  if (module !== undefined) module.onUpgrade(this, UPGRADING, incoming, socket, head);
  else {
    // The first upgrade waits for the module; node:http leaves the socket paused meanwhile.
    upgrades.load().then(
      (module) => module.onUpgrade(this, UPGRADING, incoming, socket, head),
      () => {
        const refuse = () => answerAndClose(incoming, socket, problem({ status: 500 }));
        const busy = writing(socket); // a pipelined response goes first
        if (busy) busy.once("close", refuse);
        else refuse();
      },
    );
  }
}

/**
 * Answers a request whose connection node:http has handed over (an upgrade) over HTTP/1.1, then
 * closes the connection (both ways: a client that keeps its half open cannot hold it).
 */
export function answerAndClose(
  incoming: http.IncomingMessage,
  socket: Socket,
  response: Response,
): void {
  if (socket.destroyed || writing(socket)) {
    socket.destroy();
    return;
  }
  const res = new http.ServerResponse(incoming);
  res.shouldKeepAlive = false;
  res.assignSocket(socket);
  res.once("finish", () => socket.destroySoon());
  send(response, res as Writer, incoming.method ?? "GET", true);
}

function ignore(): void {}

// Upgrades are answered by _node_upgrade.ts, loaded on the first one: apps that never see an
// Upgrade header do not load it, and bundlers that split code keep it out of the entry chunk.
// What it uses of the eager modules is handed over, not imported (see _node_h2.ts).
const UPGRADING: Upgrading<ServerState> = {
  answerAndClose,
  dispatch,
  lazy,
  problem,
  settle,
  writing,
};
const upgrades = lazy("the upgrade handler", () => import("./_node_upgrade.ts"));

/**
 * Sets the HTTP/1.1 limits of `state` (before the server listens: node:http starts checking
 * then) and answers Node's own client errors with problem+json.
 */
export function listenH1Limits(
  server: http.Server | http2.Http2SecureServer,
  state: ServerState,
): void {
  const { headersTimeout, requestTimeout, keepAliveTimeout } = state;
  const shortest = Math.min(headersTimeout || Infinity, requestTimeout || Infinity);
  Object.assign(server, {
    headersTimeout,
    requestTimeout,
    keepAliveTimeout,
    maxHeaderSize: MAX_HEADER_BYTES,
    connectionsCheckingInterval: Math.max(Math.min(CHECK_INTERVAL_MS, Math.ceil(shortest / 4)), 1),
  });
  server.on("clientError", (error: NodeJS.ErrnoException, socket: Socket) => {
    // The parser goes on reading what the client still sends and may fail again on it: the
    // answer below is on its way, and destroying the socket now would reset the connection
    // before the client read it (curl: "Connection reset by peer" instead of the 431).
    if (socket.writableEnded) return;
    if (!socket.writable || writing(socket)) {
      socket.destroy();
      return;
    }
    // Node answers these without a body; Weft's built-in errors are problem+json (decision 3).
    // Only the HTTP parser's errors get an answer: on the TLS server, node:http2 reports a
    // failed or timed-out handshake here too, and a reply written to a socket that never
    // finished its handshake is never sent, so the socket would stay open.
    const code = error.code ?? "";
    const status = code === "HPE_HEADER_OVERFLOW"
      ? 431
      : code === "ERR_HTTP_REQUEST_TIMEOUT"
      ? 408
      : code.startsWith("HPE_")
      ? 400
      : 0;
    if (status === 0) {
      socket.destroy();
      return;
    }
    const body = problemBody(status);
    socket.end(
      `HTTP/1.1 ${status} ${http.STATUS_CODES[status]}\r\n` +
        `content-type: application/problem+json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n` +
        `connection: close\r\n\r\n${body}`,
    );
    // end() leaves the socket open until the client closes its side: a slowloris client that
    // sends on without reading would hold it for ever. It gets LINGER_MS to read the answer.
    const linger = setTimeout(() => socket.destroy(), LINGER_MS);
    socket.once("close", () => clearTimeout(linger));
  });
}

/**
 * The body of `problem({ status })`, for answers written without a Response: Node's client
 * errors, and the 500 of an HTTP/2 stream whose server cannot be loaded.
 */
export function problemBody(status: number): string {
  return JSON.stringify({ type: "about:blank", title: http.STATUS_CODES[status], status });
}

/**
 * Plain port: looks at the first bytes of each connection; the HTTP/2 preface goes to the h2c
 * server (which reads what was already taken off the socket), anything else to node:http.
 */
export function sniff(
  h1: http.Server,
  h2c: http2.Http2Server,
  state: ServerState,
): void {
  const [h1Listener] = h1.listeners(
    "connection",
  ) as ((socket: Socket) => void)[];
  h1.removeAllListeners("connection");
  h1.on("connection", (socket: Socket) => {
    state.sniffing.add(socket);
    let seen: Buffer = Buffer.alloc(0);
    const timeout = state.headersTimeout;
    const timer = timeout > 0 ? setTimeout(() => socket.destroy(), timeout) : undefined;
    const decide = (chunk: Buffer) => {
      seen = seen.length === 0 ? chunk : Buffer.concat([seen, chunk]) as Buffer;
      const n = Math.min(seen.length, H2_PREFACE.length);
      const h2 = seen.subarray(0, n).equals(H2_PREFACE.subarray(0, n));
      if (h2 && n < H2_PREFACE.length) return; // wait for the rest of the preface
      clearTimeout(timer);
      state.sniffing.delete(socket);
      socket.off("data", decide);
      socket.off("close", forget);
      socket.pause();
      socket.unshift(seen);
      // Http2Session feeds what is buffered on the socket to nghttp2 before reading more. The
      // socket was accepted by node:http, which keeps it half open when the client ends its
      // side; node:http2 counts on the socket closing then, or it would never learn that the
      // client left (a stream open for ever, the socket in CLOSE-WAIT, shutdown() held).
      if (h2) {
        socket.allowHalfOpen = false;
        h2c.emit("connection", socket);
      } else {
        // node:http's parser takes the socket over (reading natively from then on) after this
        // read callback has returned: taken over inside it, the parser's pause() for
        // backpressure would no longer stop the socket.
        trackH1(state, socket);
        process.nextTick(() => {
          h1Listener.call(h1, socket);
          socket.resume();
        });
      }
    };
    const forget = () => {
      clearTimeout(timer);
      state.sniffing.delete(socket);
    };
    socket.on("data", decide);
    socket.once("close", forget);
    socket.on("error", () => {});
  });
}

// Whether the last bind to an IP address in the primary process found `_listen2`.
let listen2: boolean | undefined;

/**
 * Whether the last bind to an IP address found net.Server's `_listen2` (`undefined` before the
 * first). Read by tests/node/internals.test.ts only (bundlers drop it).
 */
export function listen2Live(): boolean | undefined {
  return listen2;
}

/**
 * Binds now, like Deno.serve, so that `addr` (the real port when 0 was asked for) is known when
 * serve() returns: `listen()` always looks the host up first, even an IP literal, which defers
 * the bind to a later tick. `_listen2` is the bind step `listen()` ends in (net.js calls it for
 * every primary process); elsewhere (a host name, a cluster worker) `listen()` runs and `addr`
 * is known from onListen on. A failed bind is reported as an 'error' on the next tick either way.
 */
export function listen(
  server: http.Server | http2.Http2SecureServer,
  port: number,
  host: string,
): void {
  const bind = (server as unknown as { _listen2?: (...args: unknown[]) => void })._listen2;
  const family = isIP(host);
  if (family !== 0 && cluster.isPrimary) {
    listen2 = typeof bind === "function";
    if (listen2) {
      bind!.call(server, host, port, family, 511, undefined, 0);
      return;
    }
  }
  server.listen({ port, host });
}
