/**
 * `json.encode`: a value to JSON text, optionally through a schema that decides which members
 * are written.
 *
 * @module
 */
import type { Infer } from "./standard_schema.ts";
import type { Schema as WeftSchema, SchemaNode as Schema } from "./_node.ts";
import { explain } from "./_check.ts";
import { FAIL } from "./_project.ts";
import { projectionOf } from "./_compile.ts";

// The projection (generated once per schema, see codegen.ts) reduces the value to the schema's
// members, in shape order; JSON.stringify then does the writing, which no JavaScript-level
// writer beats in V8.

function fail(schema: Schema, value: unknown): never {
  // unknown members are not written, so they are not checked either
  const error = explain(schema, value, 1, false)[0]?.error;
  const reason = error ? error.message : "the value does not match the schema";
  throw new TypeError(`Cannot encode the value: ${reason}`);
}

/**
 * Encodes a value as JSON text. Without a schema this is `JSON.stringify` (which throws
 * here instead of returning `undefined`). With a Weft schema only the schema's members are
 * written, in shape order, so a `passwordHash` the schema does not name never leaks; the
 * value must match the schema (finite numbers, safe integers, literals …), or this throws a
 * `TypeError` naming the first mismatch, since it is a programming error; so does a value that has
 * no JSON text (`undefined` under a root `optional()`, a function under `any()`). The projection is
 * generated once per schema (walked instead where code generation is forbidden).
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
  if (target === undefined) return text(JSON.stringify(value), value);
  const project = projectionOf(target);
  if (project === undefined) {
    throw new TypeError("Cannot encode with this schema: json.encode needs a Weft schema");
  }
  const projected = project(value);
  if (projected === FAIL) fail(target as Schema, value);
  // a schema lets through values JSON.stringify writes as nothing: `undefined` under a root
  // schema.optional(), a function or symbol (or a toJSON() that returns undefined) under
  // schema.any()
  return text(JSON.stringify(projected), value);
}

// What JSON.stringify wrote, or a TypeError where it wrote nothing (it returns undefined).
function text(written: string | undefined, value: unknown): string {
  if (written === undefined) {
    throw new TypeError(`Cannot encode ${typeof value}: it has no JSON form`);
  }
  return written;
}
