/**
 * URLs checked for a safe scheme, for `{{url path}}` at the start of `href`, `src` or `action`.
 *
 * @module
 */
import type { SafeUrl } from "./types.ts";

const SAFE_SCHEMES = new Set(["http", "https", "mailto", "tel"]);

/** What `safeUrl()` returns for a URL with any other scheme: a link that goes nowhere. */
export const INVALID_URL = "about:invalid#weft-unsafe-url";

/**
 * Checks that `url` is relative or uses the `http`, `https`, `mailto` or `tel` scheme, as the
 * URL parser will read it (WHATWG URL: tabs and newlines removed, leading and trailing controls
 * and spaces stripped). Any other scheme — `javascript:`, `data:`, `vbscript:` … — is replaced by
 * `INVALID_URL`. The result is still HTML-escaped where it is printed.
 *
 * @param url A URL from untrusted data.
 * @returns `url` itself when safe, otherwise `INVALID_URL`; typed `SafeUrl`.
 *
 * @example Accept links, refuse scripts
 * ```ts
 * import { INVALID_URL, safeUrl } from "./mod.ts";
 * import assert from "node:assert/strict";
 *
 * assert.equal(safeUrl("https://example.com/?q=1"), "https://example.com/?q=1");
 * assert.equal(safeUrl("/users/42"), "/users/42");
 * assert.equal(safeUrl(" java\tscript:alert(1)"), INVALID_URL);
 * ```
 */
export function safeUrl(url: string): SafeUrl {
  // WHATWG URL §4.4 basic URL parser: strip C0 controls and spaces, remove tab and newlines.
  // (A scan, not /[\0-\x20]+$/, which backtracks quadratically on a long run of spaces.)
  let start = 0;
  let end = url.length;
  while (start < end && url.charCodeAt(start) <= 0x20) start++;
  while (end > start && url.charCodeAt(end - 1) <= 0x20) end--;
  const cleaned = url.slice(start, end).replace(/[\t\n\r]/g, "");
  const scheme = /^([a-zA-Z][a-zA-Z0-9+.\-]*):/.exec(cleaned);
  if (scheme !== null && !SAFE_SCHEMES.has(scheme[1].toLowerCase())) {
    return INVALID_URL as SafeUrl;
  }
  return url as SafeUrl;
}
