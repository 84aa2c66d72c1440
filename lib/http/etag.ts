/**
 * Entity tags: the file ETag both static middlewares send (docs/architecture.md, decision 5)
 * and the comparison functions of RFC 9110 §8.8.3.2.
 *
 * @module
 */
import { sha256, toHex } from "./_sha256.ts";

// The comparisons live in their own module, so that code that only compares tags (the
// precondition checks) does not load SHA-256.
export { parseEtagList, strongMatch, weakMatch } from "./etag_compare.ts";

const encoder = /* @__PURE__ */ new TextEncoder();
const CACHE_LIMIT = 4096;
const cache = /* @__PURE__ */ new Map<string, string>();

/**
 * Computes the ETag of a file: `"` + the first 16 hex characters of the SHA-256 digest of
 * `<size>-<mtime_ns>` + `"`. Synchronous, so the WSGI middleware can use it; results are cached.
 *
 * `mtimeNs` is the best precision the runtime exposes: true nanoseconds on Node (identical to
 * Python's `st_mtime_ns`), milliseconds × 10⁶ on Deno.
 *
 * @param size The file size in bytes.
 * @param mtimeNs The modification time in nanoseconds since the epoch.
 * @returns The strong entity tag, quotes included.
 *
 * @example
 * ```ts
 * import { fileEtag } from "./etag.ts";
 * import assert from "node:assert/strict";
 *
 * // python3 -c 'import hashlib; print(hashlib.sha256(b"5-1700000000123000000").hexdigest()[:16])'
 * assert.equal(fileEtag(5, 1700000000123000000n), '"e9c94ce2173f370f"');
 * ```
 */
export function fileEtag(size: number, mtimeNs: bigint): string {
  const key = `${size}-${mtimeNs}`;
  let etag = cache.get(key);
  if (etag === undefined) {
    etag = `"${toHex(sha256(encoder.encode(key))).slice(0, 16)}"`;
    // A full cache is dropped wholesale: cheaper than LRU bookkeeping, and rebuilt on demand.
    if (cache.size >= CACHE_LIMIT) cache.clear();
    cache.set(key, etag);
  }
  return etag;
}
