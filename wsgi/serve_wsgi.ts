/**
 * `serveWsgi(app, options)`: serves a WSGI-convention app over HTTP/1.1 and HTTP/2 with
 * Weft's `serve()`.
 *
 * @module
 */
import { serve, type ServeOptions, type Server } from "../lib/serve.ts";
import { type GatewayOptions, toFetchHandler } from "./gateway.ts";
import type { WsgiApp } from "./types.ts";

/** Options of {@linkcode serveWsgi}: the server's and the gateway's. */
export type ServeWsgiOptions = ServeOptions & GatewayOptions;

/**
 * Serves a WSGI app: {@linkcode toFetchHandler} on Weft's `serve()`.
 *
 * @param app The WSGI application.
 * @param options Port, host, TLS and the gateway's body limit.
 * @returns The running server.
 * @throws {RangeError} When `maxBodyBytes` is not a non-negative integer, or a timeout is not a
 * non-negative number.
 *
 * @example
 * ```ts
 * import { serveWsgi } from "./serve_wsgi.ts";
 * import assert from "node:assert/strict";
 *
 * const server = serveWsgi((_environ, startResponse) => {
 *   startResponse("200 OK", [["content-type", "text/plain"]]);
 *   return [new TextEncoder().encode("hello")];
 * }, { port: 0, hostname: "127.0.0.1", onListen: () => {} });
 * const res = await fetch(`http://127.0.0.1:${server.addr.port}/`);
 * assert.equal(await res.text(), "hello");
 * await server.shutdown();
 * ```
 */
export function serveWsgi(app: WsgiApp, options?: ServeWsgiOptions): Server;
export function serveWsgi(app: WsgiApp, options: ServeWsgiOptions = {}): Server {
  return serve({ fetch: toFetchHandler(app, options) }, options);
}
