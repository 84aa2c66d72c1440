/**
 * The schema builder: schemas that carry their TypeScript type ({@linkcode Infer}) and are
 * Standard Schema v1 validators (`~standard`, vendor `"weft"`).
 *
 * @module
 */
import type { Infer, StandardSchemaV1 } from "./standard_schema.ts";
import type { Decodable, DecodeOptions } from "./json_error.ts";
import {
  type AnySchema,
  type ArrayConstraints,
  type ArraySchema,
  type BooleanSchema,
  built,
  type EnumSchema,
  type IntegerSchema,
  isWeftSchema,
  type LiteralSchema,
  type LiteralValue,
  type NullableSchema,
  type NullSchema,
  type NumberConstraints,
  type NumberSchema,
  type ObjectOptions,
  type ObjectSchema,
  type OptionalSchema,
  type RecordConstraints,
  type RecordSchema,
  type Schema,
  type SchemaNode,
  type Shape,
  type StringConstraints,
  type StringSchema,
  type UnionSchema,
  type VariantSchema,
} from "./_node.ts";
import { standardValidate } from "./_compile.ts";
import { decode } from "./decode.ts";
import { encode } from "./encode.ts";
import { expectJson } from "./_media_type.ts";

export {
  type AnySchema,
  type ArrayConstraints,
  type ArraySchema,
  type BooleanSchema,
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
} from "./_node.ts";
import { count, defined, numberConstraints, range, stringConstraints } from "./_constraints.ts";

/** A Standard Schema validator that decodes JSON: what {@linkcode SchemaBuilder.standard} returns. */
export type DecodableValidator<S extends StandardSchemaV1> = S & Decodable<Infer<S>>;

/** The type of {@linkcode schema}: one constructor per kind of schema. */
export interface SchemaBuilder {
  /** A JSON string, with optional constraints (lengths in code points, pattern, format). */
  string(constraints?: StringConstraints): StringSchema;
  /** A finite JSON number, with optional bounds. */
  number(constraints?: NumberConstraints): NumberSchema;
  /** A safe integer (|n| ≤ 2^53 − 1), with optional bounds. */
  integer(constraints?: NumberConstraints): IntegerSchema;
  /** `true` or `false`. */
  boolean(): BooleanSchema;
  /** `null`. */
  null(): NullSchema;
  /** Exactly `value` (compared with `===`). */
  literal<const V extends LiteralValue>(value: V): LiteralSchema<V>;
  /** One of `values`. */
  enum<const V extends readonly [string | number, ...(string | number)[]]>(
    values: V,
  ): EnumSchema<V[number]>;
  /**
   * An array of `item`, with optional item counts and uniqueness. An item cannot be absent, so
   * `item` is not `optional()` (a `TypeError`; `nullable()` allows `null` items).
   */
  array<I extends Schema>(item: I, constraints?: ArrayConstraints): ArraySchema<I>;
  /** An object with the members of `shape`; unknown members are ignored by default. */
  object<S extends Shape>(shape: S, options?: ObjectOptions): ObjectSchema<S>;
  /** A member that may be absent. */
  optional<I extends Schema>(inner: I): OptionalSchema<I>;
  /** `inner` or `null`. */
  nullable<I extends Schema>(inner: I): NullableSchema<I>;
  /** One of `variants`, picked by the literal value of their member `discriminator`. */
  union<K extends string, const V extends readonly [VariantSchema<K>, ...VariantSchema<K>[]]>(
    discriminator: K,
    variants: V,
  ): UnionSchema<K, V>;
  /** An object mapping any string key to a value of `value`, with an optional member count. */
  record<I extends Schema>(value: I, constraints?: RecordConstraints): RecordSchema<I>;
  /** Any JSON value. */
  any(): AnySchema;
  /**
   * Wraps any Standard Schema v1 validator (zod, valibot, arktype) so that `ctx.decode()`
   * decodes request bodies into it, with the same syntax errors and byte offsets as Weft's own
   * schemas.
   */
  standard<S extends StandardSchemaV1>(validator: S): DecodableValidator<S>;
}

// deno-lint-ignore no-explicit-any
function node<T extends SchemaNode>(fields: Record<string, any> & { kind: T["kind"] }): T {
  const schema = { ...fields } as Record<string, unknown>;
  Object.defineProperty(schema, "~standard", {
    value: Object.freeze({
      version: 1,
      vendor: "weft",
      validate: (value: unknown) => standardValidate(schema as unknown as SchemaNode, value),
    }),
    enumerable: false,
  });
  Object.defineProperty(schema, "~decode", {
    value: decoderOf(schema as unknown as SchemaNode),
    enumerable: false,
  });
  // The encoder travels with the schema too (what `ctx.json(value, { schema })` calls), so the
  // core never imports it.
  Object.defineProperty(schema, "~encode", {
    value: (value: unknown) => encode(value as never, schema as unknown as SchemaNode),
    enumerable: false,
  });
  built(Object.freeze(schema));
  return schema as unknown as T;
}

// What `ctx.decode()` calls: a body of a JSON media type (or of none) decoded against `target`.
function decoderOf(target: StandardSchemaV1): Decodable["~decode"] {
  return (data: Uint8Array | string, headers?: Headers | null, options?: DecodeOptions) => {
    expectJson(headers);
    return decode(data, target, options);
  };
}

function expectSchema(value: unknown, where: string): void {
  if (!isWeftSchema(value)) throw new TypeError(`Cannot build ${where}: not a Weft schema`);
}

const STRING: StringSchema = /* @__PURE__ */ node({ kind: "string" });
const NUMBER: NumberSchema = /* @__PURE__ */ node({ kind: "number" });
const INTEGER: IntegerSchema = /* @__PURE__ */ node({ kind: "integer" });
const BOOLEAN: BooleanSchema = /* @__PURE__ */ node({ kind: "boolean" });
const NULL: NullSchema = /* @__PURE__ */ node({ kind: "null" });
const ANY: AnySchema = /* @__PURE__ */ node({ kind: "any" });

/**
 * Builds schemas. Each schema carries its TypeScript type (read it with
 * {@linkcode Infer}), is immutable, and is a Standard Schema v1 validator.
 *
 * @example An order, with a discriminated union
 * ```ts
 * import { json, schema, type Infer } from "./mod.ts";
 * import assert from "node:assert/strict";
 *
 * const Payment = schema.union("method", [
 *   schema.object({ method: schema.literal("card"), last4: schema.string() }),
 *   schema.object({ method: schema.literal("invoice"), days: schema.integer() }),
 * ]);
 * const Order = schema.object({
 *   id: schema.integer(),
 *   status: schema.enum(["open", "paid"]),
 *   note: schema.optional(schema.nullable(schema.string())),
 *   items: schema.array(schema.object({ sku: schema.string(), qty: schema.integer() })),
 *   payment: Payment,
 *   meta: schema.record(schema.any()),
 * });
 * type Order = Infer<typeof Order>;
 *
 * const order: Order = {
 *   id: 1,
 *   status: "open",
 *   items: [{ sku: "A-1", qty: 2 }],
 *   payment: { method: "invoice", days: 30 },
 *   meta: {},
 * };
 * assert.deepEqual(json.decode(JSON.stringify(order), Order), { ok: true, value: order });
 * ```
 */
export const schema: SchemaBuilder = {
  string: (constraints) =>
    constraints === undefined
      ? STRING
      : node({ kind: "string", ...stringConstraints(constraints) }),
  number: (constraints) =>
    constraints === undefined
      ? NUMBER
      : node({ kind: "number", ...numberConstraints(constraints) }),
  integer: (constraints) =>
    constraints === undefined
      ? INTEGER
      : node({ kind: "integer", ...numberConstraints(constraints, true) }),
  boolean: () => BOOLEAN,
  null: () => NULL,
  any: () => ANY,
  literal(value) {
    const type = value === null ? "null" : typeof value;
    if (type !== "string" && type !== "boolean" && type !== "null" && type !== "number") {
      throw new TypeError(`Cannot build a literal schema: ${type} is not a JSON scalar`);
    }
    if (type === "number" && !Number.isFinite(value)) {
      throw new TypeError(`Cannot build a literal schema: ${value} is not a finite number`);
    }
    return node({ kind: "literal", value });
  },
  enum(values) {
    if (!Array.isArray(values) || values.length === 0) {
      throw new TypeError("Cannot build an enum schema: it needs at least one value");
    }
    for (const value of values) {
      if (typeof value !== "string" && !(typeof value === "number" && Number.isFinite(value))) {
        throw new TypeError(
          `Cannot build an enum schema: ${String(value)} is not a string or number`,
        );
      }
    }
    return node({ kind: "enum", values: Object.freeze([...values]) });
  },
  array(item, constraints = {}) {
    expectSchema(item, "an array schema");
    // JSON has no absent item: an optional one was written as null, which the schema refuses
    for (let s = item as SchemaNode; s.kind === "optional" || s.kind === "nullable";) {
      if (s.kind === "optional") {
        throw new TypeError(
          "Cannot build an array schema: an item cannot be optional (use nullable)",
        );
      }
      s = s.inner as SchemaNode;
    }
    const { minItems, maxItems, uniqueItems } = constraints;
    const where = "an array schema";
    range(
      where,
      "minItems",
      count(where, "minItems", minItems),
      count(where, "maxItems", maxItems),
    );
    if (uniqueItems !== undefined && typeof uniqueItems !== "boolean") {
      throw new TypeError(`Cannot build ${where}: uniqueItems is a boolean`);
    }
    return node({ kind: "array", item, ...defined({ minItems, maxItems, uniqueItems }) });
  },
  object(shape, options = {}) {
    for (const key of Object.keys(shape)) expectSchema(shape[key], `member "${key}"`);
    const unknownKeys = options.unknownKeys ?? "ignore";
    if (unknownKeys !== "ignore" && unknownKeys !== "reject") {
      throw new TypeError(`Cannot build an object schema: unknownKeys is "ignore" or "reject"`);
    }
    const maxProperties = count("an object schema", "maxProperties", options.maxProperties);
    return node({
      kind: "object",
      shape: Object.freeze({ ...shape }),
      unknownKeys,
      ...defined({ maxProperties }),
    });
  },
  optional(inner) {
    expectSchema(inner, "an optional schema");
    return node({ kind: "optional", inner });
  },
  nullable(inner) {
    expectSchema(inner, "a nullable schema");
    return node({ kind: "nullable", inner });
  },
  union(discriminator, variants) {
    // the key is written into generated checks; only a string is read the same way every time
    if (typeof discriminator !== "string") {
      throw new TypeError("Cannot build a union: its discriminator must be a string");
    }
    const seen = new Set<unknown>();
    for (const variant of variants) {
      const tag = isWeftSchema(variant) && variant.kind === "object"
        ? (variant.shape as Shape)[discriminator] as SchemaNode | undefined
        : undefined;
      if (tag === undefined || tag.kind !== "literal") {
        throw new TypeError(
          `Cannot build a union on "${discriminator}": every variant must be an object schema with a literal "${discriminator}"`,
        );
      }
      if (seen.has(tag.value)) {
        throw new TypeError(
          `Cannot build a union on "${discriminator}": ${JSON.stringify(tag.value)} is used twice`,
        );
      }
      seen.add(tag.value);
    }
    return node({ kind: "union", discriminator, variants: Object.freeze([...variants]) });
  },
  record(value, constraints = {}) {
    expectSchema(value, "a record schema");
    const maxProperties = count("a record schema", "maxProperties", constraints.maxProperties);
    return node({ kind: "record", value, ...defined({ maxProperties }) });
  },
  standard<S extends StandardSchemaV1>(validator: S): DecodableValidator<S> {
    const props = (validator as { "~standard"?: { validate?: unknown } } | null)?.["~standard"];
    if (typeof props?.validate !== "function") {
      throw new TypeError("Cannot wrap the validator: it is not a Standard Schema v1 validator");
    }
    return Object.freeze({
      "~standard": validator["~standard"],
      "~decode": decoderOf(validator),
    }) as unknown as DecodableValidator<S>;
  },
};
