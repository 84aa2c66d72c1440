/**
 * `JsonError`, the failure value of `json.decode`, and the 400 response that answers it.
 *
 * @module
 */
import { problem } from "../http/problem.ts";

/**
 * The input is not JSON text. `offset` is the UTF-8 byte offset of the first byte at which the
 * input stops being a prefix of any valid JSON text: the input length when it is truncated.
 */
export interface JsonSyntaxError {
  /** The discriminant. */
  readonly kind: "syntax_error";
  /** The UTF-8 byte offset of the first offending byte. */
  readonly offset: number;
  /** A readable explanation. */
  readonly message: string;
}

/** A value has the wrong type (or the wrong literal, or is not allowed at all). */
export interface JsonTypeMismatch {
  /** The discriminant. */
  readonly kind: "type_mismatch";
  /** The expected type's name: `"string"`, `"integer"`, `"\"a\" | \"b\""`, `"never"` … */
  readonly expected: string;
  /** The path of the offending value, like `$.items[3].name`. */
  readonly path: string;
  /** A readable explanation. */
  readonly message: string;
}

/** A required object member is absent. */
export interface JsonMissingField {
  /** The discriminant. */
  readonly kind: "missing_field";
  /** The name of the missing member. */
  readonly field: string;
  /** The path the member would have, like `$.items[3].name` (it ends with `field`). */
  readonly path: string;
  /** A readable explanation. */
  readonly message: string;
}

/** Why `json.decode` failed: a discriminated union on `kind`. */
export type JsonError = JsonSyntaxError | JsonTypeMismatch | JsonMissingField;

/** The result of `json.decode`: the typed value, or a {@linkcode JsonError}. */
export type DecodeResult<T> =
  | { readonly ok: true; readonly value: T }
  | { readonly ok: false; readonly error: JsonError };

/**
 * A schema that decodes JSON itself: every Weft schema, and any Standard Schema validator
 * wrapped with `schema.standard()`. This is what `ctx.decode()` takes: the decoder travels
 * with the schema, so an app that decodes JSON carries the decoder in its bundle because it
 * uses a schema, never because a module was loaded for its side effects.
 */
export interface Decodable<T = unknown> {
  /**
   * Decodes UTF-8 bytes or text into a `T`; never throws on any input.
   *
   * @param data The bytes (a request body) or text.
   * @returns The typed value, or a {@linkcode JsonError}.
   */
  readonly "~decode": (data: Uint8Array | string) => DecodeResult<T>;
}

/** A path segment: an object key or an array index. */
export type PathKey = string | number;

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/**
 * Formats a path the way errors report it: `$`, then `.key`, `["odd key"]` or `[3]`.
 *
 * @param path The segments from the root.
 * @returns The path text, like `$.items[3].name`.
 *
 * @example
 * ```ts
 * import { formatPath } from "./json_error.ts";
 * import assert from "node:assert/strict";
 *
 * assert.equal(formatPath(["items", 3, "first name"]), '$.items[3]["first name"]');
 * ```
 */
export function formatPath(path: readonly PathKey[]): string {
  let out = "$";
  for (const key of path) {
    if (typeof key === "number") out += `[${key}]`;
    else if (IDENTIFIER.test(key)) out += `.${key}`;
    else out += `[${JSON.stringify(key)}]`;
  }
  return out;
}

/** Builds a `syntax_error`. */
export function syntaxError(offset: number, message: string): JsonSyntaxError {
  return { kind: "syntax_error", offset, message: `${message} at byte ${offset}` };
}

/** Builds a `type_mismatch` with a message naming the received type. */
export function typeMismatch(
  expected: string,
  path: readonly PathKey[],
  received: unknown,
): JsonTypeMismatch {
  const at = formatPath(path);
  return {
    kind: "type_mismatch",
    expected,
    path: at,
    message: `Expected ${expected} at ${at}, got ${describe(received)}`,
  };
}

/** Builds a `missing_field`; `path` is the path of the object that lacks it. */
export function missingField(field: string, objectPath: readonly PathKey[]): JsonMissingField {
  const at = formatPath([...objectPath, field]);
  return {
    kind: "missing_field",
    field,
    path: at,
    message: `Missing required field ${JSON.stringify(field)} at ${at}`,
  };
}

function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  switch (typeof value) {
    case "string":
      return value.length > 40 ? "a string" : `the string ${JSON.stringify(value)}`;
    case "number":
      if (!Number.isFinite(value)) return `the non-finite number ${value}`;
      if (Number.isInteger(value) && !Number.isSafeInteger(value)) {
        return "an integer beyond 2^53";
      }
      return `the number ${value}`;
    case "boolean":
      return `${value}`;
    case "undefined":
      return "nothing";
    case "object":
      return "an object";
    default:
      return `a ${typeof value}`;
  }
}

/**
 * Answers a decode failure: a 400 `application/problem+json` response (RFC 9457) whose body
 * carries the error's `kind`, its `offset` or `path` (and `field`, `expected`), and its
 * message as `detail`.
 *
 * @param error The error `json.decode` returned.
 * @returns A 400 response with mutable headers.
 *
 * @example
 * ```ts
 * import { json, jsonErrorResponse, schema } from "./mod.ts";
 * import assert from "node:assert/strict";
 *
 * const result = json.decode('{"name": 7}', schema.object({ name: schema.string() }));
 * assert.equal(result.ok, false);
 * if (!result.ok) {
 *   const res = jsonErrorResponse(result.error);
 *   assert.equal(res.status, 400);
 *   assert.equal(res.headers.get("content-type"), "application/problem+json");
 *   const body = await res.json();
 *   assert.equal(body.kind, "type_mismatch");
 *   assert.equal(body.path, "$.name");
 *   assert.equal(body.expected, "string");
 * }
 * ```
 */
export function jsonErrorResponse(error: JsonError): Response {
  switch (error.kind) {
    case "syntax_error":
      return problem({
        status: 400,
        detail: error.message,
        kind: error.kind,
        offset: error.offset,
      });
    case "type_mismatch":
      return problem({
        status: 400,
        detail: error.message,
        kind: error.kind,
        path: error.path,
        expected: error.expected,
      });
    case "missing_field":
      return problem({
        status: 400,
        detail: error.message,
        kind: error.kind,
        path: error.path,
        field: error.field,
      });
  }
}
