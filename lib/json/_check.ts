// The fast pass of validation against a Weft schema: a tree of closures built once per
// schema (cached in a WeakMap; no eval, no new Function) that answers true or false without
// allocating. Only when it answers false does the slow pass (_explain.ts) walk the schema
// again to name the first failure and its path, in the same order.
import type { LiteralSchema, LiteralValue, SchemaNode as Schema, Shape } from "./schema.ts";

/** The deepest nesting of arrays and objects that decoding and validation accept. */
export const MAX_DEPTH = 512;

/** `depth` is the nesting level a container at this position has (the root's is 1). */
export type Check = (value: unknown, depth: number) => boolean;

const isArray = Array.isArray;
const checks = new WeakMap<Schema, Check>();

/** The fast check of a schema that was compiled already, so one lookup serves decode. */
export function compiled(schema: object): Check | undefined {
  return checks.get(schema as Schema);
}

/** Returns the fast check of a schema, built once. */
export function compile(schema: Schema): Check {
  let check = checks.get(schema);
  if (check === undefined) {
    check = build(schema);
    checks.set(schema, check);
  }
  return check;
}

function isString(v: unknown): boolean {
  return typeof v === "string";
}

function isNumber(v: unknown): boolean {
  return typeof v === "number" && v - v === 0; // finite: Infinity - Infinity and NaN are NaN
}

function isInteger(v: unknown): boolean {
  return Number.isSafeInteger(v);
}

function isBoolean(v: unknown): boolean {
  return typeof v === "boolean";
}

function isNull(v: unknown): boolean {
  return v === null;
}

export function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !isArray(v);
}

/** Whether `v` is a JSON value (finite numbers, plain data) no deeper than the limit. */
export function isJson(v: unknown, depth: number): boolean {
  switch (typeof v) {
    case "string":
    case "boolean":
      return true;
    case "number":
      return v - v === 0;
    case "object": {
      if (v === null) return true;
      if (depth > MAX_DEPTH) return false;
      if (isArray(v)) {
        for (let i = 0; i < v.length; i++) if (!isJson(v[i], depth + 1)) return false;
        return true;
      }
      const o = v as Record<string, unknown>;
      for (const key in o) if (Object.hasOwn(o, key) && !isJson(o[key], depth + 1)) return false;
      return true;
    }
    default:
      return false;
  }
}

// Member names that exist on Object.prototype must be read only when they are own properties.
export function inherited(key: string): boolean {
  return key in Object.prototype;
}

export function member(o: Record<string, unknown>, key: string, guarded: boolean): unknown {
  return guarded && !Object.hasOwn(o, key) ? undefined : o[key];
}

// Leaf kinds that object checks (and encode's projections) test inline instead of calling a
// closure.
export const CALL = 0;
export const STRING = 1;
export const NUMBER = 2;
export const INTEGER = 3;
export const BOOLEAN = 4;
export const NULLABLE_STRING = 5;
export const LITERAL = 6;
export const ENUM = 7;
export const NULLABLE_NUMBER = 8;
export const STRING_ARRAY = 9;
export const STRING_RECORD = 10;

export function leafTag(s: Schema): number {
  switch (s.kind) {
    case "string":
      return STRING;
    case "number":
      return NUMBER;
    case "integer":
      return INTEGER;
    case "boolean":
      return BOOLEAN;
    case "nullable": {
      const inner = s.inner as Schema;
      if (inner.kind === "string") return NULLABLE_STRING;
      return inner.kind === "number" ? NULLABLE_NUMBER : CALL;
    }
    case "array":
      return (s.item as Schema).kind === "string" ? STRING_ARRAY : CALL;
    case "record":
      return (s.value as Schema).kind === "string" ? STRING_RECORD : CALL;
    case "literal":
      return LITERAL;
    case "enum":
      return ENUM;
    default:
      return CALL;
  }
}

function build(s: Schema): Check {
  switch (s.kind) {
    case "string":
      return isString;
    case "number":
      return isNumber;
    case "integer":
      return isInteger;
    case "boolean":
      return isBoolean;
    case "null":
      return isNull;
    case "any":
      return isJson;
    case "literal": {
      const literal = s.value;
      return (v) => v === literal;
    }
    case "enum": {
      const values = s.values as readonly unknown[];
      const n = values.length;
      return function checkEnum(v) {
        for (let i = 0; i < n; i++) if (v === values[i]) return true;
        return false;
      };
    }
    case "optional": {
      const inner = compile(s.inner as Schema);
      return (v, depth) => v === undefined || inner(v, depth);
    }
    case "nullable": {
      const inner = compile(s.inner as Schema);
      return (v, depth) => v === null || inner(v, depth);
    }
    case "array":
      return buildArray(s.item as Schema);
    case "record": {
      const value = compile(s.value as Schema);
      if (leafTag(s.value as Schema) === STRING) {
        return function checkStringRecord(v, depth) {
          if (!isObject(v) || depth > MAX_DEPTH) return false;
          for (const key in v) {
            if (typeof v[key] !== "string" && Object.hasOwn(v, key)) return false;
          }
          return true;
        };
      }
      return function checkRecord(v, depth) {
        if (!isObject(v) || depth > MAX_DEPTH) return false;
        for (const key in v) if (!value(v[key], depth + 1) && Object.hasOwn(v, key)) return false;
        return true;
      };
    }
    case "object":
      return buildObject(s.shape, s.unknownKeys === "reject");
    case "union": {
      const key = s.discriminator;
      const guarded = inherited(key);
      const tags = s.variants.map((variant) => tagOf(variant.shape, key));
      const variants = s.variants.map((variant) => compile(variant as Schema));
      const n = tags.length;
      return function checkUnion(v, depth) {
        if (!isObject(v)) return false;
        const tag = member(v, key, guarded);
        for (let i = 0; i < n; i++) if (tag === tags[i]) return variants[i](v, depth);
        return false;
      };
    }
  }
}

function buildArray(itemSchema: Schema): Check {
  const tag = leafTag(itemSchema);
  if (tag === STRING) {
    return function checkStrings(v, depth) {
      if (!isArray(v) || depth > MAX_DEPTH) return false;
      for (let i = 0; i < v.length; i++) if (typeof v[i] !== "string") return false;
      return true;
    };
  }
  const item = compile(itemSchema);
  return function checkArray(v, depth) {
    if (!isArray(v) || depth > MAX_DEPTH) return false;
    for (let i = 0; i < v.length; i++) if (!item(v[i], depth + 1)) return false;
    return true;
  };
}

export function tagOf(shape: Shape, key: string): LiteralValue {
  return (shape[key] as LiteralSchema<LiteralValue>).value;
}

function buildObject(shape: Shape, reject: boolean): Check {
  const keys = Object.keys(shape);
  const n = keys.length;
  const required = keys.map((key) => shape[key].kind !== "optional");
  const inners = keys.map((key) => {
    const field = shape[key] as Schema;
    return field.kind === "optional" ? field.inner as Schema : field;
  });
  const fields = inners.map(compile);
  const tags = inners.map((inner, i) => required[i] ? leafTag(inner) : CALL);
  // the allowed values of literal and enum members, tested inline
  const allowed = inners.map((inner) =>
    inner.kind === "literal" ? [inner.value] : inner.kind === "enum" ? inner.values : []
  );
  const guarded = keys.map(inherited);
  const anyGuarded = guarded.includes(true);

  // By name: a keyed load per member, then a scan for unknown members when they are rejected.
  function byName(v: Record<string, unknown>, depth: number): boolean {
    for (let i = 0; i < n; i++) {
      const x = anyGuarded ? member(v, keys[i], guarded[i]) : v[keys[i]];
      if (x === undefined) {
        if (required[i]) return false;
      } else if (!fields[i](x, depth + 1)) return false;
    }
    if (reject) {
      for (const key in v) if (Object.hasOwn(v, key) && !Object.hasOwn(shape, key)) return false;
    }
    return true;
  }

  // Skips absent optional members up to `key`; -1 when `key` is not next in shape order.
  function skipTo(key: string, i: number): number {
    for (; i < n; i++) {
      if (keys[i] === key) return i;
      if (required[i]) return -1;
    }
    return -1;
  }

  // In order: when the members come in the shape's order (absent optional ones skipped), a
  // for-in walk reads each value by its enumeration index, far cheaper than keyed loads, and
  // leaves are tested inline. Another order or an unknown member falls back to byName.
  return function checkObject(v, depth) {
    if (typeof v !== "object" || v === null || isArray(v) || depth > MAX_DEPTH) return false;
    const o = v as Record<string, unknown>;
    let i = 0;
    for (const key in o) {
      if (key !== keys[i]) {
        i = skipTo(key, i);
        if (i < 0) return byName(o, depth);
      }
      const x = o[key];
      const tag = tags[i];
      if (tag === STRING) {
        if (typeof x !== "string") return false;
      } else if (tag === NUMBER) {
        if (typeof x !== "number" || x - x !== 0) return false;
      } else if (tag === NULLABLE_STRING) {
        if (x !== null && typeof x !== "string") return false;
      } else if (tag === INTEGER) {
        if (!Number.isSafeInteger(x)) return false;
      } else if (tag === NULLABLE_NUMBER) {
        if (x !== null && (typeof x !== "number" || x - x !== 0)) return false;
      } else if (tag === BOOLEAN) {
        if (typeof x !== "boolean") return false;
      } else if (tag === LITERAL || tag === ENUM) {
        const values = allowed[i];
        let j = 0;
        while (j < values.length && x !== values[j]) j++;
        if (j === values.length) return false;
      } else if (tag === STRING_ARRAY) {
        if (!isArray(x) || depth >= MAX_DEPTH) return false;
        for (let j = 0; j < x.length; j++) if (typeof x[j] !== "string") return false;
      } else if (tag === STRING_RECORD) {
        if (!isObject(x) || depth >= MAX_DEPTH) return false;
        for (const k in x) if (typeof x[k] !== "string" && Object.hasOwn(x, k)) return false;
      } else if (x === undefined) {
        if (required[i]) return false;
      } else if (!fields[i](x, depth + 1)) return false;
      i++;
    }
    for (; i < n; i++) if (required[i]) return false; // absent, since the order held
    return true;
  };
}
