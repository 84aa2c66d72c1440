/**
 * `json.decode`: bytes or text to a typed value, or a {@linkcode JsonError}.
 *
 * @module
 */
import type { Infer, StandardSchemaV1, StandardSchemaV1Issue } from "./standard_schema.ts";
import {
  type DecodeResult,
  formatPath,
  type JsonError,
  type PathKey,
  syntaxError,
  typeMismatch,
} from "./json_error.ts";
import { isWeftSchema, type SchemaNode } from "./schema.ts";
import { MAX_DEPTH, rootFinder } from "./_check.ts";
import { explain, toJsonError } from "./_explain.ts";
import { scan } from "./_scan.ts";

// The lenient decoder is Deno's fast path (the fatal one is slower). It turns
// invalid UTF-8 into U+FFFD, so text containing U+FFFD has its bytes checked by the scanner.
const decoder = /* @__PURE__ */ new TextDecoder();
const encoder = /* @__PURE__ */ new TextEncoder();
// The compiled root of a schema (compiled on first use); the last hot one is found without a
// WeakMap lookup.
const find = /* @__PURE__ */ rootFinder(isWeftSchema);

/**
 * Decodes JSON text and checks it against a schema, without ever throwing on bad input.
 * See the module documentation of `weft/json` for the policies (BOM, depth, duplicate keys,
 * numbers, lone surrogates).
 *
 * @param data UTF-8 bytes (a request body) or a string. Offsets in errors are UTF-8 byte
 * offsets; for a string, into its UTF-8 encoding.
 * @param target A Weft schema, or any Standard Schema v1 validator (zod, valibot, arktype).
 * @returns `{ ok: true, value }` or `{ ok: false, error }`.
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
 * ```
 */
export function decode<S extends StandardSchemaV1>(
  data: Uint8Array | string,
  target: S,
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
          return { ok: false, error: syntaxError(error.offset, error.message) };
        }
      }
    }
    value = JSON.parse(text);
  } catch {
    return { ok: false, error: locate(data) };
  }
  return validate(target, value, data) as DecodeResult<Infer<S>>;
}

function validate(
  target: StandardSchemaV1,
  value: unknown,
  data: Uint8Array | string,
): DecodeResult<unknown> {
  const root = find(target);
  if (root !== undefined) {
    if (root.check(value, 1)) return { ok: true, value };
    const failure = explain(target as SchemaNode, value, [], 1);
    if (failure === undefined) return { ok: true, value }; // unreachable: both passes agree
    if (failure.kind === "too_deep") return { ok: false, error: locate(data) };
    return { ok: false, error: toJsonError(failure) };
  }
  return validateForeign(target, value);
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

// Another library's Standard Schema validator: run it, and map its first issue.
function validateForeign(target: StandardSchemaV1, value: unknown): DecodeResult<unknown> {
  let result;
  try {
    result = target["~standard"].validate(value);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    return {
      ok: false,
      error: foreignMismatch([], "valid value", `The validator threw: ${reason}`),
    };
  }
  if (result instanceof Promise) {
    result.catch(() => {}); // its outcome is not awaited
    return {
      ok: false,
      error: foreignMismatch(
        [],
        "valid value",
        "The validator is asynchronous; json.decode needs a synchronous one",
      ),
    };
  }
  if (result.issues === undefined) return { ok: true, value: result.value };
  return { ok: false, error: mapIssue(result.issues[0], value) };
}

function foreignMismatch(path: PathKey[], expected: string, message: string): JsonError {
  return { kind: "type_mismatch", expected, path: formatPath(path), message };
}

function mapIssue(issue: StandardSchemaV1Issue | undefined, root: unknown): JsonError {
  if (issue === undefined) return foreignMismatch([], "valid value", "The validator failed");
  const path: PathKey[] = (issue.path ?? []).map((segment) => {
    const key = typeof segment === "object" && segment !== null ? segment.key : segment;
    return typeof key === "number" ? key : String(key);
  });
  const extra = issue as { expected?: unknown; values?: unknown; keys?: unknown };
  // zod's unknown-key issue names the keys instead of pointing at them
  if (Array.isArray(extra.keys) && typeof extra.keys[0] === "string") {
    const at = [...path, extra.keys[0]];
    return foreignMismatch(at, "never", `${issue.message} at ${formatPath(at)}`);
  }
  // 1. a member absent from an object that exists: missing_field
  let parent = root;
  for (let i = 0; i < path.length - 1 && parent !== undefined; i++) {
    parent = typeof parent === "object" && parent !== null
      ? (parent as Record<PathKey, unknown>)[path[i]]
      : undefined;
  }
  const last = path[path.length - 1];
  if (
    typeof last === "string" && typeof parent === "object" && parent !== null &&
    !Array.isArray(parent) && !Object.hasOwn(parent, last)
  ) {
    const at = formatPath(path);
    return {
      kind: "missing_field",
      field: last,
      path: at,
      message: `Missing required field ${JSON.stringify(last)} at ${at} (${issue.message})`,
    };
  }
  // 2. anything else: type_mismatch, naming the expected type when the library does
  let expected = "valid value";
  if (typeof extra.expected === "string") expected = extra.expected;
  else if (Array.isArray(extra.values)) {
    expected = extra.values.map((v) => typeof v === "bigint" ? `${v}` : JSON.stringify(v)).join(
      " | ",
    );
  }
  const error = typeMismatch(expected, path, undefined);
  return { ...error, message: `${issue.message} at ${error.path}` };
}
