/**
 * Range requests (RFC 9110 §14): one `bytes` range per request, `If-Range`, and the
 * `Content-Range` values for 206 and 416.
 *
 * @module
 */
import type { HeaderReader } from "./conditional.ts";
import { parseHttpDate } from "./date.ts";
import { strongMatch } from "./etag_compare.ts";

/**
 * How to answer a request for a representation of a known size: in full (200), one byte range
 * (206, `start` to `end` inclusive) or 416 with `Content-Range: bytes *\/size`.
 */
export type ByteRange =
  | { kind: "full" }
  | { kind: "partial"; start: number; end: number; contentRange: string }
  | { kind: "unsatisfiable"; contentRange: string };

const FULL: ByteRange = /* @__PURE__ */ Object.freeze({ kind: "full" });

/**
 * Parses a `Range` header value against a representation of `size` bytes (RFC 9110 §14.1.1).
 * Only a single `bytes` range is honoured: several ranges, other units and malformed values
 * all give the full representation, which RFC 9110 §14.2 allows.
 *
 * @param value The `Range` header value.
 * @param size The representation's length in bytes.
 * @returns The range to send.
 *
 * @example
 * ```ts
 * import { parseRange } from "./range.ts";
 * import assert from "node:assert/strict";
 *
 * assert.deepEqual(parseRange("bytes=0-0", 1000), { kind: "partial", start: 0, end: 0, contentRange: "bytes 0-0/1000" });
 * assert.deepEqual(parseRange("bytes=-1", 1000), { kind: "partial", start: 999, end: 999, contentRange: "bytes 999-999/1000" });
 * assert.deepEqual(parseRange("bytes=500-", 1000), { kind: "partial", start: 500, end: 999, contentRange: "bytes 500-999/1000" });
 * assert.deepEqual(parseRange("bytes=1000-", 1000), { kind: "unsatisfiable", contentRange: "bytes *\/1000" });
 * assert.deepEqual(parseRange("bytes=0-1,5-9", 1000), { kind: "full" });
 * ```
 */
export function parseRange(value: string, size: number): ByteRange {
  // 1. the unit (case-insensitive, RFC 9110 §14.1) and a single non-empty list member
  const eq = value.indexOf("=");
  if (eq === -1 || value.slice(0, eq).trim().toLowerCase() !== "bytes") return FULL;
  const members = value.slice(eq + 1).split(",").filter((m) => m.trim() !== "");
  if (members.length !== 1) return FULL;
  const m = scanSpec(members[0]);
  if (m === null || (m[0] === "" && m[1] === "")) return FULL;

  let start: number, end: number;
  if (m[0] === "") {
    // 2. suffix range: the last N bytes
    const length = Number(m[1]);
    if (length === 0 || size === 0) return unsatisfiable(size);
    start = Math.max(0, size - length);
    end = size - 1;
  } else {
    // 3. first-last or first-
    start = Number(m[0]);
    end = m[1] === "" ? Infinity : Number(m[1]);
    if (end < start) return FULL; // invalid range-spec: ignore the header
    if (start >= size) return unsatisfiable(size);
    end = Math.min(end, size - 1);
  }
  return { kind: "partial", start, end, contentRange: `bytes ${start}-${end}/${size}` };
}

// Reads `OWS [first] OWS "-" OWS [last] OWS` (OWS is spaces and tabs, the positions ASCII
// digits) in one pass; a regular expression for it backtracks quadratically on long runs of
// spaces. Returns the two digit strings, either possibly empty, or null.
function scanSpec(spec: string): [string, string] | null {
  let i = skipBlanks(spec, 0);
  const firstEnd = skipDigits(spec, i);
  const first = spec.slice(i, firstEnd);
  i = skipBlanks(spec, firstEnd);
  if (spec.charCodeAt(i) !== 0x2d) return null; // "-"
  i = skipBlanks(spec, i + 1);
  const lastEnd = skipDigits(spec, i);
  const last = spec.slice(i, lastEnd);
  return skipBlanks(spec, lastEnd) === spec.length ? [first, last] : null;
}

function skipBlanks(s: string, i: number): number {
  let c = s.charCodeAt(i);
  while (c === 0x20 || c === 0x09) c = s.charCodeAt(++i);
  return i;
}

function skipDigits(s: string, i: number): number {
  let c = s.charCodeAt(i);
  while (c >= 0x30 && c <= 0x39) c = s.charCodeAt(++i);
  return i;
}

function unsatisfiable(size: number): ByteRange {
  return { kind: "unsatisfiable", contentRange: `bytes */${size}` };
}

/** What {@linkcode evaluateRange} needs to know about the request and the representation. */
export interface RangeInput {
  /** The request method, upper case; only GET has range semantics. */
  method: string;
  /** The request headers. */
  headers: HeaderReader;
  /** The representation's length in bytes. */
  size: number;
  /** The representation's entity tag, quotes included. */
  etag: string;
  /** The representation's modification time in milliseconds since the epoch. */
  lastModifiedMs: number;
}

/**
 * Decides how to answer a GET that may carry `Range` and `If-Range` (RFC 9110 §13.1.5, §14.2).
 * Call it after {@linkcode evaluatePreconditions} returned `"ok"`. An `If-Range` entity tag
 * must match strongly and an `If-Range` date must equal the last modification (at one-second
 * precision); otherwise the full representation is sent.
 *
 * @param input The request and the representation's size and validators.
 * @returns The range to send.
 *
 * @example
 * ```ts
 * import { evaluateRange } from "./range.ts";
 * import assert from "node:assert/strict";
 *
 * const input = { method: "GET", size: 10, etag: '"v1"', lastModifiedMs: 0 };
 * const headers = new Headers({ range: "bytes=2-3", "if-range": '"v1"' });
 * assert.equal(evaluateRange({ ...input, headers }).kind, "partial");
 * headers.set("if-range", '"v0"');
 * assert.equal(evaluateRange({ ...input, headers }).kind, "full");
 * ```
 */
export function evaluateRange(input: RangeInput): ByteRange {
  if (input.method !== "GET") return FULL;
  const range = input.headers.get("range");
  if (range === null) return FULL;
  const ifRange = input.headers.get("if-range");
  if (ifRange !== null) {
    const value = ifRange.trim();
    if (value.startsWith('"') || value.startsWith("W/")) {
      if (!strongMatch(value, input.etag)) return FULL;
    } else {
      const date = parseHttpDate(value);
      if (date === null || date !== Math.floor(input.lastModifiedMs / 1000) * 1000) return FULL;
    }
  }
  return parseRange(range, input.size);
}
