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
  /** The expected type's name: `"string"`, `"integer"`, `"\"a\" | \"b\""`, `"string | null"` … */
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

/** A value has the right type but breaks a constraint of its schema (`maxLength`, `minimum` …). */
export interface JsonConstraintViolation {
  /** The discriminant. */
  readonly kind: "constraint";
  /** The constraint's name, as in JSON Schema: `"maxLength"`, `"format"`, `"uniqueItems"` … */
  readonly constraint: string;
  /** The constraint's limit: `200`, `"email"`, the pattern's source, `true`; `null` if none. */
  readonly limit: number | string | boolean | null;
  /** The path of the offending value, like `$.title`. */
  readonly path: string;
  /** A readable explanation: `$.title: must be at most 200 characters, got 241`. */
  readonly message: string;
}

/** An object member that the schema does not name, under `unknownKeys: "reject"`. */
export interface JsonUnexpectedField {
  /** The discriminant. */
  readonly kind: "unexpected_field";
  /** The name of the member. */
  readonly field: string;
  /** The path of the member, like `$.extra` (it ends with `field`). */
  readonly path: string;
  /** A readable explanation: `unexpected field "extra" at $.extra`. */
  readonly message: string;
}

/** A failure reported by another library's validator that fits no other kind. */
export interface JsonInvalid {
  /** The discriminant. */
  readonly kind: "invalid";
  /** The path of the offending value. */
  readonly path: string;
  /** The validator's message, with the path. */
  readonly message: string;
}

/** Why `json.decode` failed: a discriminated union on `kind`. */
export type JsonError =
  | JsonSyntaxError
  | JsonTypeMismatch
  | JsonMissingField
  | JsonConstraintViolation
  | JsonUnexpectedField
  | JsonInvalid;

/** The most issues one failed decode reports (with `issues: "all"`). */
export const MAX_ISSUES = 100;

/** The result of `json.decode`: the typed value, or a {@linkcode JsonError}. */
export type DecodeResult<T> =
  | { readonly ok: true; readonly value: T }
  | {
    readonly ok: false;
    /** The first issue. */
    readonly error: JsonError;
    /**
     * With `issues: "all"`: every issue in document order of the schema, at most
     * {@linkcode MAX_ISSUES}, the first being `error`.
     */
    readonly issues?: readonly JsonError[];
  };

/** Options of `json.decode`. */
export interface DecodeOptions {
  /**
   * `"first"` stops at the first issue (the fastest answer to a bad request); `"all"` reports
   * every issue, up to {@linkcode MAX_ISSUES}, in `issues`.
   *
   * @default {"first"}
   */
  issues?: "first" | "all";
}

/**
 * A schema that decodes JSON itself: every Weft schema, and any Standard Schema validator
 * wrapped with `schema.standard()`. This is what `ctx.decode()` takes: the decoder travels
 * with the schema, so an app that decodes JSON carries the decoder in its bundle because it
 * uses a schema, never because a module was loaded for its side effects.
 */
export interface Decodable<T = unknown> {
  /**
   * Decodes UTF-8 bytes or text into a `T`; never throws on any input but request headers
   * that describe a body it cannot read (and for a Standard Schema validator that throws or is
   * asynchronous, a fault of the validator).
   *
   * @param data The bytes (a request body) or text.
   * @param headers The request's headers, when there is a request: a Content-Type that is
   * absent or a JSON media type (`application/json`, `…+json`) is accepted, any other throws
   * an `HttpError` 415; so does a Content-Encoding other than `identity`.
   * @param options `issues: "all"` to report every issue (up to 100).
   * @returns The typed value, or a {@linkcode JsonError}.
   */
  readonly "~decode": (
    data: Uint8Array | string,
    headers?: Headers | null,
    options?: DecodeOptions,
  ) => DecodeResult<T>;
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

/** Builds a `constraint` violation with its readable message. */
export function constraintViolation(
  constraint: string,
  limit: number | string | boolean | null,
  path: readonly PathKey[],
  detail: string,
): JsonConstraintViolation {
  const at = formatPath(path);
  return { kind: "constraint", constraint, limit, path: at, message: `${at}: ${detail}` };
}

/** Builds an `unexpected_field`; `path` is the path of the member. */
export function unexpectedField(path: readonly PathKey[]): JsonUnexpectedField {
  const at = formatPath(path);
  const field = String(path[path.length - 1]);
  return {
    kind: "unexpected_field",
    field,
    path: at,
    message: `unexpected field ${JSON.stringify(field)} at ${at}`,
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
 * carries the error's members (`kind`, `offset` or `path`, and `field`, `expected`,
 * `constraint`, `limit`), its message as `detail`, and `issues` when given.
 *
 * @param error The error `json.decode` returned.
 * @param issues Every issue (`result.issues` of a decode with `issues: "all"`), written as the
 * `issues` member.
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
export function jsonErrorResponse(error: JsonError, issues?: readonly JsonError[]): Response {
  const { message, ...members } = error;
  return problem({
    status: 400,
    detail: message,
    ...members,
    ...(issues === undefined ? {} : { issues }),
  });
}
