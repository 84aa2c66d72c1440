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
  /** Aborting it shuts the server down gracefully. */
  signal?: AbortSignal;
  /** Called once the server listens. */
  onListen?: (addr: ServerAddr) => void;
  /** Called with errors the fetch function threw; returns the response to send. */
  onError?: (error: unknown) => Response | Promise<Response>;
}

/** A running server. */
export interface RuntimeServer {
  /** The address the server listens on. */
  readonly addr: ServerAddr;
  /** Settles when the server has closed. */
  readonly finished: Promise<void>;
  /** Stops accepting connections and resolves once in-flight requests have finished. */
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
  /** Reads into `buffer` from byte `position`; returns the number of bytes read (0 at end). */
  readSync(buffer: Uint8Array, position: number): number;
  /** Closes the file; safe to call twice. */
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
  /** Streams bytes `start` to `end` inclusive of a file; never reads it whole into memory. */
  openRange(path: string, start: number, end: number): Promise<ReadableStream<Uint8Array>>;
  /** Reads a whole (small) file. */
  readFile(path: string): Promise<Uint8Array>;
  /** Opens a file for synchronous positional reads. */
  openSync(path: string): SyncFile;
}

/** Options for a WebSocket upgrade at the runtime level. */
export interface RuntimeUpgradeOptions {
  /** The negotiated subprotocol, if any. */
  protocol?: string;
  /** Largest message in bytes; larger ones close the socket with 1009. */
  maxMessageBytes: number;
  /** Seconds of silence before the runtime closes the socket; 0 disables it. */
  idleTimeout?: number;
  /** Extra headers for the 101 response (set by middleware before the upgrade). */
  headers?: Headers;
}

/** A server-side WebSocket as the runtime exposes it. */
export interface RuntimeSocket {
  /** Sends a text or binary message. */
  send(data: string | Uint8Array): void;
  /** Starts the closing handshake. */
  close(code?: number, reason?: string): void;
  /** Sends a ping where the runtime allows it; returns false where it does not. */
  ping(): boolean;
  /** The negotiated subprotocol ("" when none). */
  readonly protocol: string;
}

/** Events a runtime socket reports. */
export interface RuntimeSocketEvents {
  onOpen(): void;
  onText(text: string): void;
  onBinary(data: Uint8Array): void;
  onPing(): void;
  onPong(): void;
  onClose(code: number, reason: string): void;
  onError(error: unknown): void;
}

/** The whole runtime interface. */
export interface Runtime {
  /** The runtime's name, for documentation of behaviour that differs. */
  readonly name: "deno" | "node";
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
  /** Reads an environment variable; undefined when unset or not permitted. */
  env(name: string): string | undefined;
  /** Whether standard error is a terminal. */
  stderrIsTerminal(): boolean;
  /** Writes a line (with its newline) to standard error. */
  writeStderr(line: string): void;
}
