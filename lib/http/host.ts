/**
 * The `Host` check both server adapters make before a request reaches the app.
 *
 * @module
 */

// RFC 9110 §7.2 and RFC 3986 §3.2.2: a reg-name or IPv4 address (unreserved, pct-encoded and
// sub-delims characters) or an IP literal in brackets, then an optional port. No "/", "?",
// "#", "@", "\" or white space: the runtimes build the request URL from Host, so any of
// those would let the client choose the path the app routes on.
const HOST = /^(?:[\w.~!$&'()*+,;=%-]+|\[[\da-fA-F:.]+\])(?::\d{1,5})?$/;

/**
 * Whether a `Host` value (or HTTP/2 `:authority`) is a valid `host[:port]`.
 *
 * @param value The header value.
 * @returns `true` when the value is a host with an optional port and nothing else.
 *
 * @example
 * ```ts
 * import { isHost } from "./host.ts";
 * import assert from "node:assert/strict";
 *
 * assert.equal(isHost("example.com:8080"), true);
 * assert.equal(isHost("[::1]:8000"), true);
 * assert.equal(isHost("x/private/data?"), false);
 * ```
 */
export function isHost(value: string): boolean {
  return HOST.test(value);
}
