// JSONTestSuite (github.com/nst/JSONTestSuite) test_parsing: every y_ file decodes, every n_
// file is a syntax_error with an offset inside the input, and every i_ file gives the result
// the policy in lib/json/mod.ts documents.
import assert from "node:assert/strict";
import { json, type JsonError, schema } from "../../lib/json/mod.ts";

const CORPUS = new URL("../fixtures/JSONTestSuite/test_parsing/", import.meta.url);
const files = [...Deno.readDirSync(CORPUS)].map((entry) => entry.name).filter((name) =>
  name.endsWith(".json")
).sort();
const read = (name: string): Uint8Array =>
  Deno.readFileSync(new URL(encodeURIComponent(name), CORPUS));
const fatal = new TextDecoder("utf-8", { fatal: true });
const any = schema.any();

function syntaxOffset(error: JsonError | undefined): number {
  assert.equal(
    error?.kind,
    "syntax_error",
    `expected a syntax_error, got ${JSON.stringify(error)}`,
  );
  return error.offset;
}

Deno.test("json.decode() accepts all 95 y_ files, with the values JSON.parse gives", () => {
  const names = files.filter((name) => name.startsWith("y_"));
  assert.equal(names.length, 95);
  for (const name of names) {
    const bytes = read(name);
    const result = json.decode(bytes, any);
    assert.ok(result.ok, `${name}: ${!result.ok && result.error.message}`);
    assert.deepStrictEqual(result.value, JSON.parse(fatal.decode(bytes)), name);
    const again = json.decode(fatal.decode(bytes), any); // the same text as a string
    assert.ok(again.ok, name);
    assert.deepStrictEqual(again.value, result.value, name);
  }
});

Deno.test("json.decode() rejects all 188 n_ files with a syntax_error inside the input", () => {
  const names = files.filter((name) => name.startsWith("n_"));
  assert.equal(names.length, 188);
  for (const name of names) {
    const bytes = read(name);
    const result = json.decode(bytes, any);
    assert.ok(!result.ok, `${name} was accepted`);
    const offset = syntaxOffset(result.error);
    assert.ok(Number.isInteger(offset) && offset >= 0 && offset <= bytes.length, name);
    assert.match(result.error.message, / at byte \d+$/, name);
    assert.deepEqual(json.decode(bytes, any), result, `${name} is deterministic`);
  }
});

Deno.test("json.decode() rejects n_ files at the first byte that cannot continue the text", () => {
  const expected: Record<string, number> = {
    "n_array_1_true_without_comma.json": 3,
    "n_array_comma_after_close.json": 4,
    "n_array_inner_array_no_comma.json": 2,
    "n_array_unclosed.json": 3,
    "n_incomplete_true.json": 4,
    "n_number_-01.json": 3,
    "n_number_0.e1.json": 3,
    "n_number_with_leading_zero.json": 2,
    "n_object_trailing_comma.json": 8,
    "n_object_unquoted_key.json": 1,
    "n_string_invalid_utf8_after_escape.json": 3,
    "n_string_unescaped_tab.json": 2,
    "n_structure_100000_opening_arrays.json": 100000,
    "n_structure_UTF8_BOM_no_data.json": 3,
    "n_structure_trailing_#.json": 9,
    "n_structure_lone-invalid-utf-8.json": 0,
    "n_structure_ascii-unicode-identifier.json": 0,
  };
  for (const [name, offset] of Object.entries(expected)) {
    const result = json.decode(read(name), any);
    assert.equal(syntaxOffset(result.ok ? undefined : result.error), offset, name);
  }
});

// The policy table of lib/json/mod.ts, file by file.
type Outcome =
  | { ok: unknown }
  | { syntax: number }
  | { mismatch: string; expected: string };

const INFINITE: Outcome = { mismatch: "$[0]", expected: "finite number" };
const LONE: Outcome = { ok: "lone" };
const I_POLICY: Record<string, Outcome> = {
  "i_number_double_huge_neg_exp.json": { ok: [0] },
  "i_number_huge_exp.json": INFINITE,
  "i_number_neg_int_huge_exp.json": INFINITE,
  "i_number_pos_double_huge_exp.json": INFINITE,
  "i_number_real_neg_overflow.json": INFINITE,
  "i_number_real_pos_overflow.json": INFINITE,
  "i_number_real_underflow.json": { ok: [0] },
  "i_number_too_big_neg_int.json": { ok: [-123123123123123123123123123123] },
  "i_number_too_big_pos_int.json": { ok: [100000000000000000000] },
  "i_number_very_big_negative_int.json": {
    ok: [-237462374673276894279832749832423479823246327846],
  },
  "i_object_key_lone_2nd_surrogate.json": LONE,
  "i_string_1st_surrogate_but_2nd_missing.json": LONE,
  "i_string_1st_valid_surrogate_2nd_invalid.json": LONE,
  "i_string_UTF-16LE_with_BOM.json": { syntax: 0 },
  "i_string_UTF-8_invalid_sequence.json": { syntax: 7 },
  "i_string_UTF8_surrogate_U+D800.json": { syntax: 3 },
  "i_string_incomplete_surrogate_and_escape_valid.json": LONE,
  "i_string_incomplete_surrogate_pair.json": LONE,
  "i_string_incomplete_surrogates_escape_valid.json": LONE,
  "i_string_invalid_lonely_surrogate.json": LONE,
  "i_string_invalid_surrogate.json": LONE,
  "i_string_invalid_utf-8.json": { syntax: 2 },
  "i_string_inverted_surrogates_U+1D11E.json": LONE,
  "i_string_iso_latin_1.json": { syntax: 3 },
  "i_string_lone_second_surrogate.json": LONE,
  "i_string_lone_utf8_continuation_byte.json": { syntax: 2 },
  "i_string_not_in_unicode_range.json": { syntax: 3 },
  "i_string_overlong_sequence_2_bytes.json": { syntax: 2 },
  "i_string_overlong_sequence_6_bytes.json": { syntax: 2 },
  "i_string_overlong_sequence_6_bytes_null.json": { syntax: 2 },
  "i_string_truncated-utf-8.json": { syntax: 3 },
  "i_string_utf16BE_no_BOM.json": { syntax: 0 },
  "i_string_utf16LE_no_BOM.json": { syntax: 1 },
  "i_structure_500_nested_arrays.json": { ok: "nested" },
  "i_structure_UTF-8_BOM_empty_object.json": { ok: {} },
};

Deno.test("json.decode() gives every i_ file the result the module docs promise", () => {
  const names = files.filter((name) => name.startsWith("i_"));
  assert.deepEqual(names, Object.keys(I_POLICY).sort());
  for (const name of names) {
    const bytes = read(name);
    const result = json.decode(bytes, any);
    const outcome = I_POLICY[name];
    if ("syntax" in outcome) {
      assert.equal(syntaxOffset(result.ok ? undefined : result.error), outcome.syntax, name);
    } else if ("mismatch" in outcome) {
      assert.ok(!result.ok && result.error.kind === "type_mismatch", name);
      assert.equal(result.error.path, outcome.mismatch, name);
      assert.equal(result.error.expected, outcome.expected, name);
    } else {
      assert.ok(result.ok, `${name}: ${!result.ok && result.error.message}`);
      const text = fatal.decode(bytes);
      if (outcome.ok === "lone" || outcome.ok === "nested") {
        assert.deepStrictEqual(result.value, JSON.parse(text), name);
      } else {
        assert.deepStrictEqual(result.value, outcome.ok, name);
      }
    }
    assert.deepEqual(json.decode(bytes, any), result, `${name} is deterministic`);
  }
});

Deno.test("json.decode() applies the integer policy to the i_ huge integers", () => {
  const integers = schema.array(schema.integer());
  for (
    const name of [
      "i_number_too_big_neg_int.json",
      "i_number_too_big_pos_int.json",
      "i_number_very_big_negative_int.json",
    ]
  ) {
    const result = json.decode(read(name), integers);
    assert.ok(!result.ok && result.error.kind === "type_mismatch", name);
    assert.equal(result.error.path, "$[0]");
    assert.equal(result.error.expected, "integer");
    assert.ok(json.decode(read(name), schema.array(schema.number())).ok, name);
  }
});
