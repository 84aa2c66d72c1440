// The schema nodes' types and the registry of built nodes: what the builder (schema.ts) makes
// and the checker, generator, decoder and encoder read. Internal; schema.ts re-exports the types.
import type { Infer, StandardSchemaV1, StandardSchemaV1Props } from "./standard_schema.ts";
import type { Decodable } from "./json_error.ts";

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
}

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

const BUILT = new WeakSet<object>();

/** Records `node` as built by the schema builder. */
export function built(node: object): void {
  BUILT.add(node);
}

/**
 * Tells whether a value is a schema built by the schema builder (`schema` of `weft/json`).
 *
 * @param value Anything.
 * @returns `true` for Weft schemas.
 */
export function isWeftSchema(value: unknown): value is SchemaNode {
  return typeof value === "object" && value !== null && BUILT.has(value);
}
