/**
 * Entity tags: the file ETag both static middlewares send (DESIGN.md decision 5) and the
 * comparison functions of RFC 9110 §8.8.3.2.
 *
 * @module
 */
import { sha256, toHex } from "./_sha256.ts";

const encoder = new TextEncoder();
const CACHE_LIMIT = 4096;
const cache = new Map<string, string>();

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

/**
 * Parses the value of `If-Match` or `If-None-Match` (RFC 9110 §13.1.1–§13.1.2): `*` or a
 * comma-separated list of entity tags. Malformed members are skipped.
 *
 * @param value The header value.
 * @returns `"*"`, or the entity tags as written (`W/"x"` keeps its weak prefix).
 *
 * @example
 * ```ts
 * import { parseEtagList } from "./etag.ts";
 * import assert from "node:assert/strict";
 *
 * assert.deepEqual(parseEtagList(' "a", W/"b" ,junk, "c"'), ['"a"', 'W/"b"', '"c"']);
 * assert.equal(parseEtagList(" * "), "*");
 * ```
 */
export function parseEtagList(value: string): string[] | "*" {
  const tags: string[] = [];
  const n = value.length;
  let i = 0;
  while (i < n) {
    // 1. skip OWS and empty list members
    let c = value.charCodeAt(i);
    if (c === 0x20 || c === 0x09 || c === 0x2c) {
      i++;
      continue;
    }
    // 2. `*` alone
    if (c === 0x2a && tags.length === 0 && value.slice(i + 1).trim() === "") return "*";
    // 3. entity-tag = [ "W/" ] DQUOTE *etagc DQUOTE
    const start = i;
    if (c === 0x57 && value.charCodeAt(i + 1) === 0x2f) {
      i += 2;
      c = value.charCodeAt(i);
    }
    let ok = false;
    if (c === 0x22) {
      const close = value.indexOf('"', i + 1);
      if (close !== -1) {
        const after = value.charCodeAt(close + 1);
        // the tag must end the member (followed by OWS, a comma or the end)
        if (close + 1 === n || after === 0x2c || after === 0x20 || after === 0x09) {
          ok = isEtagc(value, i + 1, close);
          i = close + 1;
          if (ok) tags.push(value.slice(start, i));
        }
      }
    }
    if (!ok) {
      // 4. malformed member: skip to the next comma
      const comma = value.indexOf(",", i);
      i = comma === -1 ? n : comma + 1;
    }
  }
  return tags;
}

// etagc = %x21 / %x23-7E / obs-text (RFC 9110 §8.8.3)
function isEtagc(value: string, from: number, to: number): boolean {
  for (let i = from; i < to; i++) {
    const c = value.charCodeAt(i);
    if (c < 0x21 || c === 0x7f || c > 0xff) return false;
  }
  return true;
}

function opaque(tag: string): string {
  return tag.startsWith("W/") ? tag.slice(2) : tag;
}

/**
 * Weak comparison (RFC 9110 §8.8.3.2): the opaque tags match, weak or not.
 *
 * @param a An entity tag.
 * @param b Another entity tag.
 * @returns Whether they match weakly.
 *
 * @example
 * ```ts
 * import { weakMatch } from "./etag.ts";
 * import assert from "node:assert/strict";
 *
 * assert.equal(weakMatch('W/"1"', '"1"'), true);
 * assert.equal(weakMatch('W/"1"', 'W/"2"'), false);
 * ```
 */
export function weakMatch(a: string, b: string): boolean {
  return opaque(a) === opaque(b);
}

/**
 * Strong comparison (RFC 9110 §8.8.3.2): neither tag is weak and both are identical.
 *
 * @param a An entity tag.
 * @param b Another entity tag.
 * @returns Whether they match strongly.
 *
 * @example
 * ```ts
 * import { strongMatch } from "./etag.ts";
 * import assert from "node:assert/strict";
 *
 * assert.equal(strongMatch('"1"', '"1"'), true);
 * assert.equal(strongMatch('W/"1"', 'W/"1"'), false);
 * ```
 */
export function strongMatch(a: string, b: string): boolean {
  return a === b && !a.startsWith("W/");
}
