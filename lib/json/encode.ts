/**
 * `json.encode`: a value to JSON text, optionally through a schema that decides which members
 * are written.
 *
 * @module
 */
import type { Infer } from "./standard_schema.ts";
import {
  isWeftSchema,
  type LiteralValue,
  type Schema as WeftSchema,
  type SchemaNode as Schema,
  type Shape,
} from "./schema.ts";
import { explain, toJsonError } from "./_explain.ts";
import {
  BOOLEAN,
  CALL,
  ENUM,
  INTEGER,
  leafTag,
  LITERAL,
  NULLABLE_NUMBER,
  NULLABLE_STRING,
  NUMBER,
  STRING,
} from "./_check.ts";

// A projection returns the value to serialize: the input itself when it already holds only
// the schema's members (checked with a cheap for-in walk), else a copy that drops the rest.
// JSON.stringify then does the writing, which no JavaScript-level writer beats in V8.
type Project = (value: unknown) => unknown;

const FAIL: unique symbol = Symbol("fail");
const isArray = Array.isArray;
const projections = new WeakMap<Schema, Project>();

function projection(schema: Schema): Project {
  let project = projections.get(schema);
  if (project === undefined) {
    project = build(schema);
    projections.set(schema, project);
  }
  return project;
}

function same(v: unknown): unknown {
  return v;
}

// `out.__proto__ = x` would set the prototype; a member of that name must be defined.
function put(out: Record<string, unknown>, key: string, value: unknown): void {
  if (key === "__proto__") {
    Object.defineProperty(out, key, {
      value,
      writable: true,
      enumerable: true,
      configurable: true,
    });
  } else {
    out[key] = value;
  }
}

// An object JSON.stringify writes member by member (no toJSON).
function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !isArray(v) &&
    typeof (v as Record<string, unknown>).toJSON !== "function";
}

function build(s: Schema): Project {
  switch (s.kind) {
    case "string":
      return (v) => typeof v === "string" ? v : FAIL;
    case "number":
      return (v) => typeof v === "number" && v - v === 0 ? v : FAIL;
    case "integer":
      return (v) => Number.isSafeInteger(v) ? v : FAIL;
    case "boolean":
      return (v) => typeof v === "boolean" ? v : FAIL;
    case "null":
      return (v) => v === null ? v : FAIL;
    case "any":
      return same; // written as JSON.stringify writes it
    case "literal": {
      const literal = s.value;
      return (v) => v === literal ? v : FAIL;
    }
    case "enum": {
      const values = s.values as readonly unknown[];
      return (v) => values.includes(v) ? v : FAIL;
    }
    case "optional": {
      const inner = projection(s.inner as Schema);
      return (v) => v === undefined ? FAIL : inner(v); // only object members may be absent
    }
    case "nullable": {
      const inner = projection(s.inner as Schema);
      return (v) => v === null ? v : inner(v);
    }
    case "array": {
      const item = projection(s.item as Schema);
      return function projectArray(v) {
        if (!isArray(v)) return FAIL;
        let out: unknown[] | undefined;
        for (let i = 0; i < v.length; i++) {
          const x = v[i];
          const y = item(x);
          if (y === FAIL) return FAIL;
          if (y !== x && out === undefined) out = v.slice(0, i);
          if (out !== undefined) out.push(y);
        }
        return out ?? v;
      };
    }
    case "record": {
      const value = projection(s.value as Schema);
      if ((s.value as Schema).kind === "string") {
        return function projectStringRecord(v) {
          if (!isRecord(v)) return FAIL;
          for (const key in v) if (typeof v[key] !== "string") return FAIL;
          return v;
        };
      }
      return function projectRecord(v) {
        if (!isRecord(v)) return FAIL;
        let out: Record<string, unknown> | undefined;
        for (const key in v) {
          const x = v[key];
          const y = value(x);
          if (y === FAIL) return FAIL;
          if (y !== x) out ??= { ...v };
          if (out !== undefined) put(out, key, y);
        }
        return out ?? v;
      };
    }
    case "object":
      return buildObject(s.shape);
    case "union": {
      const key = s.discriminator;
      const tags = s.variants.map((variant) =>
        ((variant.shape as Shape)[key] as unknown as { value: LiteralValue }).value
      );
      const variants = s.variants.map((variant) => projection(variant as Schema));
      return function projectUnion(v) {
        if (typeof v !== "object" || v === null || !Object.hasOwn(v, key)) return FAIL;
        const i = tags.indexOf((v as Record<string, unknown>)[key] as LiteralValue);
        return i === -1 ? FAIL : variants[i](v);
      };
    }
  }
}

const NONE: unique symbol = Symbol("none");

function buildObject(shape: Shape): Project {
  const keys = Object.keys(shape);
  const n = keys.length;
  const required = keys.map((key) => shape[key].kind !== "optional");
  const inners = keys.map((key) => {
    const member = shape[key] as Schema;
    return member.kind === "optional" ? member.inner as Schema : member;
  });
  const members = inners.map(projection);
  const tags = inners.map((inner, i) => required[i] ? leafTag(inner) : CALL);
  const allowed = inners.map((inner) =>
    inner.kind === "literal" ? [inner.value] : inner.kind === "enum" ? inner.values : []
  );
  const guarded = keys.map((key) => key in Object.prototype);
  // Copies share one hidden class: they are spread from this template, in shape order.
  const template: Record<string, unknown> = {};
  for (const key of keys) put(template, key, undefined);

  // Copies the members; those before `from` are already checked and kept as they are, and
  // `at` (unless NONE) is the projection of member `from`.
  function copy(o: object, from: number, at: unknown): unknown {
    const source = o as Record<string, unknown>;
    const out: Record<string, unknown> = { ...template };
    for (let i = 0; i < n; i++) {
      const key = keys[i];
      const x = guarded[i] && !Object.hasOwn(source, key) ? undefined : source[key];
      let y: unknown;
      if (i < from) y = x;
      else if (i === from && at !== NONE) y = at;
      else if (x === undefined) {
        if (required[i]) return FAIL;
        continue;
      } else {
        y = members[i](x);
        if (y === FAIL) return FAIL;
      }
      if (y !== undefined) put(out, key, y);
    }
    return out;
  }

  function skipTo(key: string, i: number): number {
    for (; i < n; i++) {
      if (keys[i] === key) return i;
      if (required[i]) return -1;
    }
    return -1;
  }

  return function projectObject(v) {
    if (typeof v !== "object" || v === null || isArray(v)) return FAIL;
    const o = v as Record<string, unknown>;
    // JSON.stringify would call toJSON; copying reads the members instead. (A prototype check
    // would be exact but costs more than the rest of the walk.) Getters are not enumerated,
    // so objects that have them are copied below too.
    if (typeof o.toJSON === "function") return copy(o, 0, NONE);
    let i = 0;
    for (const key in o) {
      if (key !== keys[i]) {
        const next = skipTo(key, i);
        if (next < 0) return copy(o, i, NONE); // an unknown member, or another order
        i = next;
      }
      const x = o[key];
      const tag = tags[i];
      if (tag === STRING) {
        if (typeof x !== "string") return FAIL;
      } else if (tag === NUMBER) {
        if (typeof x !== "number" || x - x !== 0) return FAIL;
      } else if (tag === NULLABLE_STRING) {
        if (x !== null && typeof x !== "string") return FAIL;
      } else if (tag === INTEGER) {
        if (!Number.isSafeInteger(x)) return FAIL;
      } else if (tag === NULLABLE_NUMBER) {
        if (x !== null && (typeof x !== "number" || x - x !== 0)) return FAIL;
      } else if (tag === BOOLEAN) {
        if (typeof x !== "boolean") return FAIL;
      } else if (tag === LITERAL || tag === ENUM) {
        const values = allowed[i];
        let j = 0;
        while (j < values.length && x !== values[j]) j++;
        if (j === values.length) return FAIL;
      } else if (x === undefined) {
        if (required[i]) return FAIL;
      } else {
        const y = members[i](x);
        if (y === FAIL) return FAIL;
        if (y !== x) return copy(o, i, y);
      }
      i++;
    }
    for (; i < n; i++) if (required[i]) return copy(o, i, NONE); // perhaps inherited
    return o;
  };
}

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
  if (!isWeftSchema(target)) {
    throw new TypeError("Cannot encode with this schema: json.encode needs a Weft schema");
  }
  const projected = projection(target)(value);
  if (projected === FAIL) fail(target, value);
  return JSON.stringify(projected);
}
