/**
 * Making a path taken from a request safe to send back in a `Location` header.
 *
 * @module
 */

/**
 * Returns `path` as a `Location` value that resolves to the same origin. A browser reads a
 * leading `//` or `/\` as the start of another host (WHATWG URL: a backslash is a slash in
 * special URLs, and tabs and newlines are removed before parsing), so the leading run of `/`,
 * `\`, tab, CR and LF, and of their percent-encoded forms (`%2F`, `%5C`, `%09`, `%0D`, `%0A`,
 * which a proxy or a later redirect may decode), becomes one `/`. A path that does not start
 * with `/` gets one. Anything after the leading run is kept as it is.
 *
 * @param path A path as the request sent it, such as `ctx.path`.
 * @returns A path that starts with exactly one `/` followed by no slash-like character.
 *
 * @example
 * ```ts
 * import { sameOriginPath } from "./same_origin_path.ts";
 * import assert from "node:assert/strict";
 *
 * assert.equal(sameOriginPath("/users/7"), "/users/7");
 * assert.equal(sameOriginPath("/\\evil.example"), "/evil.example");
 * assert.equal(sameOriginPath("/%2F%5cevil.example/a"), "/evil.example/a");
 * assert.equal(new URL(sameOriginPath("//evil.example"), "http://localhost/").origin, "http://localhost");
 * ```
 */
export function sameOriginPath(path: string): string {
  let i = 0;
  while (i < path.length) {
    const c = path.charCodeAt(i);
    if (c === 0x2f || c === 0x5c || c === 0x09 || c === 0x0a || c === 0x0d) i++;
    else if (c === 0x25 && isSlashLikeEscape(path.charCodeAt(i + 1), path.charCodeAt(i + 2))) {
      i += 3;
    } else break;
  }
  // The common case: one "/" and then an ordinary character.
  if (i === 1 && path.charCodeAt(0) === 0x2f) return path;
  return "/" + path.slice(i);
}

// %2F, %5C, %09, %0A, %0D in either case.
function isSlashLikeEscape(hi: number, lo: number): boolean {
  const low = lo | 0x20; // ASCII lower case for the hex letter
  if (hi === 0x32) return low === 0x66; // 2F
  if (hi === 0x35) return low === 0x63; // 5C
  if (hi === 0x30) return lo === 0x39 || low === 0x61 || low === 0x64; // 09, 0A, 0D
  return false;
}
