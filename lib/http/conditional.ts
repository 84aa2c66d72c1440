/**
 * Conditional requests (RFC 9110 §13): the precondition evaluation both static middlewares
 * share.
 *
 * @module
 */
import { parseHttpDate } from "./date.ts";
import { parseEtagList, strongMatch, weakMatch } from "./etag_compare.ts";

/** Anything that reads request headers by lower-case name, such as a fetch `Headers`. */
export interface HeaderReader {
  /** Returns the header's value, or `null` when it is absent. */
  get(name: string): string | null;
}

/** The request and the representation's validators, as {@linkcode evaluatePreconditions} needs them. */
export interface PreconditionInput {
  /** The request method, upper case. */
  method: string;
  /** The request headers. */
  headers: HeaderReader;
  /** The current representation's entity tag, quotes included. */
  etag: string;
  /** The current representation's modification time in milliseconds since the epoch. */
  lastModifiedMs: number;
}

/** The outcome of {@linkcode evaluatePreconditions}: perform the method, or answer 304 or 412. */
export type PreconditionResult = "ok" | 304 | 412;

/**
 * Evaluates `If-Match`, `If-Unmodified-Since`, `If-None-Match` and `If-Modified-Since` in the
 * order of RFC 9110 §13.2.2. Unparseable dates are ignored; dates compare at one-second
 * precision, the precision of an HTTP date.
 *
 * @param input The request method and headers and the representation's validators.
 * @returns `"ok"` to perform the method, `304` (GET and HEAD) or `412`.
 *
 * @example A matching If-None-Match answers 304
 * ```ts
 * import { evaluatePreconditions } from "./conditional.ts";
 * import assert from "node:assert/strict";
 *
 * const etag = '"abc"';
 * const lastModifiedMs = Date.UTC(2024, 0, 1);
 * const check = (method: string, headers: HeadersInit) =>
 *   evaluatePreconditions({ method, headers: new Headers(headers), etag, lastModifiedMs });
 *
 * assert.equal(check("GET", { "if-none-match": 'W/"x", W/"abc"' }), 304);
 * assert.equal(check("PUT", { "if-none-match": "*" }), 412);
 * assert.equal(check("GET", { "if-match": '"other"' }), 412);
 * assert.equal(check("GET", { "if-modified-since": "Mon, 01 Jan 2024 00:00:00 GMT" }), 304);
 * assert.equal(check("GET", {}), "ok");
 * ```
 */
export function evaluatePreconditions(input: PreconditionInput): PreconditionResult {
  const { method, headers, etag } = input;
  const lastModified = Math.floor(input.lastModifiedMs / 1000) * 1000;

  // 1. If-Match (strong comparison), else If-Unmodified-Since — RFC 9110 §13.1.1, §13.1.4
  const ifMatch = headers.get("if-match");
  if (ifMatch !== null) {
    if (!anyMatch(ifMatch, etag, strongMatch)) return 412;
  } else {
    const ifUnmodifiedSince = headers.get("if-unmodified-since");
    if (ifUnmodifiedSince !== null) {
      const date = parseHttpDate(ifUnmodifiedSince);
      if (date !== null && lastModified > date) return 412;
    }
  }

  // 2. If-None-Match (weak comparison), else If-Modified-Since — RFC 9110 §13.1.2, §13.1.3
  const safe = method === "GET" || method === "HEAD";
  const ifNoneMatch = headers.get("if-none-match");
  if (ifNoneMatch !== null) {
    if (anyMatch(ifNoneMatch, etag, weakMatch)) return safe ? 304 : 412;
  } else if (safe) {
    const ifModifiedSince = headers.get("if-modified-since");
    if (ifModifiedSince !== null) {
      const date = parseHttpDate(ifModifiedSince);
      if (date !== null && lastModified <= date) return 304;
    }
  }
  return "ok";
}

function anyMatch(
  header: string,
  etag: string,
  match: (a: string, b: string) => boolean,
): boolean {
  const tags = parseEtagList(header);
  if (tags === "*") return true;
  for (const tag of tags) if (match(tag, etag)) return true;
  return false;
}
