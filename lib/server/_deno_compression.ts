// Compression on Deno: whole bodies through node:zlib (about three times faster than
// CompressionStream here), streams through CompressionStream, which Deno runs in Rust and
// which emits each written chunk's compressed bytes at once (gzip, deflate and brotli); zstd,
// which CompressionStream lacks, streams through node:zlib. Deno's CompressionStream takes no
// level: streamed gzip and deflate use zlib's default (6), brotli its own default.
import { compressSync, HAS_ZSTD, zlibStream } from "./_zlib.ts";
import type { ContentCoding, RuntimeCompression } from "./types.ts";

const FORMAT = { br: "brotli", gzip: "gzip", deflate: "deflate" } as const;

/**
 * Deno's compression; deno.ts adds `atHand` (of _deno_body.ts, which deno.ts imports: a module
 * reached from here too would sit behind a lazy-init wrapper in a single-file bundle).
 */
export const compression: Omit<RuntimeCompression, "atHand"> = {
  codings: HAS_ZSTD ? ["br", "zstd", "gzip", "deflate"] : ["br", "gzip", "deflate"],
  compress: compressSync,
  stream(coding: ContentCoding, level: number): TransformStream<Uint8Array, Uint8Array> {
    if (coding === "zstd") return zlibStream(coding, level);
    return new CompressionStream(FORMAT[coding] as CompressionFormat) as unknown as TransformStream<
      Uint8Array,
      Uint8Array
    >;
  },
};
