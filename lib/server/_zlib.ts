// Compression with node:zlib, which both runtimes implement: one-shot compression of whole
// bodies (measured faster than CompressionStream on both: 64 KiB of JSON at gzip level 6 takes
// 0.27 ms on Deno and Node, against 0.8 ms and 2.5 ms through CompressionStream) and a Web
// stream over a zlib stream that flushes after every chunk. Both adapters use it.
import { Buffer } from "node:buffer";
import * as zlib from "node:zlib";
import type { ContentCoding } from "./types.ts";

type Zlib = ReturnType<typeof zlib.createGzip>;

// zstd arrived in Node 22.15 and 23.8; Deno has it.
const zstd = zlib as unknown as {
  zstdCompressSync?: (data: Uint8Array, options?: object) => Uint8Array;
  createZstdCompress?: (options?: object) => Zlib;
  constants: { ZSTD_c_compressionLevel?: number };
};

/** Whether this runtime's node:zlib has zstd. */
export const HAS_ZSTD: boolean = typeof zstd.zstdCompressSync === "function" &&
  typeof zstd.createZstdCompress === "function";

function brotliOptions(level: number): zlib.BrotliOptions {
  return { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: level } };
}

function zstdOptions(level: number): object {
  return { params: { [zstd.constants.ZSTD_c_compressionLevel ?? 100]: level } };
}

function view(buffer: Uint8Array): Uint8Array<ArrayBuffer> {
  return new Uint8Array(buffer.buffer as ArrayBuffer, buffer.byteOffset, buffer.byteLength);
}

/** Compresses a whole body. */
export function compressSync(
  coding: ContentCoding,
  bytes: Uint8Array | string,
  level: number,
): Uint8Array<ArrayBuffer> {
  // A string as UTF-8 bytes first: Deno's zlib takes a string about 30 µs slower for 64 KiB.
  if (typeof bytes === "string") bytes = Buffer.from(bytes);
  switch (coding) {
    case "gzip":
      return view(zlib.gzipSync(bytes, { level }));
    case "deflate":
      return view(zlib.deflateSync(bytes, { level }));
    case "br":
      return view(zlib.brotliCompressSync(bytes, brotliOptions(level)));
    case "zstd":
      return view(zstd.zstdCompressSync!(bytes, zstdOptions(level)));
  }
}

function create(coding: ContentCoding, level: number): Zlib {
  switch (coding) {
    case "gzip":
      return zlib.createGzip({ level });
    case "deflate":
      return zlib.createDeflate({ level });
    case "br":
      return zlib.createBrotliCompress(brotliOptions(level)) as unknown as Zlib;
    case "zstd":
      return zstd.createZstdCompress!(zstdOptions(level));
  }
}

/**
 * A Web stream over a zlib stream: each chunk is written and flushed (`Z_SYNC_FLUSH`, or the
 * coding's equivalent), so its compressed bytes are enqueued before the next chunk is taken.
 */
export function zlibStream(
  coding: ContentCoding,
  level: number,
): TransformStream<Uint8Array, Uint8Array> {
  const z = create(coding, level);
  let failure: unknown;
  let out: TransformStreamDefaultController<Uint8Array> | undefined;
  z.on("data", (chunk: Uint8Array) => {
    try {
      out?.enqueue(view(chunk));
    } catch {
      // the readable side was cancelled: nothing to deliver
    }
  });
  z.on("error", (error: unknown) => failure = error);
  function flushed(): Promise<void> {
    return new Promise((resolve, reject) => {
      z.flush(() => failure === undefined ? resolve() : reject(failure));
    });
  }
  return new TransformStream<Uint8Array, Uint8Array>({
    start(controller) {
      out = controller;
    },
    transform(chunk) {
      z.write(chunk);
      return flushed();
    },
    flush() {
      return new Promise((resolve, reject) => {
        z.once("end", () => failure === undefined ? resolve() : reject(failure));
        z.end();
        z.resume();
      });
    },
    cancel() {
      z.destroy();
    },
  });
}
