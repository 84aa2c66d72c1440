import assert from "node:assert/strict";
import fc from "fast-check";
import { INVALID_URL, safeUrl } from "../../lib/template/mod.ts";

const SAFE_SCHEMES = new Set(["http", "https", "mailto", "tel"]);

// safeUrl() as it was, with a regular expression that backtracks quadratically on a long run
// of spaces after a non-space: the reference the scanner must agree with, on short inputs.
function safeUrlByRegex(url: string): string {
  const cleaned = url.replace(/^[\0-\x20]+|[\0-\x20]+$/g, "").replace(/[\t\n\r]/g, "");
  const scheme = /^([a-zA-Z][a-zA-Z0-9+.\-]*):/.exec(cleaned);
  return scheme !== null && !SAFE_SCHEMES.has(scheme[1].toLowerCase()) ? INVALID_URL : url;
}

Deno.test("safeUrl() reads a URL padded with 60,000 controls and spaces in one pass", () => {
  const padding = "\0 ".repeat(30_000);
  assert.equal(safeUrl(`${padding}javascript:alert(1)${padding}!`), INVALID_URL);
  assert.equal(safeUrl(`!${padding}!`), `!${padding}!`);
  assert.equal(
    safeUrl(`${padding}https://example.com/${padding}`),
    `${padding}https://example.com/${padding}`,
  );
});

Deno.test("safeUrl() agrees with the regular-expression version on random short URLs", () => {
  const piece = fc.constantFrom(
    ..."jJaAvs:ht/\0 \t\n\r\x1f!".split(""),
    "javascript",
    "java\tscript",
    "https",
    "data",
    "\u00a0",
  );
  fc.assert(
    fc.property(fc.array(piece, { maxLength: 12 }), (parts) => {
      const url = parts.join("");
      assert.equal(safeUrl(url), safeUrlByRegex(url), JSON.stringify(url));
    }),
    { numRuns: 10_000 },
  );
});
