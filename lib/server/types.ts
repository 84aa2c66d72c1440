/**
 * The runtime interface: everything Weft needs from Deno or Node. `lib/server/deno.ts` and
 * `lib/server/node.ts` both export a `runtime` object of this type; no other module touches a
 * runtime directly, and the npm build swaps the first file for the second.
 *
 * @module
 */

/** The address a server listens on. */
export interface ServerAddr {
  /** The bound host name or IP address. */
  hostname: string;
  /** The bound port (the real one when port 0 was asked for). */
  port: number;
}

/** Facts about the connection a request arrived on. */
export interface ConnInfo {
  /** The peer's address, when the runtime knows it. */
  remoteAddr?: { hostname: string; port: number };
}

/**
 * The key under which a Request that a runtime adapter made itself may carry its request target
 * as sent in origin form (path and query, starting with "/"): the Context reads its path from
 * there instead of searching the absolute URL for it.
 */
export const REQUEST_TARGET: unique symbol = Symbol("weft.requestTarget");

/**
 * The key under which the ConnInfo that `serve()` hands to the fetch function carries its
 * server's {@linkcode ShutdownRegistry}, so that a response that stays open (an event stream)
 * finds the server it belongs to through `ctx.info`.
 */
export const SHUTDOWN: unique symbol = Symbol("weft.shutdown");

/**
 * Marks the error with which a response body was failed on purpose, to cut the response (an
 * event stream whose client fell behind, or which the server's shutdown ends), and holds the
 * Response that `serve()`'s `onError` returns for it instead of logging it: both adapters
 * report every failed body to `onError` (Deno.serve itself, the Node adapter in
 * lib/server/_node_pipe.ts), which `serve()` logs as a failure of the server.
 */
export const INTENDED_CUT: unique symbol = /* @__PURE__ */ Symbol("weft.cut");

/** Marks `error` with {@linkcode INTENDED_CUT} (an empty 500, never sent) and returns it. */
export function intendedCut<E extends object>(error: E): E {
  Object.defineProperty(error, INTENDED_CUT, { value: new Response(null, { status: 500 }) });
  return error;
}

/** What a server's shutdown tells the long-lived responses and sockets it serves. */
export interface ShutdownRegistry {
  /** Whether shutdown has started; whoever registers from then on closes at once. */
  readonly closing: boolean;
  /** Called once each when shutdown starts, before it waits for in-flight responses. */
  readonly closers: Set<() => void>;
}

/** A fetch-style function that the runtime server calls for every request. */
export type FetchFunction = (
  request: Request,
  info: ConnInfo,
) => Response | Promise<Response>;

/** Options the runtime server accepts. */
export interface RuntimeServeOptions {
  /** Port to listen on; 0 picks a free one. */
  port: number;
  /** Host name or IP address to bind. */
  hostname: string;
  /** PEM certificate chain; with `key`, enables TLS with ALPN (h2 and http/1.1). */
  cert?: string;
  /** PEM private key for `cert`. */
  key?: string;
  /** Aborting it shuts the server down gracefully, as {@linkcode RuntimeServer.shutdown} does. */
  signal?: AbortSignal;
  /** Called once the server listens. */
  onListen?: (addr: ServerAddr) => void;
  /** Called with errors the fetch function threw; returns the response to send. */
  onError?: (error: unknown) => Response | Promise<Response>;
  /**
   * The Weft app (lib/_app.ts) whose entry point `fetch` is, when it is one: a runtime that
   * writes the response from a callback anyway (Node) runs it with one and saves a promise per
   * request (lib/server/_node_answer.ts).
   */
  app?: object;
  /** Milliseconds to receive a request's header block; 0 disables it. Node only. */
  headersTimeout?: number;
  /** Milliseconds to receive a whole HTTP/1.1 request, body included; 0 disables it. Node only. */
  requestTimeout?: number;
  /** Milliseconds an idle connection or HTTP/2 session stays open; 0 disables it. Node only. */
  keepAliveTimeout?: number;
  /** Milliseconds to complete a TLS handshake; 0 disables it. Node only. */
  handshakeTimeout?: number;
}

/** A running server. */
export interface RuntimeServer {
  /** The address the server listens on. */
  readonly addr: ServerAddr;
  /** Settles when the server has closed. */
  readonly finished: Promise<void>;
  /**
   * Stops accepting connections, closes every WebSocket this server upgraded with 1001 ("Server
   * shutting down"; their `onClose` reports that code, not the peer's answer), calls the closers
   * of its {@linkcode ShutdownRegistry} (event streams end) and resolves once in-flight requests
   * have finished.
   */
  shutdown(): Promise<void>;
}

/** File metadata as the static middlewares need it. */
export interface FileStat {
  /** True for a regular file (not a directory, FIFO, socket or device). */
  isFile: boolean;
  /** True for a directory. */
  isDirectory: boolean;
  /** Size in bytes. */
  size: number;
  /** Modification time in milliseconds since the epoch (may carry a fraction on Node). */
  mtimeMs: number;
  /**
   * Modification time in nanoseconds since the epoch: true nanoseconds on Node, milliseconds
   * × 10⁶ on Deno (the best precision it exposes).
   */
  mtimeNs: bigint;
}

/** A file opened for synchronous positional reads (the WSGI middleware is synchronous). */
export interface SyncFile {
  /** Metadata of the open file itself (`fstat`), not of whatever the path names now. */
  statSync(): FileStat;
  /** Reads into `buffer` from byte `position`; returns the number of bytes read (0 at end). */
  readSync(buffer: Uint8Array, position: number): number;
  /** Closes the file; safe to call twice. */
  close(): void;
}

/**
 * A file opened for asynchronous reads, with the metadata of the open file itself (`fstat`),
 * so that the validators sent match the bytes read even if the path is replaced meanwhile.
 */
export interface OpenFile {
  /** Metadata of the open file (not of whatever the path names now). */
  readonly stat: FileStat;
  /** Reads into `buffer` from byte `position`; resolves with the number of bytes read (0 at end). */
  read(buffer: Uint8Array, position: number): Promise<number>;
  /**
   * Streams bytes `start` to `end` inclusive, never the whole file in memory, and closes the
   * file when the stream ends or is cancelled. Call it at most once; the stream owns the file
   * afterwards. A range that runs to the end of the file may be handed to the server as the
   * file itself (Deno sends it from Rust); a server given a `Content-Length` sends no more.
   */
  stream(start: number, end: number): Promise<ReadableStream<Uint8Array>>;
  /** Closes the file; safe to call twice, and after {@linkcode OpenFile.stream}. */
  close(): void;
}

/** The file-system calls of the runtime interface. Paths are native paths. */
export interface RuntimeFs {
  /** Stats a path, following symlinks; `null` when it does not exist or cannot be read. */
  stat(path: string): Promise<FileStat | null>;
  /** Synchronous {@linkcode RuntimeFs.stat}. */
  statSync(path: string): FileStat | null;
  /** Resolves symlinks; `null` when the path does not exist. */
  realPath(path: string): Promise<string | null>;
  /** Synchronous {@linkcode RuntimeFs.realPath}. */
  realPathSync(path: string): string | null;
  /** Opens a file for synchronous positional reads. */
  openSync(path: string): SyncFile;
  /**
   * Opens a file for asynchronous reads; `null` when it does not exist or cannot be read.
   * Opening a FIFO blocks until a writer appears, so call it only for paths that
   * {@linkcode RuntimeFs.stat} reported as regular files.
   */
  open(path: string): Promise<OpenFile | null>;
}

/** Options for a WebSocket upgrade at the runtime level. */
export interface RuntimeUpgradeOptions {
  /** The negotiated subprotocol (one the client offered), if any. */
  protocol?: string;
  /**
   * Largest message in bytes (the whole message, all fragments together); a larger one closes
   * the socket with 1009 and is never delivered.
   */
  maxMessageBytes: number;
  /**
   * Seconds without any frame from the peer before the socket is closed: the runtime pings the
   * peer after half of it and closes the socket when nothing arrived for the whole of it; 0
   * disables it.
   */
  idleTimeout?: number;
  /**
   * The connection info that the adapter's `serve()` handed to the fetch function with this
   * request (`ctx.info`). The adapter uses it to find the server the request arrived on, so that
   * that server's `shutdown()` closes the socket with 1001. Absent (or not from `serve()`): the
   * socket belongs to no server.
   */
  info?: ConnInfo;
}

/** A server-side WebSocket as the runtime exposes it. */
export interface RuntimeSocket {
  /** Sends a text or binary message; does nothing unless the socket is open. */
  send(data: string | Uint8Array): void;
  /**
   * Starts the closing handshake with this code and reason (validated by the caller); only the
   * first call has an effect, and it is the code and reason `onClose` then reports.
   */
  close(code?: number, reason?: string): void;
  /** Sends a ping where the runtime allows it; returns false where it does not. */
  ping(): boolean;
  /** The negotiated subprotocol ("" when none). */
  readonly protocol: string;
  /**
   * Bytes of messages sent and not yet written to the connection (the WebSocket's
   * `bufferedAmount` on Deno, `ws`'s on Node: what waits in the runtime, not what waits in the
   * kernel's socket buffer). A peer that stops reading makes it grow once the kernel's buffer
   * is full.
   */
  readonly bufferedAmount: number;
}

/**
 * Events a runtime socket reports, in the order they happen; each is called synchronously by
 * the runtime and must not throw.
 */
export interface RuntimeSocketEvents {
  /** The 101 response went out; the socket is open. */
  onOpen(): void;
  /** A whole text message (valid UTF-8; at most `maxMessageBytes` bytes once encoded). */
  onText(text: string): void;
  /** A whole binary message (at most `maxMessageBytes` bytes). */
  onBinary(data: Uint8Array): void;
  /** A ping arrived (the runtime answers it); never called where the runtime hides pings. */
  onPing(): void;
  /** A pong arrived; never called where the runtime hides pongs. */
  onPong(): void;
  /**
   * The socket closed; called exactly once, last. `byPeer` is true when the peer started the
   * closing handshake: `code` and `reason` are then those of its close frame (1005 when it had
   * no code). Otherwise they are the ones the server sent (the argument of `close()`, 1009 for
   * an over-size message, 1001 on shutdown or an idle timeout), or 1006 when the connection
   * ended without a closing handshake (a protocol error, invalid UTF-8, a dropped connection).
   */
  onClose(code: number, reason: string, byPeer: boolean): void;
  /** The runtime failed the connection (before `onClose`); for reporting only. */
  onError(error: unknown): void;
}

/** The whole runtime interface. */
export interface Runtime {
  /** Starts an HTTP server (HTTP/1.1; HTTP/2 via ALPN with TLS; h2c where the runtime allows). */
  serve(fetch: FetchFunction, options: RuntimeServeOptions): RuntimeServer;
  /**
   * Upgrades a request to a WebSocket and returns the 101 response to send. `events` receive
   * whole messages.
   */
  upgradeWebSocket(
    request: Request,
    options: RuntimeUpgradeOptions,
    events: (socket: RuntimeSocket) => RuntimeSocketEvents,
  ): Response;
  /** File-system calls. */
  readonly fs: RuntimeFs;
  /** Whether a value is a `Response` of this runtime (the server's own light class included). */
  isResponse(value: unknown): value is Response;
  /** Reads an environment variable; undefined when unset or not permitted. */
  env(name: string): string | undefined;
  /** Whether standard error is a terminal. */
  stderrIsTerminal(): boolean;
  /** Writes a line (with its newline) to standard error. */
  writeStderr(line: string): void;
}

/** A content coding a runtime can produce (RFC 9110 §8.4.1; `zstd` is RFC 8878). */
export type ContentCoding = "br" | "zstd" | "gzip" | "deflate";

/**
 * Compression as the runtime does it best; loaded on first use with the adapter's
 * `loadCompression()`, so that apps that never compress load none of it.
 */
export interface RuntimeCompression {
  /** The codings this runtime can produce. */
  readonly codings: readonly ContentCoding[];
  /**
   * Compresses a whole body at once.
   *
   * @param coding One of {@linkcode RuntimeCompression.codings}.
   * @param body The body (a string is compressed as its UTF-8 bytes).
   * @param level The compression level (gzip and deflate 1–9, br 0–11, zstd 1–22).
   */
  compress(
    coding: ContentCoding,
    body: Uint8Array | string,
    level: number,
  ): Uint8Array<ArrayBuffer>;
  /**
   * The string or bytes a response was made from, while nothing has touched its body;
   * `undefined` for a stream, or where the runtime does not tell. Read-only: the bytes may be
   * the response's own.
   */
  atHand(response: Response): Uint8Array | string | undefined;
  /**
   * A stream that compresses what is written to it and flushes after every chunk, so that each
   * chunk (a server-sent event) reaches the client as soon as it was written.
   */
  stream(coding: ContentCoding, level: number): TransformStream<Uint8Array, Uint8Array>;
}

/** The adapters' loader of {@linkcode RuntimeCompression}. */
export type LoadCompression = () => Promise<RuntimeCompression>;
