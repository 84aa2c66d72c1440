/**
 * The Node.js runtime adapter: the only module of Weft's npm build that touches `node:http`,
 * `node:http2` and `ws`. `scripts/build_npm.ts` puts it in place of `deno.ts`; `deno check
 * lib/server/node.ts` proves that both satisfy {@linkcode Runtime}.
 *
 * Servers: with `cert` and `key`, one `node:http2` `createSecureServer({ allowHTTP1: true })`
 * speaks HTTP/2 and HTTP/1.1 on one port (ALPN). Without TLS, a `node:http` server answers
 * HTTP/1.1, and connections that open with the HTTP/2 preface (h2c with prior knowledge,
 * RFC 9113 §3.3) are handed to a `node:http2` server. Bodies stream both ways with
 * backpressure; a client that goes away aborts `request.signal` and cancels the response body.
 *
 * Limits, set deliberately (Node's own defaults differ or do not exist for HTTP/2):
 *
 * | limit | value | why |
 * | --- | --- | --- |
 * | request header block | 16 KiB → 431 | Node's default and hyper's HTTP/2 limit (Deno answers 431 over HTTP/2 past 16 KiB) |
 * | HTTP/2 header list, hard | 64 KiB → stream refused | past it nghttp2 refuses the stream, as Deno does |
 * | `headersTimeout` | 30 s → 408 | hyper's header read timeout; stops slowloris headers |
 * | `requestTimeout` | 300 s → 408 | Node's default: a whole request, body included |
 * | `keepAliveTimeout` | 65 s | longer than common load balancer idle timeouts (60 s), so a proxy never reuses a connection the server is closing |
 * | idle HTTP/2 session | 65 s | closed with GOAWAY only when no stream is open |
 * | WebSocket close on shutdown | 2 s | after the 1001 close frame, a peer that does not answer is cut |
 *
 * @module
 */
import { Buffer } from "node:buffer";
import { closeSync, openSync, promises as fsp, readSync, realpathSync, statSync } from "node:fs";
import type { BigIntStats } from "node:fs";
import type { FileHandle } from "node:fs/promises";
import * as http from "node:http";
import * as http2 from "node:http2";
import cluster from "node:cluster";
import { isIP, type Socket } from "node:net";
import process from "node:process";
// @ts-types="@types/ws"
import { type WebSocket as WsSocket, WebSocketServer } from "ws";
import { problem } from "../http/problem.ts";
import type {
  ConnInfo,
  FetchFunction,
  FileStat,
  OpenFile,
  Runtime,
  RuntimeFs,
  RuntimeServeOptions,
  RuntimeServer,
  RuntimeSocket,
  RuntimeSocketEvents,
  RuntimeUpgradeOptions,
  ServerAddr,
  SyncFile,
} from "./types.ts";

const MAX_HEADER_BYTES = 16_384;
const MAX_H2_HEADER_LIST_BYTES = 65_536;
const HEADERS_TIMEOUT_MS = 30_000;
const REQUEST_TIMEOUT_MS = 300_000;
const KEEP_ALIVE_TIMEOUT_MS = 65_000;
const WS_CLOSE_GRACE_MS = 2_000;
const H2_PREFACE = Buffer.from("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", "latin1");
// RFC 9113 §8.2.2: connection-specific fields are malformed in HTTP/2 (and Node throws on them).
const H2_FORBIDDEN = new Set([
  "connection",
  "keep-alive",
  "proxy-connection",
  "transfer-encoding",
  "upgrade",
]);
// The 101 response's own fields, which `ws` writes.
const WS_OWN = new Set([
  "connection",
  "upgrade",
  "sec-websocket-accept",
  "sec-websocket-protocol",
]);
const HOST = /^(?:[\w.~!$&'()*+,;=%-]+|\[[\da-fA-F:.]+\])(?::\d{1,5})?$/;

type Incoming = http.IncomingMessage | http2.Http2ServerRequest;
type Outgoing = http.ServerResponse | http2.Http2ServerResponse;
type Closable = {
  once(event: "close", fn: () => void): unknown;
  readonly destroyed: boolean;
};
// What send() uses of Node's two response classes (their overloads do not unite).
interface Writer {
  readonly headersSent: boolean;
  readonly writableFinished: boolean;
  readonly stream?: unknown;
  writeHead(
    status: number,
    headers: Record<string, string | string[]>,
  ): unknown;
  write(chunk: Uint8Array): boolean;
  end(chunk?: string | Uint8Array): unknown;
  destroy(): unknown;
  on(event: "drain" | "close", fn: () => void): unknown;
  once(event: "close", fn: () => void): unknown;
  off(event: "drain" | "close", fn: () => void): unknown;
}

// ---------------------------------------------------------------------------------------------
// Requests: a Node request as a Web Request, built lazily

const INCOMING = Symbol("weft.incoming");
const URL_STRING = Symbol("weft.url");
const HEADERS = Symbol("weft.headers");
const BODY = Symbol("weft.body");
const REAL = Symbol("weft.real");
const CONTROLLER = Symbol("weft.controller");
const CLOSER = Symbol("weft.closer");
const TO_REAL = Symbol("weft.toReal");

/**
 * A `Request` whose method, URL, headers, body and signal come straight from Node's request;
 * anything else (`json()`, `clone()`, `new Request(request)` …) builds the real `Request` once
 * and delegates to it. Building a `Request` costs more than the rest of a small request in
 * Node (undici parses the URL, copies the headers and wires an `AbortSignal`), so routing on
 * method and path never builds one.
 */
class NodeRequest {
  [INCOMING]: Incoming;
  [URL_STRING]: string;
  [CLOSER]: Closable;
  [HEADERS]: Headers | undefined = undefined;
  [BODY]: ReadableStream<Uint8Array> | null | undefined = undefined;
  [REAL]: Request | undefined = undefined;
  [CONTROLLER]: AbortController | undefined = undefined;

  constructor(incoming: Incoming, url: string, closer: Closable) {
    this[INCOMING] = incoming;
    this[URL_STRING] = url;
    this[CLOSER] = closer;
  }

  get method(): string {
    return this[INCOMING].method ?? "GET";
  }

  get url(): string {
    return this[URL_STRING];
  }

  get headers(): Headers {
    return this[REAL]?.headers ?? (this[HEADERS] ??= headersOf(this[INCOMING]));
  }

  get body(): ReadableStream<Uint8Array> | null {
    if (this[REAL] !== undefined) return this[REAL].body;
    if (this[BODY] === undefined) {
      this[BODY] = bodyOf(this[INCOMING], this.method);
    }
    return this[BODY];
  }

  get signal(): AbortSignal {
    return abortControllerOf(this).signal;
  }

  [TO_REAL](): Request {
    if (this[REAL] !== undefined) return this[REAL];
    const body = this.body;
    return this[REAL] = new Request(this[URL_STRING], {
      method: this.method,
      headers: this.headers,
      body,
      signal: this.signal,
      ...(body === null ? {} : { duplex: "half" }),
    } as RequestInit);
  }
}

function abortControllerOf(request: NodeRequest): AbortController {
  let controller = request[CONTROLLER];
  if (controller === undefined) {
    controller = request[CONTROLLER] = new AbortController();
    const closer = request[CLOSER];
    const abort = () => {
      const out = closer as Partial<Outgoing>;
      if (out.writableFinished !== true) {
        controller!.abort(new Error("The client went away"));
      }
    };
    if (closer.destroyed) abort();
    else closer.once("close", abort);
  }
  return controller;
}

// Every other member of Request.prototype delegates to the real Request; so do undici's
// internal slots (own symbols of a Request), which is what makes `new Request(request)` and
// `fetch(request)` accept a NodeRequest. When the slots are not reachable (a Node whose undici
// keeps them in private fields), LAZY is false and every request is built eagerly instead.
const OWN = new Set([
  "constructor",
  "method",
  "url",
  "headers",
  "body",
  "signal",
]);
for (const name of Object.getOwnPropertyNames(Request.prototype)) {
  if (OWN.has(name)) continue;
  const descriptor = Object.getOwnPropertyDescriptor(Request.prototype, name)!;
  Object.defineProperty(
    NodeRequest.prototype,
    name,
    typeof descriptor.value === "function"
      ? {
        value: function (this: NodeRequest, ...args: unknown[]) {
          const real = this[TO_REAL]() as unknown as Record<
            string,
            (...a: unknown[]) => unknown
          >;
          return real[name](...args);
        },
        writable: true,
        configurable: true,
      }
      : {
        get(this: NodeRequest) {
          return (this[TO_REAL]() as unknown as Record<string, unknown>)[name];
        },
        configurable: true,
      },
  );
}
for (
  const slot of Object.getOwnPropertySymbols(new Request("http://localhost/"))
) {
  Object.defineProperty(NodeRequest.prototype, slot, {
    get(this: NodeRequest) {
      return (this[TO_REAL]() as unknown as Record<symbol, unknown>)[slot];
    },
    configurable: true,
  });
}
Object.setPrototypeOf(NodeRequest.prototype, Request.prototype);

const LAZY = (() => {
  try {
    const closer = { once() {}, destroyed: false };
    const probe = new NodeRequest(
      {
        method: "GET",
        rawHeaders: ["x-probe", "1"],
        httpVersionMajor: 1,
      } as unknown as Incoming,
      "http://localhost/probe",
      closer,
    ) as unknown as Request;
    const copy = new Request(probe, { headers: { "x-copy": "2" } });
    return copy.url === "http://localhost/probe" && copy.method === "GET" &&
      copy.headers.get("x-copy") === "2" && probe instanceof Request;
  } catch {
    return false;
  }
})();

function headersOf(incoming: Incoming): Headers {
  const headers = new Headers();
  const raw = incoming.rawHeaders;
  if (incoming.httpVersionMajor === 2) {
    for (let i = 0; i < raw.length; i += 2) {
      const name = raw[i];
      // Pseudo-headers are not fields; cookie crumbs are joined with "; " (RFC 9113 §8.2.3).
      if (name.charCodeAt(0) === 58 || name === "cookie") continue;
      headers.append(name, raw[i + 1]);
    }
    const cookie = incoming.headers.cookie;
    if (cookie !== undefined) headers.set("cookie", cookie);
  } else {
    for (let i = 0; i < raw.length; i += 2) headers.append(raw[i], raw[i + 1]);
  }
  return headers;
}

function hasBody(incoming: Incoming, method: string): boolean {
  if (method === "GET" || method === "HEAD") return false;
  if (incoming.httpVersionMajor === 2) {
    return !(incoming as http2.Http2ServerRequest).stream.endAfterHeaders;
  }
  const headers = incoming.headers;
  return headers["transfer-encoding"] !== undefined ||
    (headers["content-length"] !== undefined &&
      headers["content-length"] !== "0");
}

// The request body as a byte stream: Node's stream pauses whenever the Web stream's queue is
// full and resumes when it is pulled, so a slow reader slows the client down.
function bodyOf(
  incoming: Incoming,
  method: string,
): ReadableStream<Uint8Array> | null {
  if (!hasBody(incoming, method)) return null;
  let settled = false;
  return new ReadableStream<Uint8Array>({
    start(controller) {
      incoming.on("data", (chunk: Buffer) => {
        if (settled) return;
        controller.enqueue(
          new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength),
        );
        if ((controller.desiredSize ?? 0) <= 0) incoming.pause();
      });
      incoming.once("end", () => {
        if (settled) return;
        settled = true;
        controller.close();
      });
      const fail = (error?: unknown) => {
        if (settled) return;
        settled = true;
        controller.error(
          error ?? new Error("The client closed the connection mid-body"),
        );
      };
      incoming.once("error", fail);
      incoming.once("close", () => {
        if (!incoming.complete) fail();
      });
      incoming.pause();
    },
    pull() {
      incoming.resume();
    },
    cancel() {
      // Discard the rest; Node keeps the connection usable (HTTP/1.1) or resets the stream.
      settled = true;
      incoming.resume();
    },
  }, new ByteLengthQueuingStrategy({ highWaterMark: 65_536 }));
}

// ---------------------------------------------------------------------------------------------
// Responses: a Web Response onto Node's response

// Node's undici keeps the source a Response body was made from (a string or bytes) in an
// internal slot. Where that slot is reachable (found by probing, once), such a body goes out in
// one write with a Content-Length, skipping two reads through the stream machinery per
// response; anywhere else the stream path does the same job.
const RESPONSE_STATE: symbol | undefined = (() => {
  try {
    const probe = new Response("weft");
    for (const key of Object.getOwnPropertySymbols(probe)) {
      const state = (probe as unknown as Record<symbol, { body?: BodyState }>)[key];
      if (
        state?.body?.source === "weft" &&
        state.body.stream instanceof ReadableStream
      ) {
        return key;
      }
    }
  } catch {
    // no fast path
  }
  return undefined;
})();

interface BodyState {
  source: unknown;
  stream: ReadableStream<Uint8Array>;
}

function sourceOf(response: Response): string | Uint8Array | undefined {
  if (RESPONSE_STATE === undefined) return undefined;
  const body = (response as unknown as Record<symbol, { body?: BodyState } | undefined>)[
    RESPONSE_STATE
  ]?.body;
  if (
    body === undefined || body === null || body.stream.locked ||
    response.bodyUsed
  ) {
    return undefined;
  }
  const source = body.source;
  return typeof source === "string" || source instanceof Uint8Array ? source : undefined;
}

function nodeHeaders(
  response: Response,
  h2: boolean,
  close: boolean,
): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  let cookies: string[] | undefined;
  for (const [name, value] of response.headers) {
    if (name === "set-cookie") (cookies ??= []).push(value);
    else if (!h2 || !H2_FORBIDDEN.has(name)) out[name] = value;
  }
  if (cookies !== undefined) out["set-cookie"] = cookies;
  if (close && !h2) out.connection = "close";
  return out;
}

function drained(res: Writer): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off("drain", done);
      res.off("close", done);
      resolve();
    };
    res.on("drain", done);
    res.on("close", done);
  });
}

function nextTurn(): Promise<undefined> {
  return new Promise((resolve) => setImmediate(resolve, undefined));
}

async function send(
  response: Response,
  out: Outgoing,
  method: string,
  closing: boolean,
) {
  const res = out as unknown as Writer;
  const h2 = res.stream !== undefined;
  const status = response.status;
  const headers = nodeHeaders(response, h2, closing);
  const body = response.body;
  // 1. no body: HEAD, 204/304, or none at all
  if (body === null || method === "HEAD" || status === 204 || status === 304) {
    if (body !== null) body.cancel().catch(() => {});
    else if (method !== "HEAD" && status !== 204 && status !== 304) {
      headers["content-length"] ??= "0";
    }
    res.writeHead(status, headers);
    res.end();
    return;
  }
  // 2. a string or bytes: one write, with its Content-Length (writeHead fixes the head, so
  //    Node would otherwise fall back to chunked encoding)
  const source = sourceOf(response);
  if (source !== undefined) {
    headers["content-length"] ??= String(
      typeof source === "string" ? Buffer.byteLength(source) : source.byteLength,
    );
    res.writeHead(status, headers);
    res.end(source);
    return;
  }
  // 3. a stream: read, write, wait for 'drain' when Node's buffer is full
  const reader = body.getReader();
  let gone = false;
  const onClose = () => {
    if (res.writableFinished) return;
    gone = true;
    reader.cancel(new Error("The client went away")).catch(() => {});
  };
  res.once("close", onClose);
  try {
    const first = await reader.read();
    if (first.done) {
      res.writeHead(status, headers);
      res.end();
      return;
    }
    // A body that ends right after its first chunk goes out with a Content-Length; one that
    // goes on (server-sent events) is not held back waiting for its second chunk.
    let pending = reader.read();
    const second = await Promise.race([pending, nextTurn()]);
    if (second !== undefined && second.done) {
      headers["content-length"] ??= String(first.value.byteLength);
      res.writeHead(status, headers);
      res.end(first.value);
      return;
    }
    res.writeHead(status, headers);
    if (!res.write(first.value)) await drained(res);
    for (;;) {
      const next = await pending;
      if (next.done || gone) break;
      if (!res.write(next.value)) await drained(res);
      pending = reader.read();
    }
    if (!gone) res.end();
  } catch {
    // The body failed midway (or the client left): abort, so the client sees a cut body.
    if (!res.headersSent && !gone) {
      res.writeHead(500, { "content-length": "0" });
      res.end();
    } else res.destroy();
  } finally {
    res.off("close", onClose);
  }
}

// ---------------------------------------------------------------------------------------------
// Serving

interface Upgrade {
  incoming: http.IncomingMessage;
  socket: Socket;
  head: Buffer;
  state: ServerState;
}

interface PendingSocket {
  upgrade: Upgrade;
  options: RuntimeUpgradeOptions;
  bind(ws: WsSocket): void;
}

// An upgrade request is found by the request itself, or by the ConnInfo handed out with it
// (`options.info`), which still works when middleware replaced `ctx.req`.
const UPGRADE = Symbol("weft.upgrade");
type UpgradeInfo = ConnInfo & { [UPGRADE]: Upgrade };
const UPGRADES = new WeakMap<object, Upgrade>();
const PENDING = new WeakMap<Response, PendingSocket>();
const SHUTDOWN_REASON = "Server shutting down";

class ServerState {
  closing = false;
  readonly sessions = new Set<http2.ServerHttp2Session>();
  readonly sockets = new Map<RuntimeSocket, WsSocket>();
  readonly sniffing = new Set<Socket>();
  constructor(
    readonly fetch: FetchFunction,
    readonly onError: RuntimeServeOptions["onError"],
    readonly origin: { scheme: string; fallbackHost: string },
  ) {}
}

function connInfo(socket: Socket | null | undefined): ConnInfo {
  return socket?.remoteAddress === undefined ? {} : {
    remoteAddr: {
      hostname: socket.remoteAddress,
      port: socket.remotePort ?? 0,
    },
  };
}

function urlOf(incoming: Incoming, state: ServerState): string | undefined {
  const target = incoming.url ?? "/";
  if (target.charCodeAt(0) !== 47 /* / */) {
    return /^https?:\/\//i.test(target) ? target : undefined; // absolute-form (RFC 9112 §3.2.2)
  }
  const host = incoming.httpVersionMajor === 2
    ? (incoming as http2.Http2ServerRequest).authority ?? incoming.headers.host
    : incoming.headers.host;
  if (host === undefined || host === "") {
    return `${state.origin.scheme}://${state.origin.fallbackHost}${target}`;
  }
  return HOST.test(host) ? `${state.origin.scheme}://${host}${target}` : undefined;
}

function headerBytes(incoming: Incoming): number {
  // RFC 9113 §6.5.2: the size of a field is its name, its value and 32 octets.
  let size = 0;
  const raw = incoming.rawHeaders;
  for (let i = 0; i < raw.length; i += 2) {
    size += raw[i].length + raw[i + 1].length + 32;
  }
  return size;
}

function respondError(
  state: ServerState,
  error: unknown,
): Response | Promise<Response> {
  if (state.onError === undefined) {
    return new Response("Internal Server Error", { status: 500 });
  }
  try {
    return state.onError(error);
  } catch {
    return new Response("Internal Server Error", { status: 500 });
  }
}

function dispatch(
  state: ServerState,
  incoming: Incoming,
  closer: Closable,
  socket: Socket | null | undefined,
  upgrade: Upgrade | undefined,
  out: (response: Response) => void,
): void {
  // 1. the request line and header block, as far as Node has not judged them already
  const url = urlOf(incoming, state);
  if (url === undefined) {
    return out(
      problem({
        status: 400,
        detail: "The request target or Host is malformed",
      }),
    );
  }
  if (
    incoming.httpVersionMajor === 2 && headerBytes(incoming) > MAX_HEADER_BYTES
  ) {
    return out(problem({ status: 431 }));
  }
  // 2. the Request, lazy where Node allows it
  let request: Request;
  try {
    const lazy = new NodeRequest(incoming, url, closer);
    request = LAZY ? lazy as unknown as Request : lazy[TO_REAL]();
  } catch {
    return out(
      problem({ status: 400, detail: "The request cannot be represented" }),
    );
  }
  const info = connInfo(socket);
  if (upgrade !== undefined) {
    UPGRADES.set(request, upgrade);
    (info as UpgradeInfo)[UPGRADE] = upgrade;
  }
  // 3. the app
  let result: Response | Promise<Response>;
  try {
    result = state.fetch(request, info);
  } catch (error) {
    result = respondError(state, error);
  }
  if (result instanceof Promise) {
    result.then(undefined, (error) => respondError(state, error)).then(
      out,
      () => out(new Response("Internal Server Error", { status: 500 })),
    );
  } else out(result);
}

function onRequest(this: ServerState, incoming: Incoming, res: Outgoing): void {
  const method = incoming.method ?? "GET";
  dispatch(
    this,
    incoming,
    res,
    incoming.socket as Socket,
    undefined,
    (response) => {
      if (!(response instanceof Response)) {
        response = new Response("Internal Server Error", { status: 500 });
      }
      send(response, res, method, this.closing).catch(() => res.destroy());
    },
  );
}

function onUpgrade(
  this: ServerState,
  incoming: http.IncomingMessage,
  socket: Socket,
  head: Buffer,
): void {
  socket.on("error", () => {}); // ECONNRESET before ws takes over must not crash the process
  const upgrade: Upgrade = { incoming, socket, head, state: this };
  dispatch(this, incoming, socket, socket, upgrade, (response) => {
    const pending = response instanceof Response ? PENDING.get(response) : undefined;
    if (pending !== undefined && pending.upgrade === upgrade) {
      return acceptWebSocket(upgrade, response, pending);
    }
    // Not a WebSocket (an h2c upgrade offer, or the app refused): answer over HTTP/1.1 and close.
    const res = new http.ServerResponse(incoming);
    res.shouldKeepAlive = false;
    res.assignSocket(socket);
    res.once("finish", () => socket.destroySoon());
    if (!(response instanceof Response)) {
      response = new Response("Internal Server Error", { status: 500 });
    }
    send(response, res, incoming.method ?? "GET", true).catch(() => socket.destroy());
  });
}

function acceptWebSocket(
  upgrade: Upgrade,
  response: Response,
  pending: PendingSocket,
): void {
  const { incoming, socket, head } = upgrade;
  const wss = new WebSocketServer({
    noServer: true,
    maxPayload: pending.options.maxMessageBytes,
    perMessageDeflate: false,
    clientTracking: false,
    handleProtocols: () => pending.options.protocol ?? false,
  });
  wss.on("headers", (lines: string[]) => {
    for (const [name, value] of response.headers) {
      if (!WS_OWN.has(name)) lines.push(`${name}: ${value}`);
    }
  });
  wss.handleUpgrade(incoming, socket, head, (ws) => pending.bind(ws));
}

function listenH1Limits(server: http.Server | http2.Http2SecureServer): void {
  const target = server as unknown as Record<string, number>;
  target.headersTimeout = HEADERS_TIMEOUT_MS;
  target.requestTimeout = REQUEST_TIMEOUT_MS;
  target.keepAliveTimeout = KEEP_ALIVE_TIMEOUT_MS;
  target.maxHeaderSize = MAX_HEADER_BYTES;
  server.on("clientError", (error: NodeJS.ErrnoException, socket: Socket) => {
    if (
      !socket.writable || (socket as { _httpMessage?: unknown })._httpMessage
    ) {
      socket.destroy();
      return;
    }
    // Node answers these without a body; Weft's built-in errors are problem+json (decision 3).
    const status = error.code === "HPE_HEADER_OVERFLOW"
      ? 431
      : error.code === "ERR_HTTP_REQUEST_TIMEOUT"
      ? 408
      : error.code === "ECONNRESET" || error.code === "EPIPE"
      ? 0
      : 400;
    if (status === 0) {
      socket.destroy();
      return;
    }
    const body = JSON.stringify({
      type: "about:blank",
      title: http.STATUS_CODES[status],
      status,
    });
    socket.end(
      `HTTP/1.1 ${status} ${http.STATUS_CODES[status]}\r\n` +
        `content-type: application/problem+json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n` +
        `connection: close\r\n\r\n${body}`,
    );
  });
}

function trackSessions(
  server: http2.Http2Server | http2.Http2SecureServer,
  state: ServerState,
) {
  server.on("session", (session: http2.ServerHttp2Session) => {
    state.sessions.add(session);
    session.once("close", () => state.sessions.delete(session));
    if (state.closing) session.close();
  });
  // Idle sessions: closed gracefully after KEEP_ALIVE_TIMEOUT_MS without a frame, unless a
  // stream is still open (a quiet event stream). The 'timeout' event also fires for HTTP/1.1
  // sockets of the TLS server; with a listener, Node leaves those to keepAliveTimeout.
  const open = new WeakMap<http2.ServerHttp2Session, number>();
  server.on("stream", (stream: http2.ServerHttp2Stream) => {
    const session = stream.session as http2.ServerHttp2Session | undefined;
    if (session === undefined) return;
    open.set(session, (open.get(session) ?? 0) + 1);
    stream.once("close", () => open.set(session, (open.get(session) ?? 1) - 1));
  });
  server.setTimeout(KEEP_ALIVE_TIMEOUT_MS);
  server.on("timeout", (target: unknown) => {
    const session = target as http2.ServerHttp2Session;
    if (typeof session?.goaway !== "function" || session.closed || session.destroyed) return;
    if ((open.get(session) ?? 0) === 0) session.close();
  });
  server.on("sessionError", () => {});
}

// Plain port: look at the first bytes of each connection; the HTTP/2 preface goes to the h2c
// server (which reads what was already taken off the socket), anything else to node:http.
function sniff(
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
    const timer = setTimeout(() => socket.destroy(), HEADERS_TIMEOUT_MS);
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
      // Http2Session feeds what is buffered on the socket to nghttp2 before reading more.
      if (h2) h2c.emit("connection", socket);
      else {
        // node:http's parser takes the socket over (reading natively from then on) after this
        // read callback has returned: taken over inside it, the parser's pause() for
        // backpressure would no longer stop the socket.
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

// Binds now, like Deno.serve, so that `addr` (the real port when 0 was asked for) is known when
// serve() returns: `listen()` always looks the host up first, even an IP literal, which defers
// the bind to a later tick. `_listen2` is the bind step `listen()` ends in (net.js calls it for
// every primary process); elsewhere (a host name, a cluster worker) `listen()` runs and `addr`
// is known from onListen on. A failed bind is reported as an 'error' on the next tick either way.
function listen(
  server: http.Server | http2.Http2SecureServer,
  port: number,
  host: string,
): void {
  const bind = (server as unknown as { _listen2?: (...args: unknown[]) => void })._listen2;
  const family = isIP(host);
  if (family !== 0 && typeof bind === "function" && cluster.isPrimary) {
    bind.call(server, host, port, family, 511, undefined, 0);
    return;
  }
  server.listen({ port, host });
}

/** Starts a `node:http` server (HTTP/1.1 and h2c) or, with TLS, a `node:http2` one (h2 and HTTP/1.1). */
export function serve(
  fetch: FetchFunction,
  options: RuntimeServeOptions,
): RuntimeServer {
  const tls = options.cert !== undefined && options.key !== undefined;
  const state = new ServerState(fetch, options.onError, {
    scheme: tls ? "https" : "http",
    fallbackHost: `${
      options.hostname.includes(":") ? `[${options.hostname}]` : options.hostname
    }:${options.port}`,
  });
  const h2Options = {
    settings: { maxHeaderListSize: MAX_H2_HEADER_LIST_BYTES },
  };
  let server: http.Server | http2.Http2SecureServer;
  if (tls) {
    const secure = http2.createSecureServer({
      ...h2Options,
      cert: options.cert,
      key: options.key,
      allowHTTP1: true,
    });
    secure.on("request", onRequest.bind(state) as never);
    trackSessions(secure, state);
    server = secure;
  } else {
    const plain = http.createServer({
      maxHeaderSize: MAX_HEADER_BYTES,
      noDelay: true,
    });
    plain.on("request", onRequest.bind(state));
    const h2c = http2.createServer(h2Options);
    h2c.on("request", onRequest.bind(state));
    trackSessions(h2c, state);
    sniff(plain, h2c, state);
    server = plain;
  }
  listenH1Limits(server);
  server.on("upgrade", onUpgrade.bind(state));

  let addr: ServerAddr | undefined;
  const address = (): ServerAddr => {
    if (addr !== undefined) return addr;
    const bound = server.address();
    if (bound === null || typeof bound === "string") {
      return { hostname: options.hostname, port: options.port };
    }
    return addr = { hostname: bound.address, port: bound.port };
  };
  const finished = new Promise<void>((resolve, reject) => {
    server.once("close", () => resolve());
    server.once("error", (error) => {
      if (!server.listening) reject(error); // EADDRINUSE and friends
    });
  });
  server.once("listening", () => options.onListen?.(address()));
  listen(server, options.port, options.hostname);

  let closing: Promise<void> | undefined;
  const shutdown = (): Promise<void> => {
    if (closing !== undefined) return closing;
    state.closing = true;
    // 1. stop accepting; idle keep-alive connections close now, busy ones after their response
    if (server.listening) server.close();
    for (const socket of state.sniffing) socket.destroy();
    for (const session of state.sessions) session.close(); // GOAWAY, open streams finish
    for (const socket of state.sockets.keys()) {
      socket.close(1001, SHUTDOWN_REASON);
    }
    // 2. connections that turn idle later (a response just finished) are swept until closed;
    //    WebSockets that do not answer the close frame in time are cut
    const since = Date.now();
    const sweep = setInterval(() => {
      (server as http.Server).closeIdleConnections();
      if (Date.now() - since < WS_CLOSE_GRACE_MS) return;
      for (const ws of state.sockets.values()) ws.terminate();
    }, 250);
    (server as http.Server).closeIdleConnections();
    return closing = finished.then(
      () => clearInterval(sweep),
      () => clearInterval(sweep),
    );
  };
  if (options.signal !== undefined) {
    if (options.signal.aborted) queueMicrotask(() => void shutdown());
    else {options.signal.addEventListener("abort", () => void shutdown(), {
        once: true,
      });}
  }
  return {
    get addr() {
      return address();
    },
    finished,
    shutdown,
  };
}

// ---------------------------------------------------------------------------------------------
// WebSockets

// The close code `ws` sent when it failed a connection itself (1009 over maxPayload, 1007 for
// invalid UTF-8, 1002 for a protocol error): ws keeps it under a symbol on the error.
function failureCode(error: Error): number {
  for (const key of Object.getOwnPropertySymbols(error)) {
    const value = (error as unknown as Record<symbol, unknown>)[key];
    if (key.description === "status-code" && typeof value === "number") {
      return value;
    }
  }
  const code = (error as NodeJS.ErrnoException).code;
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
  const upgrade = UPGRADES.get(request) ??
    (options.info as Partial<UpgradeInfo> | undefined)?.[UPGRADE];
  if (upgrade === undefined) {
    throw new TypeError(
      "Cannot upgrade to a WebSocket: the request did not reach serve() over HTTP/1.1 with Upgrade: websocket",
    );
  }
  let ws: WsSocket | undefined;
  // The code and reason of the close frame the server sent, which onClose reports.
  let sent: [number, string] | undefined;
  const socket: RuntimeSocket = {
    send(data) {
      if (ws !== undefined && ws.readyState === 1) ws.send(data);
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
  };
  const handlers = events(socket);
  const response = new Response(null, { status: 200 });
  Object.defineProperty(response, "status", { value: 101 }); // undici refuses 101 in `new Response`
  if (options.headers) {
    for (const [name, value] of options.headers) {
      if (name === "set-cookie") response.headers.append(name, value);
      else response.headers.set(name, value);
    }
  }
  PENDING.set(response, {
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
          handlers.onBinary(
            new Uint8Array(data.buffer, data.byteOffset, data.byteLength),
          );
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
        upgrade.state.sockets.delete(socket);
        if (sent !== undefined) handlers.onClose(sent[0], sent[1], false);
        else if (code === 1006) handlers.onClose(1006, "", false);
        else handlers.onClose(code, reason.toString("utf8"), true);
      });
      upgrade.state.sockets.set(socket, bound);
      handlers.onOpen();
      if (upgrade.state.closing) socket.close(1001, SHUTDOWN_REASON);
    },
  });
  return response;
}

// ---------------------------------------------------------------------------------------------
// Files, environment, standard error

function toStat(info: BigIntStats): FileStat {
  return {
    isFile: info.isFile(),
    isDirectory: info.isDirectory(),
    size: Number(info.size),
    mtimeMs: Number(info.mtimeNs) / 1e6,
    mtimeNs: info.mtimeNs,
  };
}

const CHUNK_SIZE = 65_536;

// Bytes `start` to `end` inclusive by positional reads that the consumer pulls: never more in
// memory than one chunk; `close` runs once, at the end, on an error or on cancel.
function rangeStream(
  file: FileHandle,
  start: number,
  end: number,
  close: () => void,
): ReadableStream<Uint8Array> {
  let position = start;
  let done = false;
  const finish = () => {
    if (done) return;
    done = true;
    close();
  };
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const want = Math.min(end - position + 1, CHUNK_SIZE);
      let bytesRead = 0;
      if (want > 0) {
        const buffer = new Uint8Array(want);
        try {
          ({ bytesRead } = await file.read(buffer, 0, want, position));
        } catch (error) {
          finish();
          throw error;
        }
        if (bytesRead > 0) {
          position += bytesRead;
          controller.enqueue(
            bytesRead === want ? buffer : buffer.subarray(0, bytesRead),
          );
        }
      }
      if (bytesRead === 0 || position > end) {
        finish();
        controller.close();
      }
    },
    cancel() {
      finish();
    },
  }, { highWaterMark: 0 });
}

// A file opened for asynchronous positional reads, with the fstat of the open file.
function openFile(file: FileHandle, stat: FileStat): OpenFile {
  let closed = false;
  let owned = false; // handed to a stream, which closes it
  const close = () => {
    if (closed) return;
    closed = true;
    file.close().catch(() => {});
  };
  return {
    stat,
    async read(buffer, position) {
      const { bytesRead } = await file.read(
        buffer,
        0,
        buffer.byteLength,
        position,
      );
      return bytesRead;
    },
    stream(start, end) {
      if (owned) {
        return Promise.reject(
          new TypeError("Cannot stream the file: it is already being streamed"),
        );
      }
      owned = true;
      return Promise.resolve(rangeStream(file, start, end, close));
    },
    close() {
      if (!owned) close();
    },
  };
}

/** Opens a file for asynchronous reads with the `fstat` of the open file. */
async function open(path: string): Promise<OpenFile | null> {
  let file: FileHandle;
  try {
    file = await fsp.open(path, "r");
  } catch {
    return null;
  }
  try {
    return openFile(file, toStat(await file.stat({ bigint: true })));
  } catch {
    file.close().catch(() => {});
    return null;
  }
}

/** File-system calls, with true nanosecond mtimes. */
export const fs: RuntimeFs = {
  async stat(path) {
    try {
      return toStat(await fsp.stat(path, { bigint: true }));
    } catch {
      return null;
    }
  },
  statSync(path) {
    try {
      return toStat(statSync(path, { bigint: true }));
    } catch {
      return null;
    }
  },
  async realPath(path) {
    try {
      return await fsp.realpath(path);
    } catch {
      return null;
    }
  },
  realPathSync(path) {
    try {
      return realpathSync(path);
    } catch {
      return null;
    }
  },
  async openRange(path, start, end) {
    const file = await fsp.open(path, "r");
    return rangeStream(file, start, end, () => file.close().catch(() => {}));
  },
  async readFile(path) {
    const bytes = await fsp.readFile(path);
    return new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  },
  openSync(path): SyncFile {
    const fd = openSync(path, "r");
    let closed = false;
    return {
      readSync(buffer, position) {
        return readSync(fd, buffer, 0, buffer.byteLength, position);
      },
      close() {
        if (!closed) {
          closed = true;
          closeSync(fd);
        }
      },
    };
  },
  open,
};

/** Reads an environment variable; undefined when unset. */
export function env(name: string): string | undefined {
  return process.env[name];
}

/** Whether standard error is a terminal. */
export function stderrIsTerminal(): boolean {
  return process.stderr.isTTY === true;
}

/** Writes text to standard error. */
export function writeStderr(line: string): void {
  process.stderr.write(line);
}

/**
 * The Node implementation of the runtime interface. Modules import the named functions above
 * (so bundlers can drop what an app does not use); this object proves they fit the interface.
 */
export const runtime: Runtime = {
  name: "node",
  serve,
  upgradeWebSocket,
  fs,
  env,
  stderrIsTerminal,
  writeStderr,
};
