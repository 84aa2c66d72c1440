/**
 * `toJsonSchema`: a Weft schema as JSON Schema draft 2020-12, for OpenAPI documents, clients
 * in other languages, and other validators.
 *
 * @module
 */
import { isWeftSchema, type JsonValue, type Schema, type SchemaNode } from "./_node.ts";
import { put } from "./_project.ts";

/** A JSON Schema document (draft 2020-12), as plain JSON data. */
export type JsonSchemaDocument = { [keyword: string]: JsonValue };

const DIALECT = "https://json-schema.org/draft/2020-12/schema";
// Number.MAX_SAFE_INTEGER as a literal: a bundler keeps a top-level property read of a global
// (it might have effects), which put this line into every app's bundle.
const SAFE = 9_007_199_254_740_991;

/**
 * Writes a Weft schema as JSON Schema draft 2020-12: every kind and constraint. Formats are
 * written as `format` (validators must assert formats to check them: with Ajv, add
 * ajv-formats), discriminated unions as `oneOf` whose variants carry their tag as `const`,
 * nullable schemas as `anyOf` with `{ "type": "null" }`, integers with the safe-integer bounds
 * Weft applies. What JSON Schema cannot say is listed in docs/json.md (the 512-level depth
 * limit; patterns are written without flags, so a pattern with flags other than `u` or `v`
 * throws).
 *
 * @param schema A Weft schema.
 * @returns The JSON Schema, with `$schema` at the root.
 * @throws {TypeError} When `schema` is not a Weft schema, or a pattern has flags JSON Schema
 * cannot express.
 *
 * @example
 * ```ts
 * import { schema as s, toJsonSchema } from "./mod.ts";
 * import assert from "node:assert/strict";
 *
 * const Post = s.object({
 *   title: s.string({ minLength: 1, maxLength: 200 }),
 *   tags: s.optional(s.array(s.string(), { uniqueItems: true })),
 * }, { unknownKeys: "reject" });
 * assert.deepEqual(toJsonSchema(Post), {
 *   $schema: "https://json-schema.org/draft/2020-12/schema",
 *   type: "object",
 *   properties: {
 *     title: { type: "string", minLength: 1, maxLength: 200 },
 *     tags: { type: "array", items: { type: "string" }, uniqueItems: true },
 *   },
 *   required: ["title"],
 *   additionalProperties: false,
 * });
 * ```
 */
export function toJsonSchema(schema: Schema): JsonSchemaDocument {
  if (!isWeftSchema(schema)) throw new TypeError("Cannot write a JSON Schema: not a Weft schema");
  return { $schema: DIALECT, ...write(schema) };
}

function write(s: SchemaNode): JsonSchemaDocument {
  const of = (inner: unknown) => write(inner as SchemaNode);
  switch (s.kind) {
    case "string": {
      const out: JsonSchemaDocument = { type: "string" };
      if (s.minLength !== undefined) out.minLength = s.minLength;
      if (s.maxLength !== undefined) out.maxLength = s.maxLength;
      if (s.pattern !== undefined) out.pattern = patternOf(s.pattern);
      if (s.format !== undefined) out.format = s.format;
      return out;
    }
    case "number":
    case "integer": {
      const out: JsonSchemaDocument = { type: s.kind };
      let { minimum, maximum } = s;
      if (s.kind === "integer") {
        minimum = Math.max(minimum ?? -SAFE, -SAFE);
        maximum = Math.min(maximum ?? SAFE, SAFE);
      }
      if (minimum !== undefined) out.minimum = minimum;
      if (maximum !== undefined) out.maximum = maximum;
      if (s.exclusiveMinimum !== undefined) out.exclusiveMinimum = s.exclusiveMinimum;
      if (s.exclusiveMaximum !== undefined) out.exclusiveMaximum = s.exclusiveMaximum;
      if (s.multipleOf !== undefined) out.multipleOf = s.multipleOf;
      return out;
    }
    case "boolean":
    case "null":
      return { type: s.kind };
    case "any":
      return {};
    case "literal":
      return { const: s.value };
    case "enum":
      return { enum: [...s.values] };
    case "optional":
      return of(s.inner); // absence is the parent's `required`
    case "nullable":
      return { anyOf: [of(s.inner), { type: "null" }] };
    case "array": {
      const out: JsonSchemaDocument = { type: "array", items: of(s.item) };
      if (s.minItems !== undefined) out.minItems = s.minItems;
      if (s.maxItems !== undefined) out.maxItems = s.maxItems;
      if (s.uniqueItems) out.uniqueItems = true;
      return out;
    }
    case "record": {
      const out: JsonSchemaDocument = { type: "object", additionalProperties: of(s.value) };
      if (s.maxProperties !== undefined) out.maxProperties = s.maxProperties;
      return out;
    }
    case "object": {
      const properties: JsonSchemaDocument = {};
      const required: string[] = [];
      for (const key of Object.keys(s.shape)) {
        const member = s.shape[key] as SchemaNode;
        put(properties, key, of(member));
        if (member.kind !== "optional") required.push(key);
      }
      const out: JsonSchemaDocument = { type: "object", properties, required };
      if (s.unknownKeys === "reject") out.additionalProperties = false;
      if (s.maxProperties !== undefined) out.maxProperties = s.maxProperties;
      return out;
    }
    case "union":
      // each variant's tag is a literal, so a `const`: at most one variant can match
      return { oneOf: s.variants.map(of) };
  }
}

// JSON Schema reads a pattern as an ECMA-262 regular expression with the `u` flag (2020-12
// §6.4; Ajv compiles it so). A pattern without `u` or `v` means the same there only when it
// compiles with `u` and has nothing whose meaning the flag changes: `.`, a negated class, `\S`,
// `\D`, `\W` and an astral literal match a code point with `u` and a UTF-16 code unit without
// (`/^.$/` refuses "😀", Ajv accepts it), and `\p{…}`, `\P{…}`, `\u{…}` are escapes with `u`
// and literal text without. Such a pattern is refused, naming the fix: add the `u` flag.
function patternOf(pattern: RegExp): string {
  const { flags, source } = pattern;
  const fail = (why: string) => {
    throw new TypeError(`Cannot write a JSON Schema: the pattern ${pattern} ${why}`);
  };
  if (/[^uv]/.test(flags)) fail("has flags JSON Schema cannot express");
  if (flags === "u") return source;
  try {
    new RegExp(source, "u");
  } catch {
    fail("is not valid with the u flag, which JSON Schema implies; write it for the u flag");
  }
  if (flags === "v") {
    // a `v` pattern that is valid with `u` means the same there, but for `&&` and `--` in a
    // class: set operations with `v` (`[\w&&\d]` is the digits), characters with `u`
    let inClass = false;
    for (let i = 0; i < source.length; i++) {
      const c = source[i];
      if (c === "\\") i++;
      else if (c === "[" || c === "]") inClass = c === "[";
      else if (inClass && (source.startsWith("&&", i) || source.startsWith("--", i))) {
        fail("has a class set operation, which the u flag JSON Schema implies reads as characters");
      }
    }
    return source;
  }
  for (let i = 0; i < source.length; i++) {
    const c = source[i];
    const next = source[i + 1];
    // (`\uD83D`, an escaped surrogate: one UTF-16 unit without the flag, a lone surrogate with it)
    const byFlag = c === "\\"
      ? "SDWpP".includes(next) || (next === "u" && source[i + 2] === "{") ||
        (next === "u" && /^[dD][89a-fA-F][0-9a-fA-F]{2}$/.test(source.slice(i + 2, i + 6)))
      : c === "." || (c === "[" && next === "^") || (c >= "\ud800" && c <= "\udfff");
    if (byFlag) fail("means something else with the u flag, which JSON Schema implies; add it");
    if (c === "\\") i++; // an escape: its character is not looked at again
  }
  return source;
}
