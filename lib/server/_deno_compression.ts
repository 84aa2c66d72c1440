// Compression on Deno: whole bodies through node:zlib (about three times faster than
// CompressionStream here), streams through CompressionStream, which Deno runs in Rust and
// which emits each written chunk's compressed bytes at once (gzip, deflate and brotli); zstd,
// which CompressionStream lacks, streams through node:zlib. Deno's CompressionStream takes no
// level: streamed gzip and deflate use zlib's default (6), brotli its own default.
import { compressSync, HAS_ZSTD, zlibStream } from "./_zlib.ts";
import type { ContentCoding, RuntimeCompression } from "./types.ts";
import { atHand } from "./_deno_body.ts";

const FORMAT = { br: "brotli", gzip: "gzip", deflate: "deflate" } as const;

/** Deno's compression. */
export const compression: RuntimeCompression = {
  codings: HAS_ZSTD ? ["br", "zstd", "gzip", "deflate"] : ["br", "gzip", "deflate"],
  compress: compressSync,
  atHand,
  stream(coding: ContentCoding, level: number): TransformStream<Uint8Array, Uint8Array> {
    if (coding === "zstd") return zlibStream(coding, level);
    return new CompressionStream(FORMAT[coding] as CompressionFormat) as unknown as TransformStream<
      Uint8Array,
      Uint8Array
    >;
  },
};
