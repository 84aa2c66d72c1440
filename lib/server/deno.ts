/**
 * The Deno runtime adapter: the only module of Weft's Deno build that touches `Deno.*`.
 * `scripts/build_npm.ts` replaces it with `node.ts` in the npm build.
 *
 * @module
 */
import type {
  FetchFunction,
  FileStat,
  Runtime,
  RuntimeFs,
  RuntimeServeOptions,
  RuntimeServer,
  RuntimeSocket,
  RuntimeSocketEvents,
  RuntimeUpgradeOptions,
  SyncFile,
} from "./types.ts";

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
  async openRange(path, start, end) {
    const file = await Deno.open(path, { read: true });
    if (start > 0) await file.seek(start, Deno.SeekMode.Start);
    let remaining = end - start + 1;
    if (start === 0 && remaining >= (await file.stat()).size) return file.readable;
    // Bounded read of a byte range: pull chunks until `remaining` bytes went out.
    return new ReadableStream<Uint8Array>({
      type: "bytes",
      async pull(controller) {
        const buffer = new Uint8Array(Math.min(remaining, 65_536));
        const n = await file.read(buffer);
        if (n === null || n === 0) {
          file.close();
          controller.close();
          return;
        }
        remaining -= n;
        controller.enqueue(buffer.subarray(0, n));
        if (remaining <= 0) {
          file.close();
          controller.close();
        }
      },
      cancel() {
        file.close();
      },
    });
  },
  readFile(path) {
    return Deno.readFile(path);
  },
  openSync(path): SyncFile {
    const file = Deno.openSync(path, { read: true });
    let closed = false;
    return {
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
};

/** Starts `Deno.serve`. */
export function serve(fetch: FetchFunction, options: RuntimeServeOptions): RuntimeServer {
  const tls = options.cert !== undefined && options.key !== undefined
    ? { cert: options.cert, key: options.key }
    : {};
  const server = Deno.serve({
    port: options.port,
    hostname: options.hostname,
    signal: options.signal,
    onListen: options.onListen ?? (() => {}),
    onError: options.onError,
    ...tls,
  }, (request, info) => fetch(request, { remoteAddr: info.remoteAddr }));
  const addr = server.addr as Deno.NetAddr;
  return {
    addr: { hostname: addr.hostname, port: addr.port },
    finished: server.finished,
    async shutdown() {
      await server.shutdown();
    },
  };
}

/** Upgrades with `Deno.upgradeWebSocket`. */
export function upgradeWebSocket(
  request: Request,
  options: RuntimeUpgradeOptions,
  events: (socket: RuntimeSocket) => RuntimeSocketEvents,
): Response {
  const { socket, response } = Deno.upgradeWebSocket(request, {
    protocol: options.protocol,
    idleTimeout: options.idleTimeout ?? 0,
  });
  socket.binaryType = "arraybuffer";
  const wrapped: RuntimeSocket = {
    send(data) {
      if (socket.readyState === WebSocket.OPEN) socket.send(data);
    },
    close(code, reason) {
      if (socket.readyState === WebSocket.OPEN || socket.readyState === WebSocket.CONNECTING) {
        socket.close(code, reason);
      }
    },
    ping() {
      return false; // Deno answers pings itself and exposes no ping API.
    },
    get protocol() {
      return socket.protocol;
    },
  };
  const handlers = events(wrapped);
  const max = options.maxMessageBytes;
  socket.onopen = () => handlers.onOpen();
  socket.onmessage = (event) => {
    const data = event.data;
    if (typeof data === "string") {
      // A UTF-16 length bounds the UTF-8 length from below; encode only when it may matter.
      if (data.length * 3 > max && new TextEncoder().encode(data).byteLength > max) {
        wrapped.close(1009, "Message too big");
        return;
      }
      handlers.onText(data);
    } else {
      const bytes = new Uint8Array(data as ArrayBuffer);
      if (bytes.byteLength > max) {
        wrapped.close(1009, "Message too big");
        return;
      }
      handlers.onBinary(bytes);
    }
  };
  socket.onclose = (event) => handlers.onClose(event.code, event.reason);
  socket.onerror = (event) => handlers.onError((event as ErrorEvent).error ?? event);
  if (options.headers) {
    for (const [name, value] of options.headers) response.headers.set(name, value);
  }
  return response;
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
 * The Deno implementation of the runtime interface. Modules import the named functions above
 * (so bundlers can drop what an app does not use); this object proves they fit the interface.
 */
export const runtime: Runtime = {
  name: "deno",
  serve,
  upgradeWebSocket,
  fs,
  env,
  stderrIsTerminal,
  writeStderr,
};
