/**
 * The schema builder: schemas that carry their TypeScript type ({@linkcode Infer}) and are
 * Standard Schema v1 validators (`~standard`, vendor `"weft"`).
 *
 * @module
 */
import type { Infer, StandardSchemaV1, StandardSchemaV1Props } from "./standard_schema.ts";
import type { Decodable, DecodeResult } from "./json_error.ts";
import { standardValidate } from "./_compile.ts";
import { decode } from "./decode.ts";
import { encode } from "./encode.ts";
import { expectJson } from "./_media_type.ts";
import { count, defined, numberConstraints, range, stringConstraints } from "./_constraints.ts";

/** A JSON scalar. */
export type JsonPrimitive = string | number | boolean | null;

/** Any JSON value, as `JSON.parse` returns it. */
export type JsonValue = JsonPrimitive | JsonValue[] | { [key: string]: JsonValue };

/** The values a {@linkcode LiteralSchema} may hold. */
export type LiteralValue = string | number | boolean | null;

/** The tags of Weft's schema kinds. */
export type SchemaKind =
  | "string"
  | "number"
  | "integer"
  | "boolean"
  | "null"
  | "literal"
  | "enum"
  | "array"
  | "object"
  | "optional"
  | "nullable"
  | "union"
  | "record"
  | "any";

/**
 * A Weft schema whose values have type `T`: a `kind` tag and the Standard Schema v1
 * properties (vendor `"weft"`). Build schemas with {@linkcode schema}.
 */
export interface Schema<T = unknown> extends StandardSchemaV1<T, T>, Decodable<T> {
  /** The node's tag. */
  readonly kind: SchemaKind;
  /** The Standard Schema v1 properties (vendor `"weft"`). */
  readonly "~standard": StandardSchemaV1Props<T, T>;
  /** Decodes JSON bytes or text against this schema (what `ctx.decode()` calls). */
  readonly "~decode": (data: Uint8Array | string, contentType?: string | null) => DecodeResult<T>;
}

/** A Standard Schema validator that decodes JSON: what {@linkcode SchemaBuilder.standard} returns. */
export type DecodableValidator<S extends StandardSchemaV1> = S & Decodable<Infer<S>>;

/**
 * The formats a string may be required to have:
 * - `email`: `local@domain`, the local part dot-separated atoms of RFC 5322 `atext`, the domain
 *   two or more dot-separated labels of letters, digits and inner hyphens (ASCII only);
 * - `uri`: an absolute URI of RFC 3986 §3 (`scheme ":" hier-part ["?" query] ["#" fragment]`),
 *   ASCII, with well-formed percent escapes;
 * - `uuid`: RFC 9562 §4, 8-4-4-4-12 hexadecimal digits (either case), no `urn:uuid:` prefix;
 * - `date`: RFC 3339 §5.6 `full-date` (`2024-02-29`), the day valid for its month and year;
 * - `date-time`: RFC 3339 §5.6 `date-time`: `full-date "T" full-time`, the `T` and `Z` in
 *   either case, seconds required, an offset required (`Z` or `±hh:mm`), second 60 only at
 *   23:59 UTC (a leap second).
 */
export type StringFormat = "email" | "uri" | "uuid" | "date" | "date-time";

/** Constraints of {@linkcode SchemaBuilder.string}. */
export interface StringConstraints {
  /** The fewest code points (not UTF-16 units: `"😀"` is one). */
  readonly minLength?: number;
  /** The most code points (not UTF-16 units: `"😀"` is one). */
  readonly maxLength?: number;
  /**
   * A regular expression the string must match (it is not anchored unless written with `^…$`).
   * Tested only on strings that pass `minLength`/`maxLength`; the pattern's cost is the
   * application's responsibility (see docs/json.md).
   */
  readonly pattern?: RegExp;
  /** A format the string must have. */
  readonly format?: StringFormat;
}

/** Constraints of {@linkcode SchemaBuilder.number} and {@linkcode SchemaBuilder.integer}. */
export interface NumberConstraints {
  /** The least value allowed. */
  readonly minimum?: number;
  /** The greatest value allowed. */
  readonly maximum?: number;
  /** Values must be greater than this. */
  readonly exclusiveMinimum?: number;
  /** Values must be less than this. */
  readonly exclusiveMaximum?: number;
  /** Values must be a multiple of this (> 0): `value / multipleOf` is an integer. */
  readonly multipleOf?: number;
}

/** Constraints of {@linkcode SchemaBuilder.array}. */
export interface ArrayConstraints {
  /** The fewest items. */
  readonly minItems?: number;
  /** The most items. */
  readonly maxItems?: number;
  /** No two items equal as JSON values (members compared regardless of order). */
  readonly uniqueItems?: boolean;
}

/** Constraints of {@linkcode SchemaBuilder.record}. */
export interface RecordConstraints {
  /** The most members. */
  readonly maxProperties?: number;
}

/** A JSON string. */
export interface StringSchema extends Schema<string>, StringConstraints {
  /** The node's tag. */
  readonly kind: "string";
}

/** A finite JSON number. */
export interface NumberSchema extends Schema<number>, NumberConstraints {
  /** The node's tag. */
  readonly kind: "number";
}

/** A JSON number that is a safe integer (|n| ≤ 2^53 − 1); `1.0` and `1e2` qualify. */
export interface IntegerSchema extends Schema<number>, NumberConstraints {
  /** The node's tag. */
  readonly kind: "integer";
}

/** `true` or `false`. */
export interface BooleanSchema extends Schema<boolean> {
  /** The node's tag. */
  readonly kind: "boolean";
}

/** `null`. */
export interface NullSchema extends Schema<null> {
  /** The node's tag. */
  readonly kind: "null";
}

/** Exactly one value. */
export interface LiteralSchema<V extends LiteralValue> extends Schema<V> {
  /** The node's tag. */
  readonly kind: "literal";
  /** The only value allowed. */
  readonly value: V;
}

/** One of a list of string or number literals. */
export interface EnumSchema<V extends string | number> extends Schema<V> {
  /** The node's tag. */
  readonly kind: "enum";
  /** The values allowed. */
  readonly values: readonly V[];
}

/** An array whose items all match `item`. */
export interface ArraySchema<I extends Schema> extends Schema<Infer<I>[]>, ArrayConstraints {
  /** The node's tag. */
  readonly kind: "array";
  /** The schema of every item. */
  readonly item: I;
}

/** The members of an object schema. */
export type Shape = { readonly [key: string]: Schema };

/** Makes an intersection read as one object type. */
export type Simplify<T> = { [K in keyof T]: T[K] } & unknown;

/** The names of the optional members of a shape. */
export type OptionalKeys<S extends Shape> = {
  [K in keyof S]: S[K] extends OptionalSchema<Schema> ? K : never;
}[keyof S];

/** The value type of an {@linkcode ObjectSchema}: optional schemas make optional members. */
export type ObjectOutput<S extends Shape> = Simplify<
  & { [K in Exclude<keyof S, OptionalKeys<S>>]: Infer<S[K]> }
  & { [K in OptionalKeys<S>]?: Infer<S[K]> }
>;

/** What an object does with members its shape does not name. */
export type UnknownKeys = "ignore" | "reject";

/** Options of {@linkcode SchemaBuilder.object}. */
export interface ObjectOptions {
  /**
   * `"ignore"` leaves unknown members in the decoded value, untyped and unchecked; `"reject"`
   * makes each one an `unexpected_field` issue.
   *
   * @default {"ignore"}
   */
  unknownKeys?: UnknownKeys;
  /** The most members, unknown ones included (`json.encode` counts the members it writes). */
  maxProperties?: number;
}

/** An object with the members of `shape`. */
export interface ObjectSchema<S extends Shape> extends Schema<ObjectOutput<S>> {
  /** The node's tag. */
  readonly kind: "object";
  /** The members. */
  readonly shape: S;
  /** What happens to members `shape` does not name. */
  readonly unknownKeys: UnknownKeys;
  /** The most members. */
  readonly maxProperties?: number;
}

/** A member that may be absent (and, in a value, `undefined`). */
export interface OptionalSchema<I extends Schema> extends Schema<Infer<I> | undefined> {
  /** The node's tag. */
  readonly kind: "optional";
  /** The schema of the value when present. */
  readonly inner: I;
}

/** `inner` or `null`. */
export interface NullableSchema<I extends Schema> extends Schema<Infer<I> | null> {
  /** The node's tag. */
  readonly kind: "nullable";
  /** The schema of the value when not `null`. */
  readonly inner: I;
}

/** An object schema whose member `K` is a literal: a variant of a {@linkcode UnionSchema}. */
export type VariantSchema<K extends string> = ObjectSchema<
  Shape & { readonly [P in K]: LiteralSchema<LiteralValue> }
>;

/** One of several object schemas, chosen by the literal value of the member `discriminator`. */
export interface UnionSchema<K extends string, V extends readonly VariantSchema<K>[]>
  extends Schema<Infer<V[number]>> {
  /** The node's tag. */
  readonly kind: "union";
  /** The member whose literal value picks the variant. */
  readonly discriminator: K;
  /** The variants. */
  readonly variants: V;
}

/** An object used as a map from string keys to values of one schema. */
export interface RecordSchema<I extends Schema>
  extends Schema<Record<string, Infer<I>>>, RecordConstraints {
  /** The node's tag. */
  readonly kind: "record";
  /** The schema of every value. */
  readonly value: I;
}

/** Any JSON value (finite numbers only), checked to the depth limit. */
export interface AnySchema extends Schema<JsonValue> {
  /** The node's tag. */
  readonly kind: "any";
}

/** Every kind of Weft schema, for code that switches on `kind`. */
export type SchemaNode =
  | StringSchema
  | NumberSchema
  | IntegerSchema
  | BooleanSchema
  | NullSchema
  | LiteralSchema<LiteralValue>
  | EnumSchema<string | number>
  | ArraySchema<Schema>
  | ObjectSchema<Shape>
  | OptionalSchema<Schema>
  | NullableSchema<Schema>
  | UnionSchema<string, readonly VariantSchema<string>[]>
  | RecordSchema<Schema>
  | AnySchema;

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
  /** An array of `item`, with optional item counts and uniqueness. */
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

const BUILT = new WeakSet<object>();

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
    value: (data: Uint8Array | string, contentType?: string | null) => {
      expectJson(contentType);
      return decode(data, schema as unknown as SchemaNode);
    },
    enumerable: false,
  });
  // The encoder travels with the schema too (what `ctx.json(value, { schema })` calls), so the
  // core never imports it.
  Object.defineProperty(schema, "~encode", {
    value: (value: unknown) => encode(value as never, schema as unknown as SchemaNode),
    enumerable: false,
  });
  BUILT.add(Object.freeze(schema));
  return schema as unknown as T;
}

function isSchema(value: unknown): value is SchemaNode {
  return typeof value === "object" && value !== null && BUILT.has(value);
}

function expectSchema(value: unknown, where: string): void {
  if (!isSchema(value)) throw new TypeError(`Cannot build ${where}: not a Weft schema`);
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
      : node({ kind: "integer", ...numberConstraints(constraints) }),
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
    const seen = new Set<unknown>();
    for (const variant of variants) {
      const tag = isSchema(variant) && variant.kind === "object"
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
      "~decode": (data: Uint8Array | string, contentType?: string | null) => {
        expectJson(contentType);
        return decode(data, validator);
      },
    }) as unknown as DecodableValidator<S>;
  },
};

/**
 * Tells whether a value is a schema built by {@linkcode schema}.
 *
 * @param value Anything.
 * @returns `true` for Weft schemas.
 */
export function isWeftSchema(value: unknown): value is SchemaNode {
  return isSchema(value);
}
