/**
 * Entity-tag comparison (RFC 9110 §8.8.3.2) and the lists of `If-Match` and `If-None-Match`;
 * also re-exported by `etag.ts`, which adds the file ETag.
 *
 * @module
 */

/**
 * Parses the value of `If-Match` or `If-None-Match` (RFC 9110 §13.1.1–§13.1.2): `*` or a
 * comma-separated list of entity tags. Malformed members are skipped.
 *
 * @param value The header value.
 * @returns `"*"`, or the entity tags as written (`W/"x"` keeps its weak prefix).
 *
 * @example
 * ```ts
 * import { parseEtagList } from "./etag_compare.ts";
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
 * import { weakMatch } from "./etag_compare.ts";
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
 * import { strongMatch } from "./etag_compare.ts";
 * import assert from "node:assert/strict";
 *
 * assert.equal(strongMatch('"1"', '"1"'), true);
 * assert.equal(strongMatch('W/"1"', 'W/"1"'), false);
 * ```
 */
export function strongMatch(a: string, b: string): boolean {
  return a === b && !a.startsWith("W/");
}
