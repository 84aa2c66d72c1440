/**
 * The Node.js runtime adapter: with the `_node_*.ts` modules next to it, the only code of
 * Weft's npm build that touches `node:http`, `node:http2` and `ws`. `scripts/build_npm.ts` puts
 * it in place of `deno.ts`; `deno check lib/server/node.ts` proves that both satisfy
 * {@linkcode Runtime}.
 *
 * Servers: with `cert` and `key`, one `node:http2` `createSecureServer({ allowHTTP1: true })`
 * speaks HTTP/2 and HTTP/1.1 on one port (ALPN). Without TLS, a `node:http` server answers
 * HTTP/1.1, and connections that open with the HTTP/2 preface (h2c with prior knowledge,
 * RFC 9113 §3.3) are handed to a `node:http2` server. Bodies stream both ways with
 * backpressure; a client that goes away aborts `request.signal` and cancels the response body.
 *
 * Requests and responses are light: the `Request` an app receives reads method, URL, headers,
 * body and signal straight from Node's request and builds undici's `Request` only for anything
 * else (`_node_request.ts`, `_node_headers.ts`). `serve()` makes `globalThis.Response` a
 * lightweight `Response` (as `@hono/node-server` does) that keeps status, headers and body as
 * given, so that a string or bytes body is written with one `writeHead()` and one `end()` and
 * undici's `Response` and its stream are built only when something reads the body
 * (`_node_response.ts`, `_node_send.ts`). Responses of either class are `instanceof Response`.
 * HTTP/2 streams are served through node:http2's core API, not its compatibility layer
 * (`_node_h2.ts`).
 *
 * Limits, set deliberately (Node's own defaults differ or do not exist for HTTP/2); the
 * timeouts are the defaults of the `ServeOptions` of the same names:
 *
 * | limit | value | why |
 * | --- | --- | --- |
 * | request header block | 16 KiB → 431 | Node's default and hyper's HTTP/2 limit (Deno answers 431 over HTTP/2 past 16 KiB) |
 * | HTTP/2 header list, hard | 64 KiB → stream refused | past it nghttp2 refuses the stream, as Deno does |
 * | HTTP/2 concurrent streams | 200 per connection | Deno's (hyper's) limit; Node's default is 2^32 - 1, and each `sse()` stream is a stream held open |
 * | `headersTimeout` | 30 s → 408 | stops slowloris headers (Deno.serve has no such timeout); a client that has not closed its side 5 s after an error answer is cut |
 * | `requestTimeout` | 300 s → 408 | Node's default: a whole request, body included |
 * | `keepAliveTimeout` | 65 s | longer than common load balancer idle timeouts (60 s), so a proxy never reuses a connection the server is closing |
 * | idle HTTP/2 session | `keepAliveTimeout` | closed with GOAWAY only when no stream is open |
 * | `handshakeTimeout` (TLS) | 10 s | Node's default is 120 s for a socket that never sends a ClientHello |
 * | WebSocket close on shutdown | 2 s | after the 1001 close frame, a peer that does not answer is cut |
 *
 * @module
 */
import * as http from "node:http";
import * as http2 from "node:http2";
import process from "node:process";
import type { TLSSocket } from "node:tls";
import { fs } from "./_node_fs.ts";
import {
  dropStalled,
  HANDSHAKE_TIMEOUT_MS,
  listen,
  listenH1Limits,
  MAX_H2_HEADER_LIST_BYTES,
  MAX_HEADER_BYTES,
  onCheckContinue,
  onRequest,
  onUpgrade,
  ServerState,
  sniff,
  trackH1,
} from "./_node_http.ts";
import { serveStreams, streams } from "./_node_h2.ts";
import { installResponse, isResponse } from "./_node_response.ts";
import { bodyAtHand } from "./_node_send.ts";
import { SHUTDOWN_REASON, upgradeWebSocket, WS_CLOSE_GRACE_MS } from "./_node_ws.ts";
import type {
  FetchFunction,
  LoadCompression,
  Runtime,
  RuntimeServeOptions,
  RuntimeServer,
  ServerAddr,
} from "./types.ts";

export { bodyAtHand, fs, isResponse, upgradeWebSocket };

/**
 * Whether `clone()` of a response with a string body is cheap: not on Node, where undici's
 * clone of a body tees a stream (and a clone of a clone tees again).
 */
export const CLONE_TEXT_RESPONSES = false;

/**
 * Starts a `node:http` server (HTTP/1.1 and h2c) or, with TLS, a `node:http2` one (h2 and
 * HTTP/1.1). `shutdown()` closes WebSockets with 1001 and runs the closers of the server's
 * registry (event streams end) before it waits for in-flight responses.
 */
export function serve(fetch: FetchFunction, options: RuntimeServeOptions): RuntimeServer {
  installResponse();
  const tls = options.cert !== undefined && options.key !== undefined;
  const state = new ServerState(fetch, options, tls ? "https" : "http");
  // Streams per HTTP/2 connection: hyper's limit, which Deno.serve applies (Node's default is
  // 2^32 - 1, so one connection could hold any number of event streams open).
  const h2Options = {
    settings: { maxHeaderListSize: MAX_H2_HEADER_LIST_BYTES, maxConcurrentStreams: 200 },
  };
  let server: http.Server | http2.Http2SecureServer;
  if (tls) {
    const secure = http2.createSecureServer({
      ...h2Options,
      cert: options.cert,
      key: options.key,
      allowHTTP1: true,
      handshakeTimeout: options.handshakeTimeout ?? HANDSHAKE_TIMEOUT_MS,
    });
    secure.on("request", onRequest.bind(state) as never); // HTTP/1.1
    secure.on("secureConnection", (socket: TLSSocket) => {
      if (socket.alpnProtocol !== "h2") trackH1(state, socket);
    });
    secure.on("checkContinue", onCheckContinue.bind(state) as never);
    serveStreams(secure, state);
    server = secure;
  } else {
    const plain = http.createServer({ maxHeaderSize: MAX_HEADER_BYTES, noDelay: true });
    plain.on("request", onRequest.bind(state));
    plain.on("checkContinue", onCheckContinue.bind(state));
    const h2c = http2.createServer(h2Options);
    serveStreams(h2c, state);
    sniff(plain, h2c, state);
    server = plain;
  }
  listenH1Limits(server, state);
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
    for (const socket of state.sockets.keys()) socket.close(1001, SHUTDOWN_REASON);
    for (const close of state.closers) close(); // event streams end
    // 2. connections that turn idle later (a response just finished) are swept until closed;
    //    WebSockets that do not answer the close frame in time are cut
    const since = Date.now();
    const sweep = setInterval(() => {
      (server as http.Server).closeIdleConnections();
      dropStalled(state);
      // HTTP/2 streams that node:http2 closed but that hang (_node_h2_stream.ts)
      streams.value?.dropClosedStreams(state.sessions);
      if (Date.now() - since < WS_CLOSE_GRACE_MS) return;
      for (const ws of state.sockets.values()) ws.terminate();
    }, 250);
    (server as http.Server).closeIdleConnections();
    dropStalled(state);
    return closing = finished.then(() => clearInterval(sweep), () => clearInterval(sweep));
  };
  if (options.signal !== undefined) {
    if (options.signal.aborted) queueMicrotask(() => void shutdown());
    else options.signal.addEventListener("abort", () => void shutdown(), { once: true });
  }
  return {
    get addr() {
      return address();
    },
    finished,
    shutdown,
  };
}

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

/** Loads Node's compression (node:zlib) on first use. */
export const loadCompression: LoadCompression = () =>
  import("./_node_compression.ts").then((module) => ({
    ...module.compression,
    atHand: bodyAtHand,
  }));

/**
 * The Node implementation of the runtime interface. Modules import the named functions above
 * (so bundlers can drop what an app does not use); this object proves they fit the interface.
 */
export const runtime: Runtime = {
  serve,
  upgradeWebSocket,
  fs,
  isResponse,
  env,
  stderrIsTerminal,
  writeStderr,
};
