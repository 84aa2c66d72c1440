/**
 * The Deno runtime adapter: the only module of Weft's Deno build that touches `Deno.*`.
 * `scripts/build_npm.ts` replaces it with `node.ts` in the npm build.
 *
 * @module
 */
import type {
  ConnInfo,
  FetchFunction,
  FileStat,
  LoadCompression,
  OpenFile,
  Runtime,
  RuntimeFs,
  RuntimeServeOptions,
  RuntimeServer,
  RuntimeSocket,
  RuntimeSocketEvents,
  RuntimeUpgradeOptions,
  ShutdownRegistry,
  SyncFile,
} from "./types.ts";
import { SHUTDOWN } from "./types.ts";
import { isHost } from "../http/host.ts";
import { problem } from "../http/problem.ts";
import { atHand } from "./_deno_body.ts";

function toStat(info: Deno.FileInfo): FileStat {
  const mtimeMs = info.mtime?.getTime() ?? 0;
  return {
    isFile: info.isFile,
    isDirectory: info.isDirectory,
    size: info.size,
    mtimeMs,
    mtimeNs: BigInt(mtimeMs) * 1_000_000n,
  };
}

/** File-system calls. */
export const fs: RuntimeFs = {
  async stat(path) {
    try {
      return toStat(await Deno.stat(path));
    } catch {
      return null;
    }
  },
  statSync(path) {
    try {
      return toStat(Deno.statSync(path));
    } catch {
      return null;
    }
  },
  async realPath(path) {
    try {
      return await Deno.realPath(path);
    } catch {
      return null;
    }
  },
  realPathSync(path) {
    try {
      return Deno.realPathSync(path);
    } catch {
      return null;
    }
  },
  openSync(path): SyncFile {
    const file = Deno.openSync(path, { read: true });
    let closed = false;
    return {
      statSync: () => toStat(file.statSync()),
      readSync(buffer, position) {
        file.seekSync(position, Deno.SeekMode.Start);
        return file.readSync(buffer) ?? 0;
      },
      close() {
        if (!closed) {
          closed = true;
          file.close();
        }
      },
    };
  },
  open,
};

const CHUNK_SIZE = 65_536;

// A file opened with Deno.open: positional reads through a tracked cursor (a seek only when
// the position jumps), and streams that Deno.serve sends from Rust when they run to the end.
function openFile(file: Deno.FsFile, stat: FileStat): OpenFile {
  let cursor = 0;
  let closed = false;
  let owned = false; // handed to a stream, which closes it
  function close(): void {
    if (closed) return;
    closed = true;
    try {
      file.close();
    } catch {
      // already closed by a stream that ran to its end
    }
  }
  return {
    stat,
    async read(buffer, position) {
      if (position !== cursor) await file.seek(position, Deno.SeekMode.Start);
      const n = (await file.read(buffer)) ?? 0;
      cursor = position + n;
      return n;
    },
    async stream(start, end) {
      if (owned) throw new TypeError("Cannot stream the file: it is already being streamed");
      owned = true;
      if (start !== cursor) await file.seek(start, Deno.SeekMode.Start);
      // 1. to the end of the file: the resource-backed stream, which Deno.serve pipes in Rust
      //    (a file that grew is cut at Content-Length by the server)
      if (end + 1 >= stat.size) {
        closed = true; // the readable closes the file at its end or on cancel
        return file.readable;
      }
      // 2. a bounded range: pull chunks until `remaining` bytes went out
      let remaining = end - start + 1;
      return new ReadableStream<Uint8Array>({
        type: "bytes",
        async pull(controller) {
          const buffer = new Uint8Array(Math.min(remaining, CHUNK_SIZE));
          let n: number | null;
          try {
            n = await file.read(buffer);
          } catch (error) {
            close();
            throw error;
          }
          if (n === null || n === 0) {
            close();
            controller.close();
            return;
          }
          remaining -= n;
          controller.enqueue(buffer.subarray(0, n));
          if (remaining <= 0) {
            close();
            controller.close();
          }
        },
        cancel() {
          close();
        },
      });
    },
    close() {
      if (!owned) close();
    },
  };
}

/** Opens a file for asynchronous reads with the `fstat` of the open file. */
async function open(path: string): Promise<OpenFile | null> {
  let file: Deno.FsFile;
  try {
    file = await Deno.open(path, { read: true });
  } catch {
    return null;
  }
  try {
    return openFile(file, toStat(await file.stat()));
  } catch {
    file.close();
    return null;
  }
}

// What a server closes on shutdown: its WebSockets (with 1001) and event streams, each as a
// function. serve() hands every request a ConnInfo that carries it under SHUTDOWN, so that
// upgradeWebSocket() and sse() find it through `ctx.info`: a WeakMap keyed by request would
// make GC work for every request, while a property on an object made anyway costs nothing.
interface OpenSockets extends ShutdownRegistry {
  closing: boolean;
}

// Deno reads the peer address with an op call on every access, so it is read only on demand.
class ServedInfo implements ConnInfo {
  readonly [SHUTDOWN]: OpenSockets;
  readonly #info: Deno.ServeHandlerInfo<Deno.NetAddr>;
  constructor(info: Deno.ServeHandlerInfo<Deno.NetAddr>, open: OpenSockets) {
    this.#info = info;
    this[SHUTDOWN] = open;
  }
  get remoteAddr(): { hostname: string; port: number } {
    return this.#info.remoteAddr;
  }
}

const SHUTDOWN_REASON = "Server shutting down";

// Deno keeps its inner request under an own symbol described "request", whose header(name)
// reads one header through an op without building the request's Headers, which an app that
// reads no header would otherwise build for this check alone (docs/architecture.md, "Deno
// internals"). Probed on the first request, and taken only when it agrees with the public API
// there; `null`: not found, the public API is used.
type Inner = Record<symbol, { header(name: string): string | null }>;
let inner: symbol | null | undefined;

function hostOf(request: Request): string | null {
  if (inner === undefined) inner = probeInner(request);
  return inner === null
    ? request.headers.get("host")
    : (request as unknown as Inner)[inner].header("host");
}

function probeInner(request: Request): symbol | null {
  for (const key of Object.getOwnPropertySymbols(request)) {
    const value = (request as unknown as Inner)[key];
    if (
      key.description === "request" && typeof value?.header === "function" &&
      value.header("host") === request.headers.get("host")
    ) return key;
  }
  return null;
}

/**
 * Whether the Host check reads the header through Deno's inner request (`undefined` before the
 * first request). Read by tests/deno_internals_test.ts only (bundlers drop it).
 */
export function innerHeaderLive(): boolean | undefined {
  return inner === undefined ? undefined : inner !== null;
}

/**
 * Starts `Deno.serve`. `shutdown()` and the abort signal first close every WebSocket the server
 * upgraded with 1001 and run the other closers of its registry (event streams end), then let
 * `Deno.serve` finish the in-flight requests. The signal is not
 * handed to `Deno.serve`: on abort, Deno 2.9 sends open WebSockets a close frame with code 1005,
 * which RFC 6455 §7.4.1 forbids on the wire (the npm `ws` client fails with "invalid status
 * code 1005").
 */
export function serve(fetch: FetchFunction, options: RuntimeServeOptions): RuntimeServer {
  const tls = options.cert !== undefined && options.key !== undefined
    ? { cert: options.cert, key: options.key }
    : {};
  const open: OpenSockets = { closing: false, closers: new Set() };
  let lastHost = ""; // the last Host that passed the check; clients mostly send one
  const server = Deno.serve({
    port: options.port,
    hostname: options.hostname,
    onListen: options.onListen ?? (() => {}),
    // Deno.serve reports every failed body here; serve()'s onError logs it, or leaves out a body
    // failed on purpose (INTENDED_CUT).
    onError: options.onError!,
    ...tls,
  }, (request, info) => {
    // Deno builds request.url from Host: a Host with a path in it would choose the route.
    const host = hostOf(request);
    if (host !== null && host !== lastHost) {
      if (!isHost(host)) {
        return problem({ status: 400, detail: "The Host header is not a valid host[:port]" });
      }
      lastHost = host;
    }
    return fetch(request, new ServedInfo(info, open));
  });
  let stopping: Promise<void> | undefined;
  function shutdown(): Promise<void> {
    return stopping ??= (() => {
      open.closing = true;
      for (const close of open.closers) close();
      return server.shutdown();
    })();
  }
  const signal = options.signal;
  if (signal !== undefined) {
    if (signal.aborted) shutdown();
    else {
      const onAbort = () => void shutdown();
      signal.addEventListener("abort", onAbort, { once: true });
      server.finished.then(() => signal.removeEventListener("abort", onAbort), () => {});
    }
  }
  const addr = server.addr as Deno.NetAddr;
  return {
    addr: { hostname: addr.hostname, port: addr.port },
    finished: server.finished,
    shutdown,
  };
}

// Whether a string is longer than `max` bytes once encoded as UTF-8, without encoding it.
function exceedsUtf8(text: string, max: number): boolean {
  const length = text.length;
  if (length > max) return true; // every UTF-16 code unit takes at least one byte
  if (length * 3 <= max) return false; // and at most three
  let bytes = 0;
  for (let i = 0; i < length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) bytes += 1;
    else if (c < 0x800) bytes += 2;
    else if (c >= 0xd800 && c <= 0xdbff) {
      bytes += 4; // a surrogate pair: one four-byte sequence
      i++;
    } else bytes += 3;
    if (bytes > max) return true;
  }
  return false;
}

/**
 * Upgrades with `Deno.upgradeWebSocket`. What Deno does itself, before Weft sees anything:
 * it reassembles fragmented messages without a limit on their total size, refuses a single
 * frame over 64 MiB by dropping the connection ("Frame too large"), answers pings and hides
 * pings and pongs, and drops the connection without a close frame on a text message that is
 * not valid UTF-8 (the peer sees 1006, not 1007). `maxMessageBytes` is therefore checked once
 * a whole message has arrived.
 */
export function upgradeWebSocket(
  request: Request,
  options: RuntimeUpgradeOptions,
  events: (socket: RuntimeSocket) => RuntimeSocketEvents,
): Response {
  // The protocol goes into the 101 here, not through Deno: Deno splits the client's list on
  // ", " only, and throws for "json" offered as "xml,json" (RFC 9110 §5.6.1 allows no space).
  const { socket, response } = Deno.upgradeWebSocket(request, {
    idleTimeout: options.idleTimeout ?? 0,
  });
  if (options.protocol) response.headers.set("sec-websocket-protocol", options.protocol);
  socket.binaryType = "arraybuffer";
  const open = (options.info as Partial<ServedInfo> | undefined)?.[SHUTDOWN];
  // The code and reason of the close frame the server sent, which onClose reports: Deno's close
  // event carries 1005 for a handshake the server started, whatever the peer answered.
  let sent: [number, string] | undefined;
  const wrapped: RuntimeSocket = {
    send(data) {
      if (socket.readyState === WebSocket.OPEN) socket.send(data);
    },
    close(code, reason) {
      if (sent !== undefined || socket.readyState !== WebSocket.OPEN) return;
      sent = [code ?? 1005, reason ?? ""];
      socket.close(code, reason);
    },
    ping() {
      return false; // Deno answers pings itself and exposes no ping API.
    },
    get bufferedAmount() {
      return socket.bufferedAmount;
    },
    // Deno leaves the server side's `socket.protocol` empty; the 101 carries this one.
    protocol: options.protocol ?? "",
  };
  const closeForShutdown = () => wrapped.close(1001, SHUTDOWN_REASON);
  const handlers = events(wrapped);
  const max = options.maxMessageBytes;
  socket.onopen = () => {
    open?.closers.add(closeForShutdown);
    handlers.onOpen();
    if (open?.closing) closeForShutdown(); // upgraded while the server was shutting down
  };
  socket.onmessage = (event) => {
    if (sent !== undefined) return;
    const data = event.data;
    if (typeof data === "string") {
      if (exceedsUtf8(data, max)) wrapped.close(1009, "Message too big");
      else handlers.onText(data);
    } else {
      const bytes = new Uint8Array(data as ArrayBuffer);
      if (bytes.byteLength > max) wrapped.close(1009, "Message too big");
      else handlers.onBinary(bytes);
    }
  };
  let closed = false;
  socket.onclose = (event) => {
    // Deno's idle timeout dispatches a second close event after its own.
    if (closed) return;
    closed = true;
    open?.closers.delete(closeForShutdown);
    if (sent !== undefined) handlers.onClose(sent[0], sent[1], false);
    // A close frame from the peer: Deno echoes it and reports its code (1005 when it had none).
    else if (event.wasClean && event.code >= 1000) handlers.onClose(event.code, event.reason, true);
    // Deno's own idle timeout: it sent 1001 ("No response from ping frame.").
    else if (event.code >= 1000) handlers.onClose(event.code, event.reason, false);
    else handlers.onClose(1006, "", false); // dropped: an error, invalid UTF-8, a lost peer
  };
  socket.onerror = (event) => {
    const error = (event as ErrorEvent).error;
    handlers.onError(error ?? new Error((event as ErrorEvent).message ?? "WebSocket error"));
  };
  return response;
}

/** Whether a value is a `Response`. */
export function isResponse(value: unknown): value is Response {
  return value instanceof Response;
}

/** Reads an environment variable; undefined when unset or not permitted. */
export function env(name: string): string | undefined {
  try {
    return Deno.env.get(name);
  } catch {
    return undefined;
  }
}

/** Whether standard error is a terminal. */
export function stderrIsTerminal(): boolean {
  return Deno.stderr.isTerminal();
}

/** Writes text to standard error. */
export function writeStderr(line: string): void {
  Deno.stderr.writeSync(new TextEncoder().encode(line));
}

/**
 * Whether `clone()` of a response with a string body is cheap and shares nothing a reader could
 * change: on Deno a clone copies the header list without validating it again, and reading its
 * body encodes the string anew. (A clone of a byte body shares its bytes.)
 */
export const CLONE_TEXT_RESPONSES = true;

/**
 * The string or bytes a response was made from, while nothing has touched its body (Deno
 * sends such a body whole, with its Content-Length); `undefined` otherwise.
 */
export { atHand as bodyAtHand };

/**
 * Loads Deno's compression (CompressionStream for streams, node:zlib for whole bodies) on
 * first use, so that apps that never compress load none of it.
 */
export const loadCompression: LoadCompression = () =>
  import("./_deno_compression.ts").then((module) => ({ ...module.compression, atHand }));

/**
 * The Deno implementation of the runtime interface. Modules import the named functions above
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
