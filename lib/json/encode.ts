/**
 * `json.encode`: a value to JSON text, optionally through a schema that decides which members
 * are written.
 *
 * @module
 */
import type { Infer } from "./standard_schema.ts";
import { isWeftSchema, type Schema as WeftSchema, type SchemaNode as Schema } from "./schema.ts";
import { explain, toJsonError } from "./_explain.ts";
import { FAIL, rootFinder } from "./_check.ts";

// The projection (built once per schema, see _check.ts) reduces the value to the schema's
// members, in shape order; JSON.stringify then does the writing, which no JavaScript-level
// writer beats in V8.

// A module constant, folded into the compiled code (an imported binding is read through a cell).
const failed = FAIL;
// The compiled root of a schema (compiled on first use); the last hot one is found without a
// WeakMap lookup.
const find = /* @__PURE__ */ rootFinder(isWeftSchema);

function fail(schema: Schema, value: unknown): never {
  const failure = explain(schema, value, [], 1, false);
  const reason = failure === undefined || failure.kind === "too_deep"
    ? "the value does not match the schema"
    : toJsonError(failure).message;
  throw new TypeError(`Cannot encode the value: ${reason}`);
}

/**
 * Encodes a value as JSON text. Without a schema this is `JSON.stringify` (which throws
 * here instead of returning `undefined`). With a Weft schema only the schema's members are
 * written, in shape order, so a `passwordHash` the schema does not name never leaks; the
 * value must match the schema (finite numbers, safe integers, literals …), or this throws a
 * `TypeError` naming the first mismatch, since it is a programming error. The projection is
 * built once per schema, without `eval` or `new Function`.
 *
 * @param value The value.
 * @param target A Weft schema (other libraries' validators cannot drive an encoder).
 * @returns JSON text.
 *
 * @example
 * ```ts
 * import { encode } from "./encode.ts";
 * import { schema } from "./schema.ts";
 * import assert from "node:assert/strict";
 *
 * const PublicUser = schema.object({ id: schema.integer(), name: schema.string() });
 * const row = { id: 7, name: "Ada", passwordHash: "$argon2id$…" };
 * assert.equal(encode(row, PublicUser), '{"id":7,"name":"Ada"}');
 * assert.equal(encode([1, "two"]), '[1,"two"]');
 * ```
 */
export function encode<S extends WeftSchema>(value: Infer<S>, target: S): string;
/**
 * Encodes any value as JSON text, like `JSON.stringify`.
 *
 * @param value The value.
 * @returns JSON text.
 */
export function encode(value: unknown): string;
export function encode(value: unknown, target?: WeftSchema): string {
  if (target === undefined) {
    const text = JSON.stringify(value);
    if (text === undefined) {
      throw new TypeError(`Cannot encode ${typeof value}: it has no JSON form`);
    }
    return text;
  }
  const root = find(target);
  if (root === undefined) {
    throw new TypeError("Cannot encode with this schema: json.encode needs a Weft schema");
  }
  const projected = root.project(value);
  if (projected === failed) fail(target as Schema, value);
  return JSON.stringify(projected);
}
