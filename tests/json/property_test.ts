// Property tests of parsing (fast-check, 10,000 runs each) against independent oracles:
// JSON.parse and a small recursive-descent prefix checker (_prefix_reference.ts).
import assert from "node:assert/strict";
import fc from "fast-check";
import { json, schema as s } from "../../lib/json/mod.ts";
import { prefixBreak } from "./_prefix_reference.ts";

const RUNS = { numRuns: 10_000 };
const enc = new TextEncoder();
const any = s.any();

function syntaxOffset(input: Uint8Array | string): number | undefined {
  const result = json.decode(input, any);
  if (result.ok) return undefined;
  // a text that is valid but overflows a number to Infinity (1e999)
  if (result.error.kind === "type_mismatch" && result.error.expected === "finite number") {
    return undefined;
  }
  assert.equal(result.error.kind, "syntax_error");
  return result.error.kind === "syntax_error" ? result.error.offset : -1;
}

// 1. agreement with JSON.parse

Deno.test("json.decode() agrees with JSON.parse on generated JSON, from text and from bytes", () => {
  fc.assert(
    fc.property(fc.json({ stringUnit: "grapheme" }), (text) => {
      const expected = JSON.parse(text);
      assert.deepStrictEqual(json.decode(text, any), { ok: true, value: expected });
      assert.deepStrictEqual(json.decode(enc.encode(text), any), { ok: true, value: expected });
    }),
    RUNS,
  );
});

// 2. byte-exact offsets

// Bytes that never occur in a JSON text: control characters other than whitespace, and bytes
// that UTF-8 never uses.
const NEVER = [
  ...Array.from({ length: 32 }, (_, b) => b).filter((b) => ![9, 10, 13].includes(b)),
  0xc0,
  0xc1,
  ...Array.from({ length: 11 }, (_, k) => 0xf5 + k),
];

Deno.test("json.decode() reports the offset of a byte that no JSON text can contain", () => {
  const doc = fc.json({ stringUnit: "grapheme" }).map((text) => enc.encode(text));
  fc.assert(
    fc.property(doc, fc.nat(), fc.constantFrom(...NEVER), (bytes, at, byte) => {
      const p = at % bytes.length;
      const mutated = bytes.slice();
      mutated[p] = byte;
      assert.equal(syntaxOffset(mutated), p);
    }),
    RUNS,
  );
});

Deno.test("json.decode() reports the offset of a replaced byte where the prefix breaks", () => {
  const doc = fc.json(); // ASCII strings: the reference checker reads characters
  fc.assert(
    fc.property(doc, fc.nat(), fc.integer({ min: 0, max: 127 }), (text, at, byte) => {
      const p = at % text.length;
      const mutated = text.slice(0, p) + String.fromCharCode(byte) + text.slice(p + 1);
      const expected = prefixBreak(mutated);
      fc.pre(expected === p); // the replaced byte is the one that cannot continue the prefix
      assert.equal(syntaxOffset(enc.encode(mutated)), p, JSON.stringify(mutated));
      assert.equal(syntaxOffset(mutated), p);
    }),
    RUNS,
  );
});

Deno.test("json.decode() agrees with the reference prefix checker on any one-byte change", () => {
  fc.assert(
    fc.property(fc.json(), fc.nat(), fc.integer({ min: 0, max: 127 }), (text, at, byte) => {
      const p = at % text.length;
      const mutated = text.slice(0, p) + String.fromCharCode(byte) + text.slice(p + 1);
      const expected = prefixBreak(mutated);
      const offset = syntaxOffset(mutated);
      if (expected !== -1) assert.equal(offset, expected, JSON.stringify(mutated));
      else if (offset !== undefined) assert.equal(offset, mutated.length); // truncated
    }),
    RUNS,
  );
});

Deno.test("json.decode() reports the truncated length for a truncated text", () => {
  const doc = fc.json({ stringUnit: "grapheme" }).map((text) => enc.encode(text));
  fc.assert(
    fc.property(doc, fc.nat(), (bytes, at) => {
      const length = at % bytes.length;
      const prefix = bytes.subarray(0, length);
      const offset = syntaxOffset(prefix);
      if (offset === undefined) {
        // only a prefix that is itself a complete text ("12" cut to "1") may pass
        JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(prefix));
      } else {
        assert.equal(offset, length);
      }
    }),
    RUNS,
  );
});
