/**
 * Making a path taken from a request safe to send back in a `Location` header.
 *
 * @module
 */

// The leading run (possibly empty) of "/", "\", tab, LF, CR, and of %2F, %5C, %09, %0A, %0D in
// either case: each alternative starts with its own character, so the match is linear.
const SLASH_LIKE = /^(?:[/\\\t\n\r]|%(?:2f|5c|0[9ad]))*/i;

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
  return path.replace(SLASH_LIKE, "/");
}
