/**
 * `serve()`: runs an app over HTTP/1.1 and HTTP/2 (ALPN with TLS, h2c with prior knowledge
 * without it) on the runtime's own server.
 *
 * @module
 */
import { createApp, type InternalApp, RESPOND } from "./_app.ts";
import { problem } from "./http/problem.ts";
import { describeError } from "./http/_log_escape.ts";
import { serve as runtimeServe, writeStderr } from "./server/deno.ts";
import {
  type ConnInfo,
  type FetchFunction,
  INTENDED_CUT,
  type ServerAddr,
} from "./server/types.ts";
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
  /**
   * A PEM certificate chain; with `key` the server speaks TLS and offers h2 and http/1.1 (one
   * without the other is a `TypeError`).
   */
  cert?: string;
  /** The PEM private key of `cert`. */
  key?: string;
  /** Aborting it shuts the server down gracefully. */
  signal?: AbortSignal;
  /** Called once the server listens; by default a line goes to stderr. */
  onListen?: (addr: ServerAddr) => void;
  /**
   * Milliseconds a client has to send a request's header block, from the connection's first
   * byte or the end of the previous request; then the server answers 408 and closes the
   * connection (slowloris). 0 disables it. Applied on Node.js only: `Deno.serve` has no such
   * setting, and Deno keeps such a connection open (put a proxy in front of it).
   *
   * @default {30000}
   */
  headersTimeout?: number;
  /**
   * Milliseconds a client has to send a whole HTTP/1.1 request, body included; then 408 and
   * the connection closes. 0 disables it. Applied on Node.js only (see `headersTimeout`).
   *
   * @default {300000}
   */
  requestTimeout?: number;
  /**
   * Milliseconds an idle connection stays open: an HTTP/1.1 connection between requests, an
   * HTTP/2 session without open streams (closed with GOAWAY). Longer than the 60 s idle timeout
   * of common load balancers, so that a proxy never reuses a connection the server is closing.
   * 0 disables it. Applied on Node.js only (see `headersTimeout`).
   *
   * @default {65000}
   */
  keepAliveTimeout?: number;
  /**
   * Milliseconds a client has to complete the TLS handshake, ClientHello included; then the
   * connection closes. 0 disables it. Applied on Node.js only (see `headersTimeout`).
   *
   * @default {10000}
   */
  handshakeTimeout?: number;
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
 * @param options Port, host, TLS, shutdown signal, timeouts.
 * @throws {RangeError} When a timeout is not a non-negative number.
 * @throws {TypeError} When only one of `cert` and `key` is given.
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
  options?: ServeOptions,
): Server;
export function serve(
  app: App | Handler | { fetch(request: Request, info: ConnInfo): Response | Promise<Response> },
  options: ServeOptions = {},
): Server {
  // A Weft app (or a handler made one) goes to the runtime as itself too, which the Node
  // adapter runs through a callback; anything else with a fetch() is called as it is.
  const weft = RESPOND in app
    ? app as InternalApp
    : "fetch" in app && typeof app.fetch === "function"
    ? undefined
    : createApp(app as Handler) as InternalApp;
  const fetch = weft?.[RESPOND] ?? (app as { fetch: FetchFunction }).fetch.bind(app);
  for (const name of TIMEOUTS) {
    const value = options[name];
    if (value !== undefined && (typeof value !== "number" || !(value >= 0) || value === Infinity)) {
      throw new RangeError(
        `Cannot serve: ${name} ${value} is not a non-negative number of milliseconds`,
      );
    }
  }
  const tls = options.cert !== undefined;
  // one without the other would serve plain HTTP where TLS was meant
  if (tls !== (options.key !== undefined)) {
    throw new TypeError("Cannot serve: cert and key go together");
  }
  return runtimeServe(fetch, {
    ...options,
    port: options.port ?? 8000,
    hostname: options.hostname ?? "0.0.0.0",
    onListen: options.onListen ?? ((addr) => {
      const shown = addr.hostname === "0.0.0.0" ? "localhost" : addr.hostname;
      writeStderr(`Listening on ${tls ? "https" : "http"}://${shown}:${addr.port}/\n`);
    }),
    // What fails outside a Weft app's own recovery (a handler of a plain fetch app that throws,
    // a response the runtime cannot send, a response body that fails once its head went out):
    // logged as the app's errors are, then a 500. A body failed on purpose (sse() cutting a
    // client that fell behind) is no failure: its error carries the answer itself (ignored,
    // since the head went out).
    onError: (error) => {
      const cut = (error as { [INTENDED_CUT]?: Response } | undefined)?.[INTENDED_CUT];
      if (cut !== undefined) return cut;
      console.error(`weft: a request failed in the server: ${describeError(error)}`);
      return problem({ status: 500 });
    },
    app: weft,
  });
}

// The options that are milliseconds, checked in one loop (the runtime takes them as they are).
const TIMEOUTS = [
  "headersTimeout",
  "requestTimeout",
  "keepAliveTimeout",
  "handshakeTimeout",
] as const;
