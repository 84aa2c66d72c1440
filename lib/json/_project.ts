// The reference projection: the rules of encoding stated once, as the reference checker
// (_check.ts) states those of validation. The generated projections (codegen.ts) write the same
// values, and tests hold them to it.
import type { ArrayConstraints, SchemaNode as Schema } from "./_node.ts";
import { check, isObject, member, pure, repeated, tagOf } from "./_check.ts";

/** What a projection returns for a value that does not match its schema. */
export const FAIL: unique symbol = /* @__PURE__ */ Symbol("fail");

/** A projection for json.encode: the value to serialize (the schema's members only), or FAIL. */
export type Project = (value: unknown) => unknown;

// `out.__proto__ = x` would set the prototype; a member of that name must be defined.
export function put(out: Record<string, unknown>, key: string, value: unknown): void {
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

/**
 * `x`, a value of a schema of arrays of scalars (`levels` levels of arrays) that passed its
 * check, as json.encode writes it: the array itself, or a plain copy where it or an array in it
 * has a toJSON(), which JSON.stringify would call and json.encode never does.
 */
export function bare(x: unknown, levels: number): unknown {
  if (!Array.isArray(x)) return x;
  let out: unknown[] | undefined;
  const copy = () => {
    out = new Array(x.length);
    for (let i = 0; i < x.length; i++) out[i] = x[i];
    return out;
  };
  if ((x as { toJSON?: unknown }).toJSON !== undefined) copy();
  if (levels > 1) {
    for (let i = 0; i < x.length; i++) {
      const y = bare(x[i], levels - 1);
      if (y !== x[i]) (out ?? copy())[i] = y;
    }
  }
  return out ?? x;
}

/**
 * The reference projection for json.encode: `v` reduced to the schema's members (in shape
 * order, absent optional ones left out), or FAIL when it does not match the schema (read with
 * unknown members ignored). `schema.any()` values are passed as they are, for JSON.stringify.
 */
export function project(s: Schema, v: unknown): unknown {
  switch (s.kind) {
    case "any":
      return v === undefined ? FAIL : v;
    case "optional":
      return v === undefined ? undefined : project(s.inner as Schema, v);
    case "nullable":
      return v === null ? null : project(s.inner as Schema, v);
    case "array": {
      if (!Array.isArray(v) || !countFits(s, v.length)) return FAIL;
      const items = v;
      const out = new Array(items.length);
      for (let i = 0; i < items.length; i++) {
        if ((out[i] = project(s.item as Schema, items[i])) === FAIL) return FAIL;
      }
      return s.uniqueItems && repeated(out) >= 0 ? FAIL : out; // as written
    }
    case "record": {
      if (!isObject(v)) return FAIL;
      const out: Record<string, unknown> = {};
      let n = 0;
      for (const key in v) {
        if (!Object.hasOwn(v, key)) continue;
        const y = project(s.value as Schema, v[key]);
        if (y === FAIL) return FAIL;
        put(out, key, y), n++;
      }
      return s.maxProperties !== undefined && n > s.maxProperties ? FAIL : out;
    }
    case "object": {
      if (!isObject(v)) return FAIL;
      const out: Record<string, unknown> = {};
      let n = 0;
      for (const key in s.shape) {
        const field = s.shape[key] as Schema;
        const y = project(field, member(v, key));
        if (y === FAIL) return FAIL;
        if (y !== undefined) put(out, key, y), n++;
      }
      return s.maxProperties !== undefined && n > s.maxProperties ? FAIL : out;
    }
    case "union": {
      if (!isObject(v)) return FAIL;
      const tag = member(v, s.discriminator);
      const variant = s.variants.find((x) => tagOf(x as Schema, s.discriminator) === tag);
      return variant === undefined ? FAIL : project(variant as Schema, v);
    }
    default:
      return check(s, v, 1, pure(false)) ? v : FAIL;
  }
}

function countFits(s: ArrayConstraints, n: number): boolean {
  return !(n < (s.minItems ?? 0) || n > (s.maxItems ?? Infinity));
}
