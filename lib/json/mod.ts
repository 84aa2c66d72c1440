/**
 * `weft/json`: typed JSON decoding from request bytes with byte-offset errors, and
 * schema-driven encoding that writes only the schema's members.
 *
 * Import from `weft/json` (or `json` and friends from `weft`).
 *
 * - {@linkcode schema} builds schemas that carry their TypeScript type ({@linkcode Infer}) and
 *   are Standard Schema v1 validators (`~standard`, vendor `"weft"`).
 * - `json.decode(bytesOrText, schema, options?)` returns `{ ok: true, value }` or
 *   `{ ok: false, error }` with a {@linkcode JsonError}: `syntax_error` (`offset`),
 *   `type_mismatch` (`expected`, `path`), `missing_field` (`field`, `path`), `constraint`
 *   (`constraint`, `limit`, `path`), `unexpected_field` (`field`, `path`) or `invalid`, each
 *   with a readable `message`. It never throws on any input; it throws only for a fault of a
 *   Standard Schema validator given to it (one that throws, or is asynchronous), which is no
 *   fault of the input. `{ issues: "all" }` adds
 *   `issues`: every issue, up to {@linkcode MAX_ISSUES}. The target may also be any Standard
 *   Schema v1 validator (zod, valibot, arktype); each of its issues is mapped to the kind that
 *   fits, else to `invalid`.
 * - `schema.string({ maxLength: 200 })` and friends add constraints; {@linkcode toJsonSchema}
 *   writes a schema as JSON Schema draft 2020-12. docs/json.md states every rule.
 * - `json.encode(value, schema?)` returns JSON text; with a schema, only its members.
 * - {@linkcode jsonErrorResponse} answers a failed decode with a 400 problem+json.
 *
 * ## Decoding policies
 *
 * - **Grammar**: RFC 8259, any value at the top level, whitespace around it; nothing else.
 * - **Offsets** are UTF-8 byte offsets: the first byte at which the input stops being a prefix
 *   of any valid JSON text, so a truncated text reports its length (`{"é": tru}` → 10). For a
 *   string input, offsets index its UTF-8 encoding (`new TextEncoder().encode(text)`).
 * - **UTF-8** must be well-formed (Unicode Table 3-7): an invalid byte is a `syntax_error` at
 *   the first byte that cannot continue the sequence (`22 c3 28` → 2); overlong forms,
 *   encoded surrogates (`ED A0 80`) and code points beyond U+10FFFF are invalid.
 * - **BOM**: one leading UTF-8 byte order mark (`EF BB BF`, or U+FEFF at the start of a
 *   string) is skipped, as RFC 8259 §8.1 allows; offsets still count its three bytes. A second
 *   BOM, or a BOM anywhere else, is a `syntax_error`.
 * - **Escaped surrogates**: `\uD800` without its pair (or pairs in the wrong order) are
 *   accepted and decode to lone UTF-16 code units, as `JSON.parse` gives them; the escape
 *   syntax itself is checked.
 * - **Numbers** are IEEE-754 doubles rounded to nearest, as `JSON.parse` reads them: huge
 *   integers lose precision, tiny values underflow to `0` (or `-0`). A number that overflows
 *   to ±Infinity (`1e400`) is a `type_mismatch` wherever a schema looks at it (`number`,
 *   `integer`, `any`; expected `"finite number"` under `any`). `integer` accepts only safe
 *   integers (|n| ≤ 2^53 − 1; `1.0` and `1e2` count as integers); beyond that it is a
 *   `type_mismatch`. There is no coercion: `"3"` is not a number, `0` is not `false`.
 * - **Depth**: at most 512 nested arrays and objects. A deeper value that the schema walks
 *   (everything under `schema.any()`) is a `syntax_error` at the bracket that opens level 513
 *   (syntax errors elsewhere in the text win); members the schema ignores are left to the
 *   engine's parser, which is iterative, and are never checked (`uniqueItems` compares them
 *   with a stack of its own). Nothing recurses on the input, so `[[[[…` 100,000 deep cannot
 *   overflow the stack.
 * - **Duplicate keys**: the last one wins, as with `JSON.parse`.
 * - **Unknown members** are ignored by default and stay in the decoded value, untyped;
 *   `schema.object(shape, { unknownKeys: "reject" })` makes each an `unexpected_field`.
 *   Member names that `Object.prototype` has (`constructor`,
 *   `__proto__` …) are read only as own members.
 * - **Errors report the first failure** in document order of the schema (members in shape
 *   order, items by index), or every one with `issues: "all"`. `missing_field.path` ends with
 *   the field (`$.user.email`).
 *
 * ### JSONTestSuite `i_` files under these policies
 *
 * | files | result |
 * |---|---|
 * | `i_number_double_huge_neg_exp`, `i_number_real_underflow` | ok: `0` |
 * | `i_number_huge_exp`, `i_number_neg_int_huge_exp`, `i_number_pos_double_huge_exp`, `i_number_real_neg_overflow`, `i_number_real_pos_overflow` | `type_mismatch` at `$[0]`, expected `"finite number"` |
 * | `i_number_too_big_neg_int`, `i_number_too_big_pos_int`, `i_number_very_big_negative_int` | ok under `any`/`number` (rounded); `type_mismatch` under `integer` |
 * | `i_object_key_lone_2nd_surrogate`, `i_string_1st_surrogate_but_2nd_missing`, `i_string_1st_valid_surrogate_2nd_invalid`, `i_string_incomplete_surrogate_and_escape_valid`, `i_string_incomplete_surrogate_pair`, `i_string_incomplete_surrogates_escape_valid`, `i_string_invalid_lonely_surrogate`, `i_string_invalid_surrogate`, `i_string_inverted_surrogates_U+1D11E`, `i_string_lone_second_surrogate` | ok: lone code units, as `JSON.parse` |
 * | `i_string_UTF-8_invalid_sequence`, `i_string_UTF8_surrogate_U+D800`, `i_string_invalid_utf-8`, `i_string_iso_latin_1`, `i_string_lone_utf8_continuation_byte`, `i_string_not_in_unicode_range`, `i_string_overlong_sequence_2_bytes`, `i_string_overlong_sequence_6_bytes`, `i_string_overlong_sequence_6_bytes_null`, `i_string_truncated-utf-8` | `syntax_error` at the first invalid byte |
 * | `i_string_UTF-16LE_with_BOM`, `i_string_utf16BE_no_BOM`, `i_string_utf16LE_no_BOM` | `syntax_error` (UTF-16 is not UTF-8): offset 0, 0, 1 |
 * | `i_structure_500_nested_arrays` | ok (500 ≤ 512) |
 * | `i_structure_UTF-8_BOM_empty_object` | ok: `{}` (the BOM is skipped) |
 *
 * ## Checks generated ahead of time
 *
 * Weft generates each schema's check as code on its first use (`new Function`; schema text
 * enters the code only as JSON string literals or through a constants array). Where code
 * generation is forbidden (a CSP, `--disallow-code-generation-from-strings`) the reference
 * checker walks the schema instead, with the same answers. To have generated checks there
 * too, or to skip generation at run time, generate the checks at build time, as templates are:
 * `deno run -A lib/json/cli.ts schemas.ts` writes `schemas.checks.ts`, which exports the same
 * schemas with checks written out for them (see {@linkcode precompiled}); import the schemas
 * from it. Answers, errors and encoding stay the same. A generated check whose schema changed
 * since is not used (one warning); `cli.ts schemas.ts --check` fails in CI until the module is
 * generated again.
 *
 * ## Encoding
 *
 * With a schema, members the schema does not name are never written, members are written in
 * shape order, absent optional members are omitted, and a value that does not match the
 * schema throws a `TypeError` (a programming error, not input). Objects are read member by
 * member (their `toJSON` methods are not called; getters are); `schema.any()` values are
 * written as `JSON.stringify` writes them. The projection is generated once per schema (walked
 * where code generation is forbidden) and leaves the writing to `JSON.stringify`. Objects'
 * `unknownKeys` does not apply to encoding (unknown members are not written), and
 * `maxProperties` counts the members written.
 *
 * @example Decode a request body, answer failures with 400
 * ```ts
 * import { json, jsonErrorResponse, schema } from "./mod.ts";
 * import assert from "node:assert/strict";
 *
 * const NewUser = schema.object({
 *   name: schema.string(),
 *   age: schema.integer(),
 *   tags: schema.array(schema.string()),
 * });
 *
 * async function handle(request: Request): Promise<Response> {
 *   const result = json.decode(new Uint8Array(await request.arrayBuffer()), NewUser);
 *   if (!result.ok) return jsonErrorResponse(result.error);
 *   const user = result.value; // { name: string; age: number; tags: string[] }
 *   return new Response(json.encode(user, NewUser), { status: 201 });
 * }
 *
 * const post = (body: string) =>
 *   handle(new Request("http://localhost/users", { method: "POST", body }));
 * assert.equal((await post('{"name":"Ada","age":36,"tags":[]}')).status, 201);
 *
 * const bad = await post('{"name":"Ada","age":"36","tags":[]}');
 * assert.equal(bad.status, 400);
 * assert.deepEqual(
 *   { ...(await bad.json()), detail: undefined },
 *   {
 *     type: "about:blank",
 *     title: "Bad Request",
 *     status: 400,
 *     detail: undefined,
 *     kind: "type_mismatch",
 *     path: "$.age",
 *     expected: "integer",
 *   },
 * );
 * ```
 *
 * @module
 */
import { decode } from "./decode.ts";
import { encode } from "./encode.ts";
import type { DecodeOptions, DecodeResult } from "./json_error.ts";
import type { Infer, StandardSchemaV1 } from "./standard_schema.ts";
import type { Schema } from "./schema.ts";

export { decode } from "./decode.ts";
export { encode } from "./encode.ts";
export { CHECK_HELPERS, type CheckHelpers, fingerprint, precompiled } from "./precompiled.ts";
export { type JsonSchemaDocument, toJsonSchema } from "./to_json_schema.ts";
export {
  type Decodable,
  type DecodeOptions,
  type DecodeResult,
  formatPath,
  type JsonConstraintViolation,
  type JsonError,
  jsonErrorResponse,
  type JsonInvalid,
  type JsonMissingField,
  type JsonSyntaxError,
  type JsonTypeMismatch,
  type JsonUnexpectedField,
  MAX_ISSUES,
  type PathKey,
} from "./json_error.ts";
export {
  type AnySchema,
  type ArrayConstraints,
  type ArraySchema,
  type BooleanSchema,
  type DecodableValidator,
  type EnumSchema,
  type IntegerSchema,
  isWeftSchema,
  type JsonPrimitive,
  type JsonValue,
  type LiteralSchema,
  type LiteralValue,
  type NullableSchema,
  type NullSchema,
  type NumberConstraints,
  type NumberSchema,
  type ObjectOptions,
  type ObjectOutput,
  type ObjectSchema,
  type OptionalKeys,
  type OptionalSchema,
  type RecordConstraints,
  type RecordSchema,
  type Schema,
  schema,
  type SchemaBuilder,
  type SchemaKind,
  type SchemaNode,
  type Shape,
  type Simplify,
  type StringConstraints,
  type StringFormat,
  type StringSchema,
  type UnionSchema,
  type UnknownKeys,
  type VariantSchema,
} from "./schema.ts";
export type {
  Infer,
  StandardSchemaV1,
  StandardSchemaV1FailureResult,
  StandardSchemaV1Issue,
  StandardSchemaV1Options,
  StandardSchemaV1PathSegment,
  StandardSchemaV1Props,
  StandardSchemaV1Result,
  StandardSchemaV1SuccessResult,
  StandardSchemaV1Types,
} from "./standard_schema.ts";

/** The type of {@linkcode json}. */
export interface JsonCodec {
  /**
   * Decodes UTF-8 bytes or text against a schema; never throws on any input.
   *
   * @throws {Error} when a Standard Schema validator throws (its error is the `cause`), and a
   * `TypeError` when it is asynchronous: faults of the validator, not of the input.
   *
   * @param data The bytes (a request body) or text.
   * @param target A Weft schema or any Standard Schema v1 validator.
   * @param options `issues: "all"` reports every issue (up to {@linkcode MAX_ISSUES}).
   * @returns The typed value, or a {@linkcode JsonError}.
   */
  decode<S extends StandardSchemaV1>(
    data: Uint8Array | string,
    target: S,
    options?: DecodeOptions,
  ): DecodeResult<Infer<S>>;
  /**
   * Encodes a value, writing only the schema's members.
   *
   * @param value A value of the schema's type.
   * @param target A Weft schema.
   * @returns JSON text.
   */
  encode<S extends Schema>(value: Infer<S>, target: S): string;
  /**
   * Encodes any value like `JSON.stringify` (throwing where that returns `undefined`).
   *
   * @param value The value.
   * @returns JSON text.
   */
  encode(value: unknown): string;
}

/**
 * The JSON codec: `json.decode(bytesOrText, schema)` and `json.encode(value, schema?)`.
 *
 * @example
 * ```ts
 * import { json, schema } from "./mod.ts";
 * import assert from "node:assert/strict";
 *
 * const Item = schema.object({ sku: schema.string(), qty: schema.integer() });
 * const result = json.decode(new TextEncoder().encode('{"sku":"A-1","qty":2,"x":0}'), Item);
 * assert.ok(result.ok);
 * assert.equal(json.encode(result.value, Item), '{"sku":"A-1","qty":2}');
 *
 * const missing = json.decode('{"sku":"A-1"}', Item);
 * assert.ok(!missing.ok && missing.error.kind === "missing_field");
 * assert.equal(missing.error.path, "$.qty");
 * ```
 */
export const json: JsonCodec = { decode, encode };
