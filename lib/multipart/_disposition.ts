// Parsing `type; name=value; name="quoted"; name*=UTF-8''pct` header values: Content-Disposition
// (RFC 6266 §4.1, as RFC 7578 §4.2 uses it) and the Content-Type of a multipart body (RFC 9110
// §8.3.1). One pass, no regular expression over the input.

/** A parsed header value: its type (lower case) and parameters (names in lower case). */
export interface ContentDisposition {
  /** `form-data`, `multipart/form-data`, …, lower case; empty when absent. */
  type: string;
  /**
   * Parameters by lower-case name; the first of a repeated name wins. An extended parameter
   * (`filename*`, RFC 8187) is decoded and kept under its own name (`filename*`); one that
   * cannot be decoded (an unknown charset, bad escapes) is kept as an empty string, so that its
   * presence still shows.
   */
  params: Record<string, string>;
}

function isOws(c: number): boolean {
  return c === 0x20 || c === 0x09;
}

// RFC 8187 ext-value: charset "'" [ language ] "'" value-chars (percent-encoded octets).
function decodeExtValue(value: string): string | undefined {
  const first = value.indexOf("'");
  const second = first === -1 ? -1 : value.indexOf("'", first + 1);
  if (second === -1) return undefined;
  const charset = value.slice(0, first).toLowerCase();
  const encoded = value.slice(second + 1);
  if (charset === "utf-8") {
    try {
      return decodeURIComponent(encoded);
    } catch {
      return undefined;
    }
  }
  if (charset === "iso-8859-1") {
    return encoded.replace(
      /%([0-9A-Fa-f]{2})/g,
      (_, hex: string) => String.fromCharCode(parseInt(hex, 16)),
    );
  }
  return undefined;
}

/**
 * Parses a `Content-Disposition` (or any `type; param=value` header value).
 *
 * @param value The header value.
 * @returns The type and the parameters.
 *
 * @example
 * ```ts
 * import { parseContentDisposition } from "./mod.ts";
 * import assert from "node:assert/strict";
 *
 * const parsed = parseContentDisposition(
 *   `form-data; name="doc"; filename="a \\"b\\".txt"; filename*=UTF-8''%E2%82%AC.txt`,
 * );
 * assert.equal(parsed.type, "form-data");
 * assert.equal(parsed.params.name, "doc");
 * assert.equal(parsed.params.filename, 'a "b".txt');
 * assert.equal(parsed.params["filename*"], "€.txt");
 * ```
 */
export function parseContentDisposition(value: string): ContentDisposition {
  const params: Record<string, string> = Object.create(null);
  const length = value.length;
  let i = value.indexOf(";");
  if (i === -1) i = length;
  const type = value.slice(0, i).trim().toLowerCase();
  while (i < length) {
    // 1. skip ";" and whitespace, read the name up to "="
    while (i < length && (value.charCodeAt(i) === 0x3b || isOws(value.charCodeAt(i)))) i++;
    const nameStart = i;
    while (i < length && value.charCodeAt(i) !== 0x3d && value.charCodeAt(i) !== 0x3b) i++;
    const name = value.slice(nameStart, i).trim().toLowerCase();
    if (i >= length || value.charCodeAt(i) !== 0x3d) continue; // a name without a value
    i++;
    while (i < length && isOws(value.charCodeAt(i))) i++;
    // 2. a quoted string or a token up to ";". A backslash escapes only `"` and `\`: browsers
    //    and curl send file names with backslashes as they are (the HTML form encoding escapes
    //    `"`, CR and LF as %22, %0D, %0A instead), so `C:\x\y` must keep its separators for
    //    sanitizeFilename() to find the last component
    let raw: string;
    if (value.charCodeAt(i) === 0x22) {
      raw = "";
      i++;
      while (i < length && value.charCodeAt(i) !== 0x22) {
        const next = value.charCodeAt(i + 1);
        if (value.charCodeAt(i) === 0x5c && (next === 0x22 || next === 0x5c)) i++;
        raw += value[i++];
      }
      i++; // the closing quote
      while (i < length && value.charCodeAt(i) !== 0x3b) i++;
    } else {
      const start = i;
      while (i < length && value.charCodeAt(i) !== 0x3b) i++;
      raw = value.slice(start, i).trim();
    }
    if (name === "" || name in params) continue;
    if (name.endsWith("*")) {
      params[name] = decodeExtValue(raw) ?? "";
    } else params[name] = raw;
  }
  return { type, params };
}
