// Compression on Node: node:zlib for whole bodies and for streams (Node's CompressionStream
// is a zlib stream behind a Web-stream bridge, slower and without per-chunk flushes). zstd
// exists from Node 22.15.
import { compressSync, HAS_ZSTD, zlibStream } from "./_zlib.ts";
import type { RuntimeCompression } from "./types.ts";

/**
 * Node's compression; node.ts adds `atHand` (`bodyAtHand()` of _node_send.ts, which the core
 * chunk holds: imported from here, it would split that module into a chunk of its own).
 */
export const compression: Omit<RuntimeCompression, "atHand"> = {
  codings: HAS_ZSTD ? ["br", "zstd", "gzip", "deflate"] : ["br", "gzip", "deflate"],
  compress: compressSync,
  stream: zlibStream,
};
