// A byte-exact JSON (RFC 8259) and UTF-8 (Unicode Table 3-7) scanner. It runs only after the
// fast path failed, to name the offending byte: the first byte at which the input stops being
// a prefix of any valid JSON text (the input length when the text is truncated). It keeps its
// own stack, so nesting depth never grows the call stack.

/** Where and why the input is not acceptable JSON. */
export interface ScanError {
  offset: number;
  message: string;
  /** True when the text is valid JSON but nests deeper than the limit. */
  tooDeep?: boolean;
}

const ARRAY = 1;
const OBJECT = 2;

// Bytes that may follow a backslash in a string (besides `u`).
const SIMPLE_ESCAPE = /* @__PURE__ */ (() => {
  const table = new Uint8Array(128);
  for (const c of '"\\/bfnrt') table[c.charCodeAt(0)] = 1;
  return table;
})();

let errorOffset = 0;
let errorMessage = "";

function fail(offset: number, message: string): -1 {
  errorOffset = offset;
  errorMessage = message;
  return -1;
}

function isWs(c: number): boolean {
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
}

function isDigit(c: number): boolean {
  return c >= 0x30 && c <= 0x39;
}

function isHex(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || ((c | 0x20) >= 0x61 && (c | 0x20) <= 0x66);
}

function unexpected(bytes: Uint8Array, i: number, what: string): string {
  const c = bytes[i];
  const shown = c >= 0x20 && c < 0x7f ? JSON.stringify(String.fromCharCode(c)) : `0x${hex(c)}`;
  return `Unexpected ${shown}: expected ${what}`;
}

function hex(c: number): string {
  return c.toString(16).padStart(2, "0");
}

// Checks one UTF-8 continuation byte in [lo, hi]; returns the next index or -1.
function continuation(bytes: Uint8Array, i: number, lo: number, hi: number): number {
  if (i >= bytes.length) return fail(bytes.length, "Unexpected end of input inside a string");
  const c = bytes[i];
  if (c < lo || c > hi) {
    return fail(i, `Invalid UTF-8: byte 0x${hex(c)} cannot continue a character`);
  }
  return i + 1;
}

// `i` is the index of the opening quote; returns the index after the closing quote or -1.
function scanString(bytes: Uint8Array, i: number): number {
  const n = bytes.length;
  i++;
  for (;;) {
    if (i >= n) return fail(n, "Unexpected end of input inside a string");
    const c = bytes[i];
    if (c === 0x22) return i + 1;
    if (c === 0x5c) {
      i++;
      if (i >= n) return fail(n, "Unexpected end of input inside an escape");
      const e = bytes[i];
      if (e === 0x75) {
        for (let k = 1; k <= 4; k++) {
          if (i + k >= n) return fail(n, "Unexpected end of input inside a \\u escape");
          if (!isHex(bytes[i + k])) return fail(i + k, unexpected(bytes, i + k, "a hex digit"));
        }
        i += 5;
      } else if (e < 128 && SIMPLE_ESCAPE[e] === 1) {
        i++;
      } else {
        return fail(i, unexpected(bytes, i, "an escape character"));
      }
    } else if (c < 0x20) {
      return fail(i, `Unescaped control character 0x${hex(c)} in a string`);
    } else if (c < 0x80) {
      i++;
    } else if (c < 0xc2) {
      return fail(i, `Invalid UTF-8: byte 0x${hex(c)} cannot start a character`);
    } else if (c < 0xe0) {
      i = continuation(bytes, i + 1, 0x80, 0xbf);
      if (i < 0) return -1;
    } else if (c < 0xf0) {
      // Unicode Table 3-7: E0 A0..BF, ED 80..9F (no surrogates), others 80..BF
      i = continuation(bytes, i + 1, c === 0xe0 ? 0xa0 : 0x80, c === 0xed ? 0x9f : 0xbf);
      if (i < 0) return -1;
      i = continuation(bytes, i, 0x80, 0xbf);
      if (i < 0) return -1;
    } else if (c < 0xf5) {
      // F0 90..BF, F4 80..8F (nothing beyond U+10FFFF), others 80..BF
      i = continuation(bytes, i + 1, c === 0xf0 ? 0x90 : 0x80, c === 0xf4 ? 0x8f : 0xbf);
      if (i < 0) return -1;
      i = continuation(bytes, i, 0x80, 0xbf);
      if (i < 0) return -1;
      i = continuation(bytes, i, 0x80, 0xbf);
      if (i < 0) return -1;
    } else {
      return fail(i, `Invalid UTF-8: byte 0x${hex(c)} cannot start a character`);
    }
  }
}

function digits(bytes: Uint8Array, i: number): number {
  while (i < bytes.length && isDigit(bytes[i])) i++;
  return i;
}

// RFC 8259 §6: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
function scanNumber(bytes: Uint8Array, i: number): number {
  const n = bytes.length;
  if (bytes[i] === 0x2d) {
    i++;
    if (i >= n) return fail(n, "Unexpected end of input inside a number");
  }
  if (bytes[i] === 0x30) i++;
  else if (isDigit(bytes[i])) i = digits(bytes, i + 1);
  else return fail(i, unexpected(bytes, i, "a digit"));
  if (i < n && bytes[i] === 0x2e) {
    i++;
    if (i >= n) return fail(n, "Unexpected end of input inside a number");
    if (!isDigit(bytes[i])) return fail(i, unexpected(bytes, i, "a digit"));
    i = digits(bytes, i + 1);
  }
  if (i < n && (bytes[i] | 0x20) === 0x65) {
    i++;
    if (i < n && (bytes[i] === 0x2b || bytes[i] === 0x2d)) i++;
    if (i >= n) return fail(n, "Unexpected end of input inside a number");
    if (!isDigit(bytes[i])) return fail(i, unexpected(bytes, i, "a digit"));
    i = digits(bytes, i + 1);
  }
  return i;
}

function scanLiteral(bytes: Uint8Array, i: number, word: string): number {
  for (let k = 1; k < word.length; k++) {
    if (i + k >= bytes.length) return fail(bytes.length, `Unexpected end of input inside ${word}`);
    if (bytes[i + k] !== word.charCodeAt(k)) {
      return fail(i + k, unexpected(bytes, i + k, `"${word}"`));
    }
  }
  return i + word.length;
}

function skipWs(bytes: Uint8Array, i: number): number {
  while (i < bytes.length && isWs(bytes[i])) i++;
  return i;
}

// `i` is at the opening quote of a member name; scans `"name" :` and returns the index after
// the colon, or -1.
function scanKey(bytes: Uint8Array, i: number): number {
  const n = bytes.length;
  if (i >= n) return fail(n, "Unexpected end of input: expected a member name");
  if (bytes[i] !== 0x22) return fail(i, unexpected(bytes, i, "a member name"));
  i = skipWs(bytes, scanString(bytes, i));
  if (i < 0) return -1;
  if (i >= n) return fail(n, "Unexpected end of input: expected ':'");
  if (bytes[i] !== 0x3a) return fail(i, unexpected(bytes, i, "':'"));
  return i + 1;
}

/**
 * Scans `bytes` as one JSON text; a single leading UTF-8 BOM is skipped. Syntax errors
 * (invalid UTF-8 included) win over the depth limit, which is reported at the first bracket
 * that opens level `maxDepth + 1` of an otherwise valid text.
 *
 * @returns The first error, or `undefined` for a valid text within the depth limit.
 */
export function scan(bytes: Uint8Array, maxDepth: number): ScanError | undefined {
  const n = bytes.length;
  let i = 0;
  // 1. an optional BOM (EF BB BF)
  if (n > 0 && bytes[0] === 0xef) {
    if (n > 1 && bytes[1] !== 0xbb) return { offset: 1, message: "Invalid byte order mark" };
    if (n > 2 && bytes[2] !== 0xbf) return { offset: 2, message: "Invalid byte order mark" };
    if (n < 3) return { offset: n, message: "Unexpected end of input inside a byte order mark" };
    i = 3;
  }
  const stack: number[] = [];
  let deepAt = -1;
  for (;;) {
    // 2. a value
    i = skipWs(bytes, i);
    if (i >= n) return { offset: n, message: "Unexpected end of input: expected a value" };
    const c = bytes[i];
    if (c === 0x7b || c === 0x5b) {
      stack.push(c === 0x7b ? OBJECT : ARRAY);
      if (stack.length > maxDepth && deepAt < 0) deepAt = i;
      i = skipWs(bytes, i + 1);
      if (i < n && bytes[i] === c + 2) { // `}` is `{` + 2, `]` is `[` + 2
        stack.pop();
        i++;
      } else if (c === 0x7b) {
        i = scanKey(bytes, i);
        if (i < 0) return { offset: errorOffset, message: errorMessage };
        continue;
      } else {
        continue;
      }
    } else if (c === 0x22) i = scanString(bytes, i);
    else if (c === 0x74) i = scanLiteral(bytes, i, "true");
    else if (c === 0x66) i = scanLiteral(bytes, i, "false");
    else if (c === 0x6e) i = scanLiteral(bytes, i, "null");
    else if (c === 0x2d || isDigit(c)) i = scanNumber(bytes, i);
    else return { offset: i, message: unexpected(bytes, i, "a value") };
    if (i < 0) return { offset: errorOffset, message: errorMessage };
    // 3. what follows a value: `,` or a closing bracket, repeatedly
    for (;;) {
      i = skipWs(bytes, i);
      const top = stack.length === 0 ? 0 : stack[stack.length - 1];
      if (top === 0) {
        if (i < n) return { offset: i, message: unexpected(bytes, i, "the end of input") };
        if (deepAt >= 0) {
          return {
            offset: deepAt,
            message: `Nesting deeper than ${maxDepth} levels`,
            tooDeep: true,
          };
        }
        return undefined;
      }
      if (i >= n) {
        return { offset: n, message: "Unexpected end of input: expected ',' or a bracket" };
      }
      const d = bytes[i];
      if (d === 0x2c) {
        i++;
        if (top === OBJECT) {
          i = scanKey(bytes, skipWs(bytes, i));
          if (i < 0) return { offset: errorOffset, message: errorMessage };
        }
        break;
      }
      if (d === (top === ARRAY ? 0x5d : 0x7d)) {
        stack.pop();
        i++;
        continue;
      }
      return {
        offset: i,
        message: unexpected(bytes, i, top === ARRAY ? "',' or ']'" : "',' or '}'"),
      };
    }
  }
}

// The index after the value that starts at `i` in a valid JSON text.
function skipValue(bytes: Uint8Array, i: number): number {
  let depth = 0;
  do {
    const c = bytes[i];
    if (c === 0x22) i = scanString(bytes, i);
    else {
      if (c === 0x5b || c === 0x7b) depth++;
      else if (c === 0x5d || c === 0x7d) depth--;
      i++;
      // a number or a literal ends at whitespace, `,` or a bracket
      if (depth === 0 && c !== 0x5d && c !== 0x7d) {
        while (
          i < bytes.length && !isWs(bytes[i]) && bytes[i] !== 0x2c && bytes[i] !== 0x5d &&
          bytes[i] !== 0x7d
        ) i++;
      }
    }
  } while (depth > 0 && i < bytes.length);
  return i;
}

const keyDecoder = /* @__PURE__ */ new TextDecoder();

/**
 * The offset of the value at `path` (member names and item indexes from the root) in `bytes`,
 * a valid JSON text; of the last of duplicate members, the one `JSON.parse` keeps. -1 when the
 * text has no value there.
 */
export function offsetOf(bytes: Uint8Array, path: readonly (string | number)[]): number {
  let i = skipWs(bytes, bytes[0] === 0xef ? 3 : 0);
  for (const key of path) {
    if (typeof key === "number") {
      if (bytes[i] !== 0x5b) return -1;
      i = skipWs(bytes, i + 1);
      for (let k = 0; k < key; k++) {
        i = skipWs(bytes, skipValue(bytes, i));
        if (bytes[i] !== 0x2c) return -1;
        i = skipWs(bytes, i + 1);
      }
      if (bytes[i] === 0x5d) return -1;
    } else {
      if (bytes[i] !== 0x7b) return -1;
      i = skipWs(bytes, i + 1);
      let found = -1;
      while (bytes[i] === 0x22) {
        const end = scanString(bytes, i);
        const name = JSON.parse(keyDecoder.decode(bytes.subarray(i, end)));
        i = skipWs(bytes, skipWs(bytes, end) + 1); // past the colon
        if (name === key) found = i;
        i = skipWs(bytes, skipValue(bytes, i));
        if (bytes[i] === 0x2c) i = skipWs(bytes, i + 1);
      }
      if (found < 0) return -1;
      i = found;
    }
  }
  return i;
}
