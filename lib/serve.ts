/**
 * `serve()`: runs an app over HTTP/1.1 and HTTP/2 (ALPN with TLS, h2c with prior knowledge
 * without it) on the runtime's own server.
 *
 * @module
 */
import { createApp, type InternalApp, RESPOND } from "./_app.ts";
import { problem } from "./http/problem.ts";
import { serve as runtimeServe, writeStderr } from "./server/deno.ts";
import type { ConnInfo, ServerAddr } from "./server/types.ts";
import type { App, Handler } from "./types.ts";

/** Options of {@linkcode serve}. */
export interface ServeOptions {
  /**
   * The port; 0 picks a free one.
   *
   * @default {8000}
   */
  port?: number;
  /**
   * The host name or address to bind.
   *
   * @default {"0.0.0.0"}
   */
  hostname?: string;
  /** A PEM certificate chain; with `key` the server speaks TLS and offers h2 and http/1.1. */
  cert?: string;
  /** The PEM private key of `cert`. */
  key?: string;
  /** Aborting it shuts the server down gracefully. */
  signal?: AbortSignal;
  /** Called once the server listens; by default a line goes to stderr. */
  onListen?: (addr: ServerAddr) => void;
}

/** A running server. */
export interface Server {
  /** The address the server listens on. */
  readonly addr: ServerAddr;
  /** Settles when the server has closed. */
  readonly finished: Promise<void>;
  /** Stops accepting connections; resolves once in-flight requests have finished. */
  shutdown(): Promise<void>;
}

/**
 * Serves an app (a `router()`, a `chain()`, a plain handler or any object with `fetch`).
 *
 * @param app What answers the requests.
 * @param options Port, host, TLS, shutdown signal.
 * @returns The running server.
 *
 * @example
 * ```ts
 * import { get, router, serve } from "../mod.ts";
 * import assert from "node:assert/strict";
 *
 * const server = serve(router([get("/", () => new Response("hi"))]), {
 *   port: 0,
 *   hostname: "127.0.0.1",
 *   onListen: () => {},
 * });
 * const res = await fetch(`http://127.0.0.1:${server.addr.port}/`);
 * assert.equal(await res.text(), "hi");
 * await server.shutdown();
 * ```
 */
export function serve(
  app: App | Handler | { fetch(request: Request, info: ConnInfo): Response | Promise<Response> },
  options: ServeOptions = {},
): Server {
  const fetch = RESPOND in app
    ? (app as InternalApp)[RESPOND]
    : "fetch" in app && typeof app.fetch === "function"
    ? app.fetch.bind(app)
    : (createApp(app as Handler) as InternalApp)[RESPOND];
  const hostname = options.hostname ?? "0.0.0.0";
  const tls = options.cert !== undefined && options.key !== undefined;
  return runtimeServe(fetch, {
    port: options.port ?? 8000,
    hostname,
    cert: options.cert,
    key: options.key,
    signal: options.signal,
    onListen: options.onListen ?? ((addr) => {
      const shown = addr.hostname === "0.0.0.0" ? "localhost" : addr.hostname;
      writeStderr(`Listening on ${tls ? "https" : "http"}://${shown}:${addr.port}/\n`);
    }),
    onError: () => problem({ status: 500 }),
  });
}
