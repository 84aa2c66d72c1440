// The reference checker: the one statement of the rules of validation. It walks a schema and a
// value together. Without an issue list it answers true or false (the check used where code
// generation is forbidden); with one it records every issue with its path, up to a cap (what
// explains a failure). The generated checks (codegen.ts) must answer as it does, and tests hold
// them to it. `project` states the rules of encoding the same way.
import type {
  ArrayConstraints,
  ArraySchema,
  LiteralSchema,
  LiteralValue,
  NumberConstraints,
  Schema as BaseSchema,
  SchemaNode as Schema,
  Shape,
  StringConstraints,
} from "./_node.ts";
import {
  constraintViolation,
  type JsonError,
  missingField,
  type PathKey,
  typeMismatch,
  unexpectedField,
} from "./json_error.ts";
import { FORMAT_CHECKS, FORMAT_NAMES } from "./_formats.ts";

/** The deepest nesting of arrays and objects that decoding and validation accept. */
export const MAX_DEPTH = 512;

/** What a projection returns for a value that does not match its schema. */
export const FAIL: unique symbol = /* @__PURE__ */ Symbol("fail");

/** A check: whether `value`, nested at `depth` (the root is 1), matches. */
export type Check = (value: unknown, depth: number) => boolean;

/** A projection for json.encode: the value to serialize (the schema's members only), or FAIL. */
export type Project = (value: unknown) => unknown;

/** One issue: a JsonError, or `null` for nesting beyond MAX_DEPTH; with its path. */
export interface Issue {
  error: JsonError | null;
  path: PathKey[];
}

/** A walk's options and, when it explains, where it records issues. */
export interface Walk {
  /** Whether unknown members (`unknownKeys: "reject"`) and objects' maxProperties apply. */
  strict: boolean;
  /** Where issues go; `undefined` to stop at the first failure without naming it. */
  issues?: Issue[];
  /** The most issues to record. */
  max: number;
  /** The path of the value being walked. */
  path: PathKey[];
}

/** Whether `v` is an object JSON would write with braces. */
export function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** Member names that exist on Object.prototype are read only as own members. */
export function inherited(key: string): boolean {
  return key in Object.prototype;
}

// Object.prototype's members are functions, but for __proto__: only a value of that kind can
// have been inherited, so only then is it asked whether it is the object's own.
function member(o: Record<string, unknown>, key: string): unknown {
  const x = o[key];
  return (typeof x === "function" || key === "__proto__") && !Object.hasOwn(o, key) ? undefined : x;
}

/** The tag of a union variant. */
export function tagOf(variant: Schema, key: string): LiteralValue {
  return ((variant as { shape: Shape }).shape[key] as LiteralSchema<LiteralValue>).value;
}

/** The number of code points of a string (a lone surrogate counts as one). */
export function codePoints(s: string): number {
  let n = s.length;
  for (let i = 0; i < s.length - 1; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) n--, i++;
    }
  }
  return n;
}

// A text equal for equal JSON values (members sorted by name; numbers as JSON writes them).
function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(",")}]`;
  if (isObject(v)) {
    const keys = Object.keys(v).sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonical(v[k])}`).join(",")}}`;
  }
  return typeof v === "number" ? String(v === 0 ? 0 : v) : JSON.stringify(v) ?? "undefined";
}

/** The index of the first item equal (as JSON) to an earlier one, or -1. */
export function repeated(items: readonly unknown[]): number {
  const seen = new Set<unknown>();
  for (let i = 0; i < items.length; i++) {
    const x = items[i];
    const key = typeof x === "object" && x !== null
      ? `o${canonical(x)}`
      : typeof x === "string"
      ? `s${x}`
      : x;
    if (seen.has(key)) return i;
    seen.add(key);
  }
  return -1;
}

/** Whether `v` is a JSON value nested no deeper than the limit at `depth`: `schema.any()`. */
export function isJson(v: unknown, depth: number): boolean {
  return walkJson(v, depth, PURE);
}

const PURE: Walk = { strict: true, max: 1, path: [] };
const LOOSE: Walk = { strict: false, max: 1, path: [] };

/** A walk that answers without naming failures: strict for decoding, loose for encoding. */
export function pure(strict: boolean): Walk {
  return strict ? PURE : LOOSE;
}

/**
 * Every issue of `v` against `s`, up to `max`, in document order of the schema: members in
 * shape order, items by index.
 */
export function explain(s: Schema, v: unknown, max: number, strict = true): Issue[] {
  const walk: Walk = { strict, issues: [], max, path: [] };
  check(s, v, 1, walk);
  return walk.issues!;
}

// Records an issue at the walk's path (and `more`); true when the walk must stop.
function report(w: Walk, error: (path: PathKey[]) => JsonError | null, more?: PathKey): boolean {
  if (w.issues === undefined) return true;
  const path = more === undefined ? [...w.path] : [...w.path, more];
  w.issues.push({ error: error(path), path });
  return w.issues.length >= w.max;
}

/** The type name a value that fails `s` at its own level is told it should have. */
export function expectedName(s: Schema): string {
  switch (s.kind) {
    case "literal":
      return JSON.stringify(s.value);
    case "enum":
      return s.values.map((v) => JSON.stringify(v)).join(" | ");
    case "record":
    case "union":
      return "object";
    case "any":
      return "JSON value";
    case "optional":
      return expectedName(s.inner as Schema);
    case "nullable":
      return `${expectedName(s.inner as Schema)} | null`;
    default:
      return s.kind;
  }
}

function mismatch(w: Walk, expected: string, v: unknown): false {
  report(w, (path) => typeMismatch(expected, path, v));
  return false;
}

function tooDeep(w: Walk): false {
  report(w, () => null);
  return false;
}

/**
 * Whether `v`, at `depth`, matches `s`; with `w.issues`, records why not. `label` names the
 * expected type of a mismatch at this level (a nullable's `T | null`).
 */
export function check(s: Schema, v: unknown, depth: number, w: Walk, label?: string): boolean {
  switch (s.kind) {
    case "string":
      if (typeof v !== "string") return mismatch(w, label ?? "string", v);
      return stringRules(s, v, w);
    case "number":
      if (typeof v !== "number" || !Number.isFinite(v)) return mismatch(w, label ?? "number", v);
      return numberRules(s, v, w);
    case "integer":
      if (!Number.isSafeInteger(v)) return mismatch(w, label ?? "integer", v);
      return numberRules(s, v as number, w);
    case "boolean":
      return typeof v === "boolean" || mismatch(w, label ?? "boolean", v);
    case "null":
      return v === null || mismatch(w, label ?? "null", v);
    case "literal":
      return v === s.value || mismatch(w, label ?? expectedName(s), v);
    case "enum":
      return s.values.includes(v as string) || mismatch(w, label ?? expectedName(s), v);
    case "any":
      return walkJson(v, depth, w);
    case "optional":
      return v === undefined || check(s.inner as Schema, v, depth, w, label);
    case "nullable":
      return v === null || check(s.inner as Schema, v, depth, w, label ?? expectedName(s));
    case "array":
      return checkArray(s, v, depth, w, label);
    case "record": {
      if (!isObject(v)) return mismatch(w, label ?? "object", v);
      if (depth > MAX_DEPTH) return tooDeep(w);
      let ok = true, n = 0;
      for (const key in v) {
        if (!Object.hasOwn(v, key)) continue;
        n++;
        if (w.issues === undefined) {
          if (!check(s.value as Schema, v[key], depth + 1, w)) return false;
          continue;
        }
        w.path.push(key);
        const fits = check(s.value as Schema, v[key], depth + 1, w);
        w.path.pop();
        if (!fits && (ok = false, stopped(w))) return false;
      }
      return maxProperties(s.maxProperties, n, w) && ok;
    }
    case "object":
      return checkObject(s.shape, s.unknownKeys, s.maxProperties, v, depth, w, label);
    case "union": {
      if (!isObject(v)) return mismatch(w, label ?? "object", v);
      const key = s.discriminator;
      const tag = member(v, key);
      if (tag === undefined) {
        report(w, (path) => missingField(key, path.slice(0, -1)), key);
        return false;
      }
      const variant = s.variants.find((variant) => tagOf(variant as Schema, key) === tag);
      if (variant === undefined) {
        const expected = s.variants.map((x) => JSON.stringify(tagOf(x as Schema, key))).join(" | ");
        report(w, (path) => typeMismatch(expected, path, tag), key);
        return false;
      }
      return check(variant as Schema, v, depth, w);
    }
  }
}

// Whether the walk recorded as many issues as it may (always, when it records none).
function stopped(w: Walk): boolean {
  return w.issues === undefined || w.issues.length >= w.max;
}

function checkArray(
  s: ArraySchema<BaseSchema>,
  v: unknown,
  depth: number,
  w: Walk,
  label?: string,
): boolean {
  if (!Array.isArray(v)) return mismatch(w, label ?? "array", v);
  if (depth > MAX_DEPTH) return tooDeep(w);
  const n = v.length;
  if (s.minItems !== undefined && n < s.minItems) {
    return rule(w, "minItems", s.minItems, `must have at least ${items(s.minItems)}, got ${n}`);
  }
  if (s.maxItems !== undefined && n > s.maxItems) {
    return rule(w, "maxItems", s.maxItems, `must have at most ${items(s.maxItems)}, got ${n}`);
  }
  let ok = true;
  const item = s.item as Schema;
  for (let i = 0; i < n; i++) {
    if (w.issues === undefined) {
      if (!check(item, v[i], depth + 1, w)) return false;
      continue;
    }
    w.path.push(i);
    const fits = check(item, v[i], depth + 1, w);
    w.path.pop();
    if (!fits && (ok = false, stopped(w))) return false;
  }
  if (ok && s.uniqueItems === true) {
    const i = repeated(v);
    if (i >= 0) return rule(w, "uniqueItems", true, `must have unique items, [${i}] repeats one`);
  }
  return ok;
}

function checkObject(
  shape: Shape,
  unknownKeys: string,
  max: number | undefined,
  v: unknown,
  depth: number,
  w: Walk,
  label?: string,
): boolean {
  if (!isObject(v)) return mismatch(w, label ?? "object", v);
  if (depth > MAX_DEPTH) return tooDeep(w);
  let ok = true, known = 0;
  for (const key in shape) {
    const field = shape[key] as Schema;
    const x = member(v, key);
    if (x !== undefined) known++;
    if (x === undefined) {
      if (field.kind === "optional") continue;
      if (report(w, (path) => missingField(key, path.slice(0, -1)), key)) return false;
      ok = false;
      continue;
    }
    if (w.issues === undefined) {
      if (!check(field, x, depth + 1, w)) return false;
      continue;
    }
    w.path.push(key);
    const fits = check(field, x, depth + 1, w);
    w.path.pop();
    if (!fits && (ok = false, stopped(w))) return false;
  }
  // encoding writes the known members only, and checks their count
  if (!w.strict) return maxProperties(max, known, w) && ok;
  if (unknownKeys !== "reject" && max === undefined) return ok;
  let n = 0;
  for (const key in v) {
    if (!Object.hasOwn(v, key)) continue;
    n++;
    if (unknownKeys === "reject" && !Object.hasOwn(shape, key)) {
      if (report(w, unexpectedField, key)) return false;
      ok = false;
    }
  }
  return maxProperties(max, n, w) && ok;
}

function maxProperties(max: number | undefined, n: number, w: Walk): boolean {
  if (max === undefined || n <= max) return true;
  return rule(w, "maxProperties", max, `must have at most ${max} members, got ${n}`);
}

function rule(w: Walk, name: string, limit: number | string | boolean, detail: string): false {
  report(w, (path) => constraintViolation(name, limit, path, detail));
  return false;
}

const characters = (n: number) => n === 1 ? "1 character" : `${n} characters`;
const items = (n: number) => n === 1 ? "1 item" : `${n} items`;

function stringRules(s: StringConstraints, v: string, w: Walk): boolean {
  const { minLength, maxLength, pattern, format } = s;
  if (minLength !== undefined || maxLength !== undefined) {
    const n = codePoints(v);
    if (minLength !== undefined && n < minLength) {
      return rule(w, "minLength", minLength, `must be at least ${characters(minLength)}, got ${n}`);
    }
    if (maxLength !== undefined && n > maxLength) {
      return rule(w, "maxLength", maxLength, `must be at most ${characters(maxLength)}, got ${n}`);
    }
  }
  if (pattern !== undefined && !pattern.test(v)) {
    return rule(w, "pattern", pattern.source, `must match ${pattern}`);
  }
  if (format !== undefined && !FORMAT_CHECKS[format](v)) {
    return rule(w, "format", format, `must be ${FORMAT_NAMES[format]}`);
  }
  return true;
}

function numberRules(s: NumberConstraints, v: number, w: Walk): boolean {
  const { minimum, maximum, exclusiveMinimum, exclusiveMaximum, multipleOf } = s;
  if (minimum !== undefined && v < minimum) {
    return rule(w, "minimum", minimum, `must be at least ${minimum}, got ${v}`);
  }
  if (maximum !== undefined && v > maximum) {
    return rule(w, "maximum", maximum, `must be at most ${maximum}, got ${v}`);
  }
  if (exclusiveMinimum !== undefined && v <= exclusiveMinimum) {
    const detail = `must be more than ${exclusiveMinimum}, got ${v}`;
    return rule(w, "exclusiveMinimum", exclusiveMinimum, detail);
  }
  if (exclusiveMaximum !== undefined && v >= exclusiveMaximum) {
    const detail = `must be less than ${exclusiveMaximum}, got ${v}`;
    return rule(w, "exclusiveMaximum", exclusiveMaximum, detail);
  }
  if (multipleOf !== undefined && !Number.isInteger(v / multipleOf)) {
    return rule(w, "multipleOf", multipleOf, `must be a multiple of ${multipleOf}, got ${v}`);
  }
  return true;
}

function walkJson(v: unknown, depth: number, w: Walk): boolean {
  switch (typeof v) {
    case "string":
    case "boolean":
      return true;
    case "number":
      return Number.isFinite(v) || mismatch(w, "finite number", v);
    case "object": {
      if (v === null) return true;
      if (depth > MAX_DEPTH) return tooDeep(w);
      let ok = true;
      if (Array.isArray(v)) {
        for (let i = 0; i < v.length; i++) {
          w.path.push(i);
          const fits = walkJson(v[i], depth + 1, w);
          w.path.pop();
          if (!fits && (ok = false, stopped(w))) return false;
        }
        return ok;
      }
      const o = v as Record<string, unknown>;
      for (const key in o) {
        if (!Object.hasOwn(o, key)) continue;
        w.path.push(key);
        const fits = walkJson(o[key], depth + 1, w);
        w.path.pop();
        if (!fits && (ok = false, stopped(w))) return false;
      }
      return ok;
    }
    default:
      return mismatch(w, "JSON value", v);
  }
}

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
      return check(s, v, 1, LOOSE) ? v : FAIL;
  }
}

function countFits(s: ArrayConstraints, n: number): boolean {
  return !(n < (s.minItems ?? 0) || n > (s.maxItems ?? Infinity));
}
