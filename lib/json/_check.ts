// The compiled form of a schema, built once per schema (cached in a WeakMap; no eval, no new
// Function): a check, the fast pass of validation, which answers true or false without
// allocating (only when it answers false does the slow pass, _explain.ts, walk the schema
// again to name the first failure and its path, in the same order); and a projection, which
// reduces a value to the schema's members for json.encode. Objects take a generic path until
// the schema given to json.decode or json.encode is hot; then its tree is built again, with
// the per-schema copies of _shapes.ts while they last.
import type { LiteralSchema, LiteralValue, SchemaNode as Schema, Shape } from "./schema.ts";
import {
  type Check,
  copiesLeft,
  FAIL,
  isObject,
  MAX_DEPTH,
  type Pair,
  type Project,
  shape,
  SLOTS,
} from "./_shapes.ts";

export { type Check, FAIL, isObject, MAX_DEPTH, type Project };

// Imported bindings are read through a cell on every use; module constants are folded into
// the compiled code (comparing with an imported symbol is several times slower).
const fail = FAIL;
const maxDepth = MAX_DEPTH;
// Pairs are cached per schema; a hot schema's tree is built again, with its own copies, in a
// cache of its own.
interface Cache {
  get(schema: Schema): Pair | undefined;
  set(schema: Schema, pair: Pair): unknown;
}
const pairs: Cache = new WeakMap<Schema, Pair>();

// A hot tree is built for the root at depth 1, and its object copies pass their members the
// depth they sit at, a constant of the copy. So a hot pair serves another place of its schema
// only where nothing in it depends on the depth (no `any` below, and no level beyond the
// limit); elsewhere it serves its own depth.
function pairOf(schema: Schema, cache: Cache, depth: number): Pair {
  const at = cache === pairs || depth + height(schema) <= maxDepth + 1
    ? cache
    : levelOf(cache, depth);
  let pair = at.get(schema);
  if (pair === undefined) {
    pair = build(schema, cache, depth);
    at.set(schema, pair);
  }
  return pair;
}

const levels = new WeakMap<Cache, Cache[]>();

// The part of a hot tree's cache for the pairs that serve one depth only.
function levelOf(cache: Cache, depth: number): Cache {
  let all = levels.get(cache);
  if (all === undefined) levels.set(cache, all = []);
  return all[depth] ??= new Map();
}

const heights = new WeakMap<Schema, number>();

/** The levels of arrays and objects a schema can walk, Infinity under `any`. */
export function height(s: Schema): number {
  let h = heights.get(s);
  if (h === undefined) {
    const of = (inner: unknown) => height(inner as Schema);
    switch (s.kind) {
      case "any":
        h = Infinity;
        break;
      case "optional":
      case "nullable":
        h = of(s.inner);
        break;
      case "array":
        h = 1 + of(s.item);
        break;
      case "record":
        h = 1 + of(s.value);
        break;
      case "object":
        h = 1 + Object.values(s.shape).reduce((max: number, m) => Math.max(max, of(m)), 0);
        break;
      case "union":
        h = s.variants.reduce((max: number, v) => Math.max(max, of(v)), 0);
        break;
      default:
        h = 0;
    }
    heights.set(s, h);
  }
  return h;
}

/** A schema as json.decode, json.encode and `~standard.validate` use it. */
export interface Root {
  check: Check;
  project: Project;
  uses: number;
  /** The check generated ahead of time, when there is one (see precompiled.ts). */
  ahead?: Check;
}

/** After this many uses a schema's objects get copies of their own (see _shapes.ts). */
const HOT = 64;
const roots = new WeakMap<Schema, Root>();

/** The root of a schema compiled already, counting this use; `undefined` for any other. */
export function compiled(schema: object): Root | undefined {
  const root = roots.get(schema as Schema);
  if (root !== undefined && root.uses < HOT && ++root.uses === HOT) {
    const pair = pairOf(schema as Schema, new Map(), 1);
    root.check = root.ahead ?? pair[0];
    root.project = projector(pair);
  }
  return root;
}

/**
 * A lookup of compiled roots, for json.decode and json.encode: the root of a schema compiled
 * already (see {@linkcode compiled}), else of one that `isWeft` accepts, compiled now, else
 * `undefined`. It remembers the last hot schema and finds it again without a WeakMap lookup: a
 * server decodes and encodes most of its bodies with a few schemas. Each caller makes its own,
 * so that json.decode and json.encode, which a request handler often calls in turn with
 * different schemas, do not evict each other's. (`isWeft` is given, not imported: schema.ts
 * depends on this module.)
 */
export function rootFinder(
  isWeft: (schema: object) => schema is Schema,
): (schema: object) => Root | undefined {
  let lastSchema: object | undefined;
  let lastRoot: Root | undefined;
  return (schema) => {
    if (schema === lastSchema) return lastRoot;
    const root = compiled(schema) ?? (isWeft(schema) ? compile(schema) : undefined);
    if (root !== undefined && root.uses >= HOT) lastSchema = schema, lastRoot = root;
    return root;
  };
}

/** Compiles a schema (once) and returns its root, counting this use. */
export function compile(schema: Schema): Root {
  let root = compiled(schema);
  if (root === undefined) {
    const pair = pairOf(schema, pairs, 1);
    root = { check: pair[0], project: projector(pair), uses: 1 };
    roots.set(schema, root);
  }
  return root;
}

/**
 * Makes `check`, generated ahead of time for a value at the root, the check of a schema's root
 * from now on. Roots are checked at another depth only by _explain.ts, and only those of leaves
 * (strings, numbers, literals…), whose answer does not depend on the depth.
 */
export function install(schema: Schema, check: Check): void {
  const root = compile(schema);
  root.check = root.ahead = check;
}

// The projection of schemas whose valid values are written as they are: the value itself,
// once the check passed. Object copies call the check and store the value inline; other
// callers go through projector().
const same: Project = (v) => v;

function projector([check, project]: Pair): Project {
  return project === same ? (v) => check(v, 1) ? v : fail : project;
}

/**
 * Whether `v` is a JSON value (finite numbers, plain data) nested no deeper than the limit when
 * it sits at `depth` (the root is 1): the check of `schema.any()`.
 */
export function isJson(v: unknown, depth: number): boolean {
  switch (typeof v) {
    case "string":
    case "boolean":
      return true;
    case "number":
      return v - v === 0; // finite: Infinity - Infinity and NaN are NaN
    case "object": {
      if (v === null) return true;
      if (depth > maxDepth) return false;
      if (Array.isArray(v)) {
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

export function tagOf(shape: Shape, key: string): LiteralValue {
  return (shape[key] as LiteralSchema<LiteralValue>).value;
}

// Leaves: plain functions, so that a copy's call to one is inlined.
// Named, and INTEGER's wrapped, so that bundlers drop them with LEAVES from apps that never
// decode: a top-level `Number.isSafeInteger` or `STRING[0]` reads a property, which a bundler
// must keep.
const isString: Check = (v) => typeof v === "string";
const isNumber: Check = (v) => typeof v === "number" && v - v === 0;
const isInteger: Check = (v) => Number.isSafeInteger(v);
const isBoolean: Check = (v) => typeof v === "boolean";
const STRING: Pair = [isString, same];
const NUMBER: Pair = [isNumber, same];
const INTEGER: Pair = [isInteger, same];
const BOOLEAN: Pair = [isBoolean, same];
const NULL: Pair = [(v) => v === null, same];
// `any` values are written as JSON.stringify writes them; absent is not a value.
const ANY: Pair = [isJson, (v) => v === undefined ? fail : v];

// Nullable and optional leaves, each test a function literal of its own: the wrappers of build()
// are one literal for every inner schema, so their call of the inner check is not inlined.
const OR_NULL: Readonly<Partial<Record<Schema["kind"], Check>>> = {
  string: (v) => v === null || typeof v === "string",
  number: (v) => v === null || (typeof v === "number" && v - v === 0),
  integer: (v) => v === null || Number.isSafeInteger(v),
  boolean: (v) => v === null || typeof v === "boolean",
};
const OR_ABSENT: Readonly<Partial<Record<Schema["kind"], Check>>> = {
  string: (v) => v === undefined || typeof v === "string",
  number: (v) => v === undefined || (typeof v === "number" && v - v === 0),
  integer: (v) => v === undefined || Number.isSafeInteger(v),
  boolean: (v) => v === undefined || typeof v === "boolean",
};

// Up to eight values are compared one by one (a repeated last one costs nothing; a call to
// Array.prototype.includes costs more than eight comparisons), more by includes (no enum holds
// NaN, the one value where it differs from ===).
function oneOf(values: readonly unknown[]): Pair {
  if (values.length > 8) return [(v) => values.includes(v), same];
  const [a, b = a, c = b, d = c, e = d, f = e, g = f, h = g] = values;
  return [
    (v) => v === a || v === b || v === c || v === d || v === e || v === f || v === g || v === h,
    same,
  ];
}

function build(s: Schema, cache: Cache, depth: number): Pair {
  switch (s.kind) {
    case "string":
      return STRING;
    case "number":
      return NUMBER;
    case "integer":
      return INTEGER;
    case "boolean":
      return BOOLEAN;
    case "null":
      return NULL;
    case "any":
      return ANY;
    case "literal":
      return oneOf([s.value]);
    case "enum":
      return oneOf(s.values);
    case "optional": {
      const inner = pairOf(s.inner as Schema, cache, depth);
      const check = inner[0], project = projector(inner);
      // only object members may be absent (buildObject lets them)
      return [
        OR_ABSENT[(s.inner as Schema).kind] ?? ((v, depth) => v === undefined || check(v, depth)),
        (v) => v === undefined ? fail : project(v),
      ];
    }
    case "nullable": {
      const [check, project] = pairOf(s.inner as Schema, cache, depth);
      return [
        OR_NULL[(s.inner as Schema).kind] ?? ((v, depth) => v === null || check(v, depth)),
        project === same ? same : (v) => v === null ? v : project(v),
      ];
    }
    case "array":
      return buildArray(s.item as Schema, cache, depth);
    case "record":
      return buildRecord(s.value as Schema, cache, depth);
    case "object":
      return buildObject(s.shape, s.unknownKeys === "reject", cache, depth);
    case "union":
      return buildUnion(s.discriminator, s.variants as readonly Schema[], cache, depth);
  }
}

// Arrays of leaves, each loop a function literal of its own (the generic loop of buildArray
// calls its item check through a site that every array schema shares).
const ARRAY_OF: Readonly<Partial<Record<Schema["kind"], Check>>> = {
  string(v, depth) {
    if (!Array.isArray(v) || depth > maxDepth) return false;
    for (let i = 0; i < v.length; i++) if (typeof v[i] !== "string") return false;
    return true;
  },
  number(v, depth) {
    if (!Array.isArray(v) || depth > maxDepth) return false;
    for (let i = 0; i < v.length; i++) {
      const x = v[i];
      if (typeof x !== "number" || x - x !== 0) return false;
    }
    return true;
  },
  integer(v, depth) {
    if (!Array.isArray(v) || depth > maxDepth) return false;
    for (let i = 0; i < v.length; i++) if (!Number.isSafeInteger(v[i])) return false;
    return true;
  },
  boolean(v, depth) {
    if (!Array.isArray(v) || depth > maxDepth) return false;
    for (let i = 0; i < v.length; i++) if (typeof v[i] !== "boolean") return false;
    return true;
  },
};

function buildArray(itemSchema: Schema, cache: Cache, depth: number): Pair {
  const leaves = ARRAY_OF[itemSchema.kind];
  if (leaves !== undefined) return [leaves, same];
  const [item, itemProject] = pairOf(itemSchema, cache, depth + 1);
  const checkArray: Check = (v, depth) => {
    if (!Array.isArray(v) || depth > maxDepth) return false;
    for (let i = 0; i < v.length; i++) if (!item(v[i], depth + 1)) return false;
    return true;
  };
  if (itemProject === same) return [checkArray, same];
  return [checkArray, function projectArray(v) {
    if (!Array.isArray(v)) return fail;
    let out = v;
    for (let i = 0; i < v.length; i++) {
      const x = v[i];
      const y = itemProject(x);
      if (y === fail) return fail;
      if (y !== x) {
        if (out === v) out = v.slice();
        out[i] = y;
      }
    }
    return out;
  }];
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

function buildRecord(valueSchema: Schema, cache: Cache, depth: number): Pair {
  const [value, valueProject] = pairOf(valueSchema, cache, depth + 1);
  // whether every own member of an object is valid
  const members: Check = valueSchema.kind === "string"
    ? (v) => {
      const o = v as Record<string, unknown>;
      for (const key in o) if (typeof o[key] !== "string" && Object.hasOwn(o, key)) return false;
      return true;
    }
    : (v, depth) => {
      const o = v as Record<string, unknown>;
      for (const key in o) if (!value(o[key], depth + 1) && Object.hasOwn(o, key)) return false;
      return true;
    };
  const check: Check = (v, depth) => isObject(v) && depth <= maxDepth && members(v, depth);
  // JSON.stringify writes an object member by member unless it has toJSON
  if (valueProject === same) {
    return [
      check,
      (v) => isObject(v) && typeof v.toJSON !== "function" && members(v, 1) ? v : fail,
    ];
  }
  return [check, function projectRecord(v) {
    if (!isObject(v) || typeof v.toJSON === "function") return fail;
    let out: Record<string, unknown> | undefined;
    for (const key in v) {
      const x = v[key];
      const y = valueProject(x);
      if (y === fail) return fail;
      if (y !== x) out ??= { ...v };
      if (out !== undefined) put(out, key, y);
    }
    return out ?? v;
  }];
}

function buildUnion(
  key: string,
  variants: readonly Schema[],
  cache: Cache,
  depth: number,
): Pair {
  const guarded = inherited(key);
  const tags = variants.map((variant) => tagOf((variant as { shape: Shape }).shape, key));
  const checks = variants.map((variant) => pairOf(variant, cache, depth)[0]);
  const projects = variants.map((variant) => projector(pairOf(variant, cache, depth)));
  const n = tags.length;
  // up to four variants are compared one by one (a repeated last one is never reached)
  const [t0, t1 = t0, t2 = t1, t3 = t2] = tags;
  const [c0, c1 = c0, c2 = c1, c3 = c2] = checks;
  return [
    n <= 4
      ? (v, depth) => {
        if (v == null) return false; // each variant tests for an object
        const tag = member(v as Record<string, unknown>, key, guarded);
        return tag === t0
          ? c0(v, depth)
          : tag === t1
          ? c1(v, depth)
          : tag === t2
          ? c2(v, depth)
          : tag === t3 && c3(v, depth);
      }
      : function checkUnion(v, depth) {
        if (v == null) return false; // each variant tests for an object
        const tag = member(v as Record<string, unknown>, key, guarded);
        for (let i = 0; i < n; i++) if (tag === tags[i]) return checks[i](v, depth);
        return false;
      },
    function projectUnion(v) {
      if (!isObject(v) || !Object.hasOwn(v, key)) return fail;
      const i = tags.indexOf(v[key] as LiteralValue);
      return i === -1 ? fail : projects[i](v);
    },
  ];
}

const pass: Check = () => true;
const end: Project = (_v, out) => out;
// A key no JSON object has, for the free slots of a copy when no member is a leaf.
const NO_KEY = /* @__PURE__ */ Symbol() as unknown as string;

function buildObject(shapeOf: Shape, reject: boolean, cache: Cache, depth: number): Pair {
  const keys = Object.keys(shapeOf);
  const checks: Check[] = []; // the member checks
  const tests: Check[] = []; // the checks of members written as they are, else pass
  const projects: Project[] = [];
  for (const key of keys) {
    const field = shapeOf[key] as Schema;
    const optional = field.kind === "optional";
    const [check, project] = pairOf(field, cache, depth + 1);
    // an absent optional member is written as nothing (the optional schema alone fails on it)
    const own = optional ? pairOf(field.inner as Schema, cache, depth + 1)[1] : project;
    checks.push(check);
    tests.push(own === same ? check : pass);
    projects.push(optional && own !== same ? (v) => v === undefined ? v : own(v) : own);
  }
  const rest = reject ? onlyKnown(shapeOf) : pass;
  // the tree of a hot schema (built in a cache of its own) takes copies while they last;
  // members named like Object.prototype's must be read as own ones, and an object beyond the
  // depth limit must fail, by the generic path
  return (cache !== pairs && depth <= maxDepth && !keys.some(inherited) &&
    copied(keys, checks, tests, projects, rest, depth + 1)) ||
    generic(keys, checks, tests, projects, rest);
}

// Copies of SLOTS members each, built from the last, each continuing with the next. Their loads
// by name do not depend on the members' order, and unknown members cost nothing.
function copied(
  keys: string[],
  checks: Check[],
  tests: Check[],
  projects: Project[],
  rest: Check,
  depth: number,
): Pair | undefined {
  if (keys.length === 0 || !copiesLeft(keys.length)) return undefined;
  let next: Pair = [rest, end];
  for (let at = Math.floor((keys.length - 1) / SLOTS) * SLOTS; at >= 0; at -= SLOTS) {
    const k = keys.slice(at, at + SLOTS);
    const c = checks.slice(at, at + SLOTS);
    const q = tests.slice(at, at + SLOTS);
    const p = projects.slice(at, at + SLOTS);
    // free slots repeat a member written as it is (storing the same value again)
    const leaf = p.indexOf(same);
    while (k.length < SLOTS) {
      k.push(leaf < 0 ? NO_KEY : k[leaf]);
      c.push(pass);
      q.push(pass);
      p.push(same);
    }
    next = shape(k, c, q, p, next, depth);
  }
  return next;
}

// Leaf members are tested in place on the generic path, where a call to a member's check comes
// from code that every object schema shares: V8 sees a different callee at every member there
// and inlines none of them.
const OTHER = 0, STRING_LEAF = 1, NUMBER_LEAF = 2, INTEGER_LEAF = 3, BOOLEAN_LEAF = 4;
const LEAVES: ReadonlyMap<Check, number> = new Map([
  [isString, STRING_LEAF],
  [isNumber, NUMBER_LEAF],
  [isInteger, INTEGER_LEAF],
  [isBoolean, BOOLEAN_LEAF],
]);
const leafOf = (check: Check): number => LEAVES.get(check) ?? OTHER;

function fits(leaf: number, check: Check, x: unknown, depth: number): boolean {
  switch (leaf) {
    case STRING_LEAF:
      return typeof x === "string";
    case NUMBER_LEAF:
      return typeof x === "number" && x - x === 0;
    case INTEGER_LEAF:
      return Number.isSafeInteger(x);
    case BOOLEAN_LEAF:
      return typeof x === "boolean";
    default:
      return check(x, depth);
  }
}

// The generic path: for-in reads members by enumeration index, which does not depend on the
// object's shape. Members that come in shape order (absent optional ones skipped) are checked
// in place, and a projection that finds exactly the schema's members in order returns the
// object itself; another order or an unknown member falls back to reading them by name.
function generic(
  keys: string[],
  checks: Check[],
  tests: Check[],
  projects: Project[],
  rest: Check,
): Pair {
  const n = keys.length;
  const leaves = checks.map(leafOf);
  const guarded = keys.map(inherited);
  const read = (v: Record<string, unknown>, i: number) => member(v, keys[i], guarded[i]);
  const byName = (v: Record<string, unknown>, depth: number) => {
    for (let i = 0; i < n; i++) if (!checks[i](read(v, i), depth + 1)) return false;
    return rest(v, depth);
  };
  // Copies start from an object that has every member, in shape order, so that they only store
  // into existing fields (and `out.__proto__ = x` does not set the prototype). Fields that held
  // a number before `undefined` take any value without a change of hidden class.
  const template: Record<string, unknown> = {};
  for (const key of keys) put(template, key, 0), template[key] = undefined;
  // Copies the members; those before `from` are checked and kept as they are, and `at` (when
  // not `fail`) is the projection of member `from`.
  const copy = (v: Record<string, unknown>, from = 0, at: unknown = fail) => {
    const out = { ...template };
    for (let i = 0; i < n; i++) {
      const x = read(v, i);
      const y = i < from
        ? x
        : i === from && at !== fail
        ? at
        : tests[i](x, 1)
        ? projects[i](x)
        : fail;
      if (y === fail) return fail;
      out[keys[i]] = y;
    }
    return out;
  };
  const absent = (i: number) => tests[i](undefined, 1) && projects[i](undefined) !== fail;
  return [
    function checkObject(v, depth) {
      if (!isObject(v) || depth > maxDepth) return false;
      let i = 0;
      for (const key in v) {
        for (; i < n && keys[i] !== key; i++) {
          if (!checks[i](undefined, depth + 1)) return byName(v, depth);
        }
        if (i === n) return byName(v, depth);
        const x = guarded[i] ? read(v, i) : v[key]; // v[key] reads by enumeration index
        if (!fits(leaves[i], checks[i++], x, depth + 1)) return false;
      }
      for (; i < n; i++) if (!checks[i](undefined, depth + 1)) return false;
      return rest(v, depth);
    },
    function projectObject(v) {
      if (!isObject(v)) return fail;
      // JSON.stringify would call toJSON; a copy reads the members instead
      if (typeof v.toJSON === "function") return copy(v);
      let i = 0;
      for (const key in v) {
        for (; i < n && keys[i] !== key; i++) if (!absent(i)) return copy(v);
        if (i === n) return copy(v);
        const x = guarded[i] ? read(v, i) : v[key]; // v[key] reads by enumeration index
        if (!tests[i](x, 1)) return fail;
        if (projects[i] !== same) {
          const y = projects[i](x);
          if (y !== x) return y === fail ? fail : copy(v, i, y);
        }
        i++;
      }
      for (; i < n; i++) if (!absent(i)) return copy(v);
      return v;
    },
  ];
}

function onlyKnown(shapeOf: Shape): Check {
  return (v) => {
    const o = v as Record<string, unknown>;
    for (const key in o) if (Object.hasOwn(o, key) && !Object.hasOwn(shapeOf, key)) return false;
    return true;
  };
}
