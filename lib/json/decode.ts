/**
 * `json.decode`: bytes or text to a typed value, or a {@linkcode JsonError}.
 *
 * @module
 */
import type { Infer, StandardSchemaV1 } from "./standard_schema.ts";
import {
  type DecodeOptions,
  type DecodeResult,
  type JsonError,
  MAX_ISSUES,
  type PathKey,
  syntaxError,
  typeMismatch,
} from "./json_error.ts";
import type { SchemaNode } from "./_node.ts";
import { type Check, explain, MAX_DEPTH } from "./_check.ts";
import { checkOf } from "./_compile.ts";
import { foreignIssues } from "./_foreign.ts";
import { offsetOf, scan } from "./_scan.ts";

// The lenient decoder is Deno's fast path (the fatal one is slower). It turns
// invalid UTF-8 into U+FFFD, so text containing U+FFFD has its bytes checked by the scanner.
const decoder = /* @__PURE__ */ new TextDecoder();
const encoder = /* @__PURE__ */ new TextEncoder();

/**
 * Decodes JSON text and checks it against a schema, without ever throwing on bad input.
 * See the module documentation of `weft/json` for the policies (BOM, depth, duplicate keys,
 * numbers, lone surrogates).
 *
 * @param data UTF-8 bytes (a request body) or a string. Offsets in errors are UTF-8 byte
 * offsets; for a string, into its UTF-8 encoding.
 * @param target A Weft schema, or any Standard Schema v1 validator (zod, valibot, arktype).
 * @param options `issues: "all"` to report every issue (up to 100) in `issues`; by default
 * only the first, the fastest answer to a bad request.
 * @returns `{ ok: true, value }` or `{ ok: false, error }` (and `issues` when asked).
 *
 * @example
 * ```ts
 * import { decode } from "./decode.ts";
 * import { schema } from "./schema.ts";
 * import assert from "node:assert/strict";
 *
 * const Point = schema.object({ x: schema.number(), y: schema.number() });
 * const bytes = new TextEncoder().encode('{"x": 1, "y": 2}');
 * assert.deepEqual(decode(bytes, Point), { ok: true, value: { x: 1, y: 2 } });
 *
 * const bad = decode('{"é": tru}', schema.any());
 * assert.equal(bad.ok || bad.error.kind === "syntax_error" && bad.error.offset, 10);
 *
 * const Post = schema.object({ title: schema.string({ maxLength: 5 }), n: schema.integer() });
 * const all = decode('{"title":"too long","n":"1"}', Post, { issues: "all" });
 * assert.deepEqual(all.ok ? [] : all.issues?.map((issue) => issue.message), [
 *   "$.title: must be at most 5 characters, got 8",
 *   'Expected integer at $.n, got the string "1"',
 * ]);
 * ```
 */
export function decode<S extends StandardSchemaV1>(
  data: Uint8Array | string,
  target: S,
  options?: DecodeOptions,
): DecodeResult<Infer<S>> {
  let value: unknown;
  try {
    let text: string;
    if (typeof data === "string") {
      // a leading BOM is skipped, as for bytes (where TextDecoder drops it)
      text = data.charCodeAt(0) === 0xfeff ? data.slice(1) : data;
    } else {
      text = decoder.decode(data);
      if (text.indexOf("\uFFFD") !== -1) {
        const error = scan(bytesOf(data)!, MAX_DEPTH);
        if (error !== undefined && !error.tooDeep) {
          return failed(syntaxError(error.offset, error.message), options);
        }
      }
    }
    value = JSON.parse(text);
  } catch {
    return failed(locate(data), options);
  }
  // the common answer first, without another call
  const check = checkOf(target);
  if (check !== undefined && check(value, 1)) return { ok: true, value };
  const max = options?.issues === "all" ? MAX_ISSUES : 1;
  return validate(target, check, value, data, max) as DecodeResult<Infer<S>>;
}

// The answer for a value a Weft schema rejects (`check` is its check), or for a foreign target.
function validate(
  target: StandardSchemaV1,
  check: Check | undefined,
  value: unknown,
  data: Uint8Array | string,
  max: number,
): DecodeResult<unknown> {
  let errors: JsonError[];
  if (check !== undefined) {
    const issues = explain(target as SchemaNode, value, max);
    if (issues.length === 0) return { ok: true, value }; // unreachable: both checks agree
    // nesting beyond the limit where the schema walks is a syntax error at its bracket
    if (issues[0].error === null) errors = [tooDeep(data, issues[0].path)];
    else {
      errors = issues.map(({ error, path }) =>
        error ?? typeMismatch(`at most ${MAX_DEPTH} levels of nesting`, path, undefined)
      );
    }
  } else {
    const result = foreignIssues(target, value, max);
    if (result.ok) return result;
    errors = result.errors;
  }
  return max === 1
    ? { ok: false, error: errors[0] }
    : { ok: false, error: errors[0], issues: errors };
}

// A syntax error, the one issue of a text that is not JSON (in `issues` too when all are asked).
function failed(error: JsonError, options: DecodeOptions | undefined): DecodeResult<never> {
  return options?.issues === "all" ? { ok: false, error, issues: [error] } : { ok: false, error };
}

// The syntax error of a value nested past the limit at `path` of `data` (valid JSON): at the
// bracket that opens level MAX_DEPTH + 1 there, not at the first such bracket of the text, which
// may be in a member the schema does not walk.
function tooDeep(data: Uint8Array | string, path: readonly PathKey[]): JsonError {
  const bytes = bytesOf(data);
  const offset = bytes === undefined ? -1 : offsetOf(bytes, path);
  if (offset < 0) return locate(data);
  return syntaxError(offset, `Nesting deeper than ${MAX_DEPTH} levels`);
}

// Only for failures: the byte offset of the first byte that cannot continue a JSON text.
function locate(data: unknown): JsonError {
  const bytes = bytesOf(data);
  if (bytes === undefined) return syntaxError(0, "Expected a Uint8Array or a string");
  const error = scan(bytes, MAX_DEPTH);
  if (error === undefined) return syntaxError(0, "The JSON text could not be parsed");
  return syntaxError(error.offset, error.message);
}

function bytesOf(data: unknown): Uint8Array | undefined {
  if (typeof data === "string") return encoder.encode(data);
  if (data instanceof Uint8Array) return data;
  if (ArrayBuffer.isView(data)) {
    return new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
  }
  if (data instanceof ArrayBuffer) return new Uint8Array(data);
  return undefined;
}
