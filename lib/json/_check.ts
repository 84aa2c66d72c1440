// The reference checker: the one statement of the rules of validation. Each schema node is
// compiled once, on first use, into a closure specialised for its kind and constraints (no
// code generation, so it runs where eval is forbidden), which walks a value. Without an issue
// list a walk answers true or false (the check used where code generation is forbidden); with
// one it records every issue with its path, up to a cap (what explains a failure). The
// generated checks (codegen.ts) must answer as it does, and tests hold them to it.
import type {
  ArraySchema,
  LiteralSchema,
  LiteralValue,
  NumberConstraints,
  ObjectSchema,
  RecordSchema,
  Schema as BaseSchema,
  SchemaNode as Schema,
  Shape,
  StringConstraints,
  UnionSchema,
  VariantSchema,
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

/** A check: whether `value`, nested at `depth` (the root is 1), matches. */
export type Check = (value: unknown, depth: number) => boolean;

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

// A member of `o`: own members only for names Object.prototype has (as the generated code
// reads them).
export function member(o: Record<string, unknown>, key: string): unknown {
  return inherited(key) && !Object.hasOwn(o, key) ? undefined : o[key];
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

// How many values that toJSON() returned canonical() keeps open, one inside another.
const MAX_MADE = 10_000;
// On canonical()'s stack: the next entry is text to write, not a value.
const TEXT = /* @__PURE__ */ Symbol("text");
// On canonical()'s stack: the next entry is an array or object whose text is now written.
const DONE = /* @__PURE__ */ Symbol("done");

// What JSON.stringify writes for `v`, a member `key` or an item at index `key`: what its
// toJSON() returns, if it has one; the value of a boxed primitive (new Number(1) is 1);
// `undefined` for what it leaves out (undefined, a function, a symbol); null for a number that
// is not finite. A decoded value is itself.
function written(v: unknown, key: string): unknown {
  if (typeof v === "object" && v !== null) {
    const toJSON = (v as { toJSON?: unknown }).toJSON;
    if (typeof toJSON === "function") v = toJSON.call(v, key);
    if (v instanceof Number) v = Number(v);
    else if (v instanceof String) v = String(v);
    else if (v instanceof Boolean) v = v.valueOf();
  }
  switch (typeof v) {
    case "undefined":
    case "function":
    case "symbol":
      return undefined;
    case "number":
      return v - v === 0 ? v : null;
    default:
      return v;
  }
}

// A text equal for equal JSON values (members sorted by name; numbers as JSON writes them),
// of an array or object as JSON.stringify writes it (json.encode compares the items it writes).
// It keeps its own stack: an item's members the schema does not name are never checked, so
// JSON.parse may nest them as deep as the body allows (a recursive walk overflowed the call
// stack on 20,000 levels, a RangeError out of json.decode), and a value that is not JSON may
// contain itself (a TypeError, as JSON.stringify throws). A toJSON() may return a new object at
// every call, whose members have a toJSON() too (a tree whose nodes write their parent): such
// values nest without end, where JSON.stringify overflows its stack before 10,000 levels on
// either runtime; past that many open, they are a TypeError too (not a walk until memory ends).
function canonical(root: object): string {
  let out = "";
  const todo: unknown[] = [root];
  const open = new Set<object>();
  // the objects toJSON() returned, and how many of them are open
  const made = new Set<object>();
  let nested = 0;
  const item = (x: unknown, key: string): unknown => {
    const y = written(x, key);
    if (y !== x && typeof y === "object" && y !== null) made.add(y);
    return y;
  };
  while (todo.length > 0) {
    const v = todo.pop();
    if (v === TEXT) out += todo.pop() as string;
    else if (v === DONE) {
      const o = todo.pop() as object;
      open.delete(o);
      if (made.has(o)) nested--;
    } else if (typeof v === "object" && v !== null) {
      if (open.has(v)) throw new TypeError("Cannot compare items: an item contains itself");
      if (made.has(v) && ++nested > MAX_MADE) {
        throw new TypeError(
          `Cannot compare items: toJSON() nests values more than ${MAX_MADE} levels deep`,
        );
      }
      open.add(v);
      todo.push(v, DONE);
      if (Array.isArray(v)) {
        out += "[";
        todo.push("]", TEXT);
        for (let i = v.length - 1; i >= 0; i--) {
          todo.push(item(v[i], String(i)) ?? null);
          if (i > 0) todo.push(",", TEXT);
        }
      } else {
        const o = v as Record<string, unknown>;
        const keys = Object.keys(o).sort();
        const values = keys.map((key) => item(o[key], key));
        const first = values.findIndex((x) => x !== undefined);
        out += "{";
        todo.push("}", TEXT);
        for (let i = keys.length - 1; i >= 0; i--) {
          if (values[i] === undefined) continue;
          todo.push(values[i], `${i > first ? "," : ""}${JSON.stringify(keys[i])}:`, TEXT);
        }
      }
    } else {
      out += typeof v === "number" ? String(v === 0 ? 0 : v) : JSON.stringify(v);
    }
  }
  return out;
}

/** The index of the first item equal (as JSON writes it) to an earlier one, or -1. */
export function repeated(items: readonly unknown[]): number {
  const seen = new Set<unknown>();
  for (let i = 0; i < items.length; i++) {
    let x = items[i];
    // a string, a finite number or a boolean is its own key (1 and 1.0 are one number); what
    // JSON leaves out of an array is written null
    if (
      typeof x !== "string" && typeof x !== "boolean" && !(typeof x === "number" && x - x === 0)
    ) {
      x = written(x, String(i)) ?? null;
    }
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

/** A compiled node: whether `v`, nested at `depth`, matches; with `w.issues`, records why not. */
type Node = (v: unknown, depth: number, w: Walk) => boolean;

const NODES = new WeakMap<Schema, Node>();

// The compiled node of `s`, made once. `label` names the expected type of a mismatch at this
// level (a nullable's `T | null`); such a node is made for its nullable alone.
function nodeOf(s: Schema, label?: string): Node {
  if (label !== undefined) return compile(s, label);
  let node = NODES.get(s);
  if (node === undefined) NODES.set(s, node = compile(s, undefined));
  return node;
}

/**
 * Whether `v`, at `depth`, matches `s`; with `w.issues`, records why not. `label` names the
 * expected type of a mismatch at this level (a nullable's `T | null`).
 */
export function check(s: Schema, v: unknown, depth: number, w: Walk, label?: string): boolean {
  return nodeOf(s, label)(v, depth, w);
}

/** The check of `s` that answers without naming failures (compiled once). */
export function checker(s: Schema): Check {
  const node = nodeOf(s);
  return (v, depth) => node(v, depth, PURE);
}

// Leaves without constraints, as small codes: a container tests such a member or item with
// fits() inline instead of calling its node (NULLABLE added: or null). Nodes test with fits()
// too, so the rule is written once.
const STRING = 1, NUMBER = 2, INTEGER = 3, BOOLEAN = 4, NULLABLE = 8;

function fits(code: number, v: unknown): boolean {
  switch (code) {
    case STRING:
      return typeof v === "string";
    case NUMBER:
      return typeof v === "number" && v - v === 0;
    case INTEGER:
      return Number.isSafeInteger(v);
    case BOOLEAN:
      return typeof v === "boolean";
    default:
      return v === null || fits(code - NULLABLE, v);
  }
}

// The code of a leaf without constraints, else 0.
function leaf(s: Schema): number {
  switch (s.kind) {
    case "string":
      return stringRules(s) === undefined ? STRING : 0;
    case "number":
      return numberRules(s) === undefined ? NUMBER : 0;
    case "integer":
      return numberRules(s) === undefined ? INTEGER : 0;
    case "boolean":
      return BOOLEAN;
    case "nullable": {
      const code = leaf(s.inner as Schema);
      return code === 0 || code >= NULLABLE ? 0 : code + NULLABLE;
    }
    default:
      return 0;
  }
}

function compile(s: Schema, label: string | undefined): Node {
  switch (s.kind) {
    case "string": {
      const expected = label ?? "string";
      const rules = stringRules(s);
      if (rules === undefined) return (v, _, w) => fits(STRING, v) || mismatch(w, expected, v);
      return (v, _, w) => fits(STRING, v) ? rules(v as string, w) : mismatch(w, expected, v);
    }
    case "number": {
      const expected = label ?? "number";
      const rules = numberRules(s);
      if (rules === undefined) return (v, _, w) => fits(NUMBER, v) || mismatch(w, expected, v);
      return (v, _, w) => fits(NUMBER, v) ? rules(v as number, w) : mismatch(w, expected, v);
    }
    case "integer": {
      const expected = label ?? "integer";
      const rules = numberRules(s);
      if (rules === undefined) return (v, _, w) => fits(INTEGER, v) || mismatch(w, expected, v);
      return (v, _, w) => fits(INTEGER, v) ? rules(v as number, w) : mismatch(w, expected, v);
    }
    case "boolean": {
      const expected = label ?? "boolean";
      return (v, _, w) => fits(BOOLEAN, v) || mismatch(w, expected, v);
    }
    case "null": {
      const expected = label ?? "null";
      return (v, _, w) => v === null || mismatch(w, expected, v);
    }
    case "literal": {
      const expected = label ?? expectedName(s), value = s.value;
      return (v, _, w) => v === value || mismatch(w, expected, v);
    }
    case "enum": {
      const expected = label ?? expectedName(s), values = new Set<unknown>(s.values);
      return (v, _, w) => values.has(v) || mismatch(w, expected, v);
    }
    case "any":
      return walkJson;
    case "optional": {
      const inner = nodeOf(s.inner as Schema, label);
      return (v, depth, w) => v === undefined || inner(v, depth, w);
    }
    case "nullable": {
      const inner = nodeOf(s.inner as Schema, label ?? expectedName(s));
      return (v, depth, w) => v === null || inner(v, depth, w);
    }
    case "array":
      return arrayNode(s, label ?? "array");
    case "record":
      return recordNode(s, label ?? "object");
    case "object":
      return objectNode(s, label ?? "object");
    case "union":
      return unionNode(s, label ?? "object");
  }
}

// Whether the walk recorded as many issues as it may (always, when it records none).
function stopped(w: Walk): boolean {
  return w.issues === undefined || w.issues.length >= w.max;
}

// Whether `x` fits `node`, walked at `key` of the walk's path (for a walk that records issues).
function at(node: Node, x: unknown, key: PathKey, depth: number, w: Walk): boolean {
  w.path.push(key);
  const fits = node(x, depth, w);
  w.path.pop();
  return fits;
}

function arrayNode(s: ArraySchema<BaseSchema>, expected: string): Node {
  const { minItems, maxItems, uniqueItems } = s;
  const item = nodeOf(s.item as Schema), code = leaf(s.item as Schema);
  return (v, depth, w) => {
    if (!Array.isArray(v)) return mismatch(w, expected, v);
    if (depth > MAX_DEPTH) return tooDeep(w);
    const n = v.length;
    if (minItems !== undefined && n < minItems) {
      return rule(w, "minItems", minItems, `must have at least ${items(minItems)}, got ${n}`);
    }
    if (maxItems !== undefined && n > maxItems) {
      return rule(w, "maxItems", maxItems, `must have at most ${items(maxItems)}, got ${n}`);
    }
    if (w.issues === undefined) {
      if (code !== 0) { for (let i = 0; i < n; i++) if (!fits(code, v[i])) return false; }
      else for (let i = 0; i < n; i++) if (!item(v[i], depth + 1, w)) return false;
    } else {
      let ok = true;
      for (let i = 0; i < n; i++) {
        if (!at(item, v[i], i, depth + 1, w) && (ok = false, stopped(w))) return false;
      }
      if (!ok) return false;
    }
    if (uniqueItems === true) {
      const i = repeated(v);
      if (i >= 0) return rule(w, "uniqueItems", true, `must have unique items, [${i}] repeats one`);
    }
    return true;
  };
}

function recordNode(s: RecordSchema<BaseSchema>, expected: string): Node {
  const value = nodeOf(s.value as Schema), code = leaf(s.value as Schema);
  const max = s.maxProperties;
  return (v, depth, w) => {
    if (!isObject(v)) return mismatch(w, expected, v);
    if (depth > MAX_DEPTH) return tooDeep(w);
    if (w.issues === undefined && max === undefined) {
      for (const key in v) {
        const x = v[key];
        // own members only; JSON.parse makes no others, so ask only when the value fails
        if (!(code !== 0 ? fits(code, x) : value(x, depth + 1, w)) && Object.hasOwn(v, key)) {
          return false;
        }
      }
      return true;
    }
    let ok = true, n = 0;
    for (const key in v) {
      if (!Object.hasOwn(v, key)) continue;
      n++;
      if (w.issues === undefined) {
        if (code !== 0 ? !fits(code, v[key]) : !value(v[key], depth + 1, w)) return false;
      } else if (!at(value, v[key], key, depth + 1, w) && (ok = false, stopped(w))) return false;
    }
    return maxProperties(max, n, w) && ok;
  };
}

function objectNode(s: ObjectSchema<Shape>, expected: string): Node {
  const keys = Object.keys(s.shape);
  const fields = keys.map((key) => nodeOf(s.shape[key] as Schema));
  const optional = keys.map((key) => (s.shape[key] as Schema).kind === "optional");
  // a member present is tested as its schema, or an optional one's inner schema
  const codes = keys.map((key) => {
    const field = s.shape[key] as Schema;
    return leaf(field.kind === "optional" ? field.inner as Schema : field);
  });
  const own = keys.map(inherited);
  const reject = s.unknownKeys === "reject", max = s.maxProperties;
  const index = new Map(keys.map((key, i) => [key, i]));
  // Whether the member `i`, of value `x`, fits; for the pure walk.
  const fitsAt = (i: number, x: unknown, depth: number, w: Walk) => {
    const code = codes[i];
    if (x === undefined) return optional[i];
    return code !== 0 ? fits(code, x) : fields[i](x, depth + 1, w);
  };
  // Whether the members from `j` to before `end` are optional and absent.
  const absent = (v: Record<string, unknown>, j: number, end: number) => {
    for (; j < end; j++) if (!optional[j] || v[keys[j]] !== undefined) return false;
    return true;
  };
  // The pure walk of a value whose members come in shape order (as JSON written from the same
  // type has them): read as for-in enumerates them, without a lookup by name. `undefined`
  // when they come otherwise (or may be inherited), for the walk by name to answer.
  const inOrder = own.includes(true)
    ? undefined
    : (v: Record<string, unknown>, depth: number, w: Walk): boolean | undefined => {
      let j = 0, n = 0;
      for (const k in v) {
        n++;
        if (j < keys.length && k === keys[j]) {
          if (!fitsAt(j, v[k], depth, w)) return false;
          j++;
          continue;
        }
        const i = index.get(k);
        if (i === undefined) {
          if (reject) return undefined;
          continue;
        }
        if (i < j || !absent(v, j, i)) return undefined;
        if (!fitsAt(i, v[k], depth, w)) return false;
        j = i + 1;
      }
      if (!absent(v, j, keys.length) || max !== undefined && n > max) return undefined;
      return true;
    };
  return (v, depth, w) => {
    if (!isObject(v)) return mismatch(w, expected, v);
    if (depth > MAX_DEPTH) return tooDeep(w);
    if (inOrder !== undefined && w.issues === undefined && w.strict) {
      const fits = inOrder(v, depth, w);
      if (fits !== undefined) return fits;
    }
    let ok = true, known = 0;
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i];
      const x = own[i] && !Object.hasOwn(v, key) ? undefined : v[key];
      if (x === undefined) {
        if (optional[i]) continue;
        if (report(w, (path) => missingField(key, path.slice(0, -1)), key)) return false;
        ok = false;
        continue;
      }
      known++;
      if (w.issues === undefined) {
        if (!fitsAt(i, x, depth, w)) return false;
      } else if (!at(fields[i], x, key, depth + 1, w) && (ok = false, stopped(w))) return false;
    }
    // encoding writes the known members only, and checks their count
    if (!w.strict) return maxProperties(max, known, w) && ok;
    if (!reject && max === undefined) return ok;
    let n = 0;
    for (const key in v) {
      if (!Object.hasOwn(v, key)) continue;
      n++;
      if (reject && !Object.hasOwn(s.shape, key)) {
        if (report(w, unexpectedField, key)) return false;
        ok = false;
      }
    }
    return maxProperties(max, n, w) && ok;
  };
}

function unionNode(
  s: UnionSchema<string, readonly VariantSchema<string>[]>,
  expected: string,
): Node {
  const key = s.discriminator;
  const variants = new Map<unknown, Node>();
  for (const variant of s.variants) {
    variants.set(tagOf(variant as Schema, key), nodeOf(variant as Schema));
  }
  const tags = s.variants.map((x) => JSON.stringify(tagOf(x as Schema, key))).join(" | ");
  return (v, depth, w) => {
    if (!isObject(v)) return mismatch(w, expected, v);
    const tag = member(v, key);
    if (tag === undefined) {
      report(w, (path) => missingField(key, path.slice(0, -1)), key);
      return false;
    }
    const variant = variants.get(tag);
    if (variant === undefined) {
      report(w, (path) => typeMismatch(tags, path, tag), key);
      return false;
    }
    return variant(v, depth, w);
  };
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

// The constraints of a string as one closure, or undefined when it has none.
function stringRules(s: StringConstraints): ((v: string, w: Walk) => boolean) | undefined {
  const { minLength, maxLength, pattern, format } = s;
  if (
    minLength === undefined && maxLength === undefined && pattern === undefined &&
    format === undefined
  ) return undefined;
  const formatted = format === undefined ? undefined : FORMAT_CHECKS[format];
  return (v, w) => {
    // UTF-16 units bound code points: n/2 ≤ code points ≤ n
    if (minLength !== undefined && v.length < 2 * minLength) {
      const n = codePoints(v);
      if (n < minLength) {
        return rule(
          w,
          "minLength",
          minLength,
          `must be at least ${characters(minLength)}, got ${n}`,
        );
      }
    }
    if (maxLength !== undefined && v.length > maxLength) {
      const n = codePoints(v);
      if (n > maxLength) {
        return rule(
          w,
          "maxLength",
          maxLength,
          `must be at most ${characters(maxLength)}, got ${n}`,
        );
      }
    }
    if (pattern !== undefined && !pattern.test(v)) {
      return rule(w, "pattern", pattern.source, `must match ${pattern}`);
    }
    if (formatted !== undefined && !formatted(v)) {
      return rule(w, "format", format!, `must be ${FORMAT_NAMES[format!]}`);
    }
    return true;
  };
}

// The constraints of a number as one closure, or undefined when it has none.
function numberRules(s: NumberConstraints): ((v: number, w: Walk) => boolean) | undefined {
  const { minimum, maximum, exclusiveMinimum, exclusiveMaximum, multipleOf } = s;
  if (
    minimum === undefined && maximum === undefined && exclusiveMinimum === undefined &&
    exclusiveMaximum === undefined && multipleOf === undefined
  ) return undefined;
  return (v, w) => {
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
  };
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
