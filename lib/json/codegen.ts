/**
 * The generator: turns a schema into the check one would write by hand for it (objects read
 * their members by name, loops are written for items, leaves and constraints are inline
 * tests), with the same answers as the reference checker (_check.ts) for every value. The
 * same code serves twice: compiled with `new Function` on a schema's first use where code
 * generation is allowed, and written ahead of time as a module by cli.ts (see precompiled.ts).
 *
 * Schema text never becomes code: keys and literal strings enter as JSON string literals
 * (U+2028 and U+2029 escaped), numbers as numbers, and patterns and format checks through the
 * constants array `K`.
 *
 * @module
 */
import type {
  ArrayConstraints,
  LiteralValue,
  SchemaNode as Schema,
  UnionSchema,
  VariantSchema,
} from "./_node.ts";
import { type Check, codePoints, inherited, isJson, MAX_DEPTH, repeated, tagOf } from "./_check.ts";
import { bare, FAIL, type Project, put } from "./_project.ts";
import { FORMAT_CHECKS } from "./_formats.ts";

/** What generated checks call (`H` in the generated code). */
export interface CheckHelpers {
  /** The check of `schema.any()`. */
  readonly isJson: (value: unknown, depth: number) => boolean;
  /** The number of code points of a string. */
  readonly codePoints: (s: string) => number;
  /** The index of the first item equal to an earlier one, or -1. */
  readonly repeated: (items: readonly unknown[]) => number;
  /** The format checks by name. */
  readonly formats: Readonly<Record<string, (s: string) => boolean>>;
}

/** The helpers of generated checks, imported by modules generated ahead of time. */
export const CHECK_HELPERS: CheckHelpers = { isJson, codePoints, repeated, formats: FORMAT_CHECKS };

// Projections also need these, which only code generated at run time uses.
const RUN_TIME_HELPERS = { isJson, codePoints, repeated, formats: FORMAT_CHECKS, put, bare, FAIL };

/** A name JavaScript reads as an identifier. */
export const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;

/** A JavaScript string literal of `text`: JSON, with the line separators escaped too. */
export function str(text: string): string {
  return JSON.stringify(text).replaceAll("\u2028", "\\u2028").replaceAll("\u2029", "\\u2029");
}

function literal(value: LiteralValue): string {
  if (typeof value === "string") return str(value);
  return Object.is(value, -0) ? "-0" : String(value);
}

const heights = new WeakMap<Schema, number>();

/** The levels of arrays and objects a schema can walk, Infinity under `any`. */
function height(s: Schema): number {
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
        h = 1 + Math.max(0, ...Object.values(s.shape).map(of));
        break;
      case "union":
        h = Math.max(...s.variants.map(of));
        break;
      default:
        h = 0;
    }
    heights.set(s, h);
  }
  return h;
}

// Whether a schema's valid values are written as they are (no object below to reduce).
function plain(s: Schema): boolean {
  switch (s.kind) {
    case "string":
    case "number":
    case "integer":
    case "boolean":
    case "null":
    case "literal":
    case "enum":
      return true;
    case "nullable":
      return plain(s.inner as Schema);
    case "array":
      return plain(s.item as Schema);
    default:
      return false;
  }
}

// The levels of arrays in a plain schema's values (0 for a scalar).
function arrays(s: Schema): number {
  if (s.kind === "nullable") return arrays(s.inner as Schema);
  return s.kind === "array" ? 1 + arrays(s.item as Schema) : 0;
}

// Whether a schema's check is a function of its own unless it is written into its parent's.
function compound(s: Schema): boolean {
  return s.kind === "array" || s.kind === "record" || s.kind === "object" || s.kind === "union";
}

// Whether the check of `s` lets `undefined` through (an optional schema under nullable ones).
function admitsUndefined(s: Schema): boolean {
  if (s.kind === "optional") return true;
  return s.kind === "nullable" && admitsUndefined(s.inner as Schema);
}

// How many times the check of each compound node is written for `root`: a node under a shared
// compound node is written once, in that node's function.
function uses(root: Schema): Map<Schema, number> {
  const count = new Map<Schema, number>();
  const visit = (s: Schema): void => {
    const n = (count.get(s) ?? 0) + 1;
    count.set(s, n);
    if (n > 1 && compound(s)) return;
    const of = (inner: unknown) => visit(inner as Schema);
    switch (s.kind) {
      case "optional":
      case "nullable":
        return of(s.inner);
      case "array":
        return of(s.item);
      case "record":
        return of(s.value);
      case "object":
        return Object.values(s.shape).forEach(of);
      case "union":
        return s.variants.forEach(of);
    }
  };
  visit(root);
  return count;
}

// The lines past which a generated function calls the checks of its members instead of holding
// them (V8 stops optimizing functions far larger than this).
const INLINE_LINES = 300;

// The local names of the function being written.
interface Scope {
  n: number;
}

// Generated code calls the built-ins by their global names: V8 inlines `Array.isArray` read that
// way, and not through a closure's constant (bench "decode 2 KiB", docs/architecture.md).
const OBJECT = (v: string) => `typeof ${v} !== "object" || ${v} === null || Array.isArray(${v})`;

/**
 * Writes the functions of checks and projections, one for each array, record, object and union
 * node (shared where a node is reused), and the constants they use.
 */
export class Writer {
  /** The functions written so far. */
  readonly functions: string[] = [];
  #constants: { value: unknown; code: string }[] = [];
  // function names by node, for checks without and with depth tests
  #names = [new Map<Schema, string>(), new Map<Schema, string>()];
  #projections = new Map<Schema, string>();
  #count = 0;
  #ts: boolean;
  #deep = false;
  #uses = new Map<Schema, number>();

  /** @param ts Whether to write TypeScript (type annotations) rather than JavaScript. */
  constructor(ts: boolean) {
    this.#ts = ts;
  }

  /** The constants' values, for code compiled at run time. */
  get constants(): unknown[] {
    return this.#constants.map((c) => c.value);
  }

  /** The constants as source, for a module written ahead of time. */
  get constantsSource(): string {
    return `[${this.#constants.map((c) => c.code).join(", ")}]`;
  }

  /** Writes the check of `schema` at the root; returns its function's name. */
  check(schema: Schema): string {
    this.#deep = height(schema) > MAX_DEPTH;
    this.#uses = uses(schema);
    const named = this.#function(schema);
    if (named !== undefined) return named;
    const name = this.#name("c");
    this.#emit(name, this.#params, "boolean", [`  return ${this.#test(schema, "v", "d")};`]);
    return name;
  }

  /** Writes the projection of `schema` for json.encode; returns its function's name. */
  project(schema: Schema): string {
    this.#deep = false;
    const name = this.#name("p");
    const lines: string[] = [];
    const y = this.#projectInto(schema, "v", lines);
    this.#emit(name, "v", "unknown", [...lines, `  return ${y};`]);
    return name;
  }

  // A check takes the depth only where the schema can be deeper than the limit (then it tests
  // it): fewer bytecodes let V8 inline more of a check into its caller (bench "decode 2 KiB").
  get #params(): string {
    return this.#deep ? "v, d" : "v";
  }

  #call(name: string, x: string, d: string): string {
    return this.#deep ? `${name}(${x}, ${d})` : `${name}(${x})`;
  }

  #name(prefix: string): string {
    return `${prefix}${++this.#count}`;
  }

  #constant(value: unknown, code: string): string {
    this.#constants.push({ value, code });
    return `K[${this.#constants.length - 1}]`;
  }

  #emit(name: string, params: string, returns: string, body: string[]): void {
    const p = this.#ts
      ? params.split(", ").map((x) => `${x}: ${x === "d" ? "number" : "any"}`)
      : [params];
    const r = this.#ts ? `: ${returns}` : "";
    this.functions.push(`function ${name}(${p.join(", ")})${r} {`, ...body, "}");
  }

  // The expression of member `key` of `v` (own members only, for names Object.prototype has).
  #member(v: string, key: string): string {
    if (inherited(key)) return `(Object.hasOwn(${v}, ${str(key)}) ? ${v}[${str(key)}] : undefined)`;
    return IDENTIFIER.test(key) ? `${v}.${key}` : `${v}[${str(key)}]`;
  }

  // A boolean expression: whether `x` (a name) matches `s` at depth `d` (an expression).
  #test(s: Schema, x: string, d: string): string {
    const all = (tests: string[]) => tests.length === 1 ? tests[0] : `(${tests.join(" && ")})`;
    switch (s.kind) {
      case "string": {
        const tests = [`typeof ${x} === "string"`];
        const { minLength: min, maxLength: max, pattern, format } = s;
        // UTF-16 units bound code points: n/2 ≤ code points ≤ n
        if (min !== undefined && min > 0) {
          tests.push(
            `(${x}.length >= ${2 * min} || ${x}.length >= ${min} && H.codePoints(${x}) >= ${min})`,
          );
        }
        if (max !== undefined) {
          tests.push(`(${x}.length <= ${max} || H.codePoints(${x}) <= ${max})`);
        }
        if (pattern !== undefined) {
          const code = `new RegExp(${str(pattern.source)}, ${str(pattern.flags)})`;
          tests.push(`${this.#constant(pattern, code)}.test(${x})`);
        }
        if (format !== undefined) {
          const code = `H.formats[${str(format)}]`;
          tests.push(`${this.#constant(FORMAT_CHECKS[format], code)}(${x})`);
        }
        return all(tests);
      }
      case "number":
      case "integer": {
        const tests = [
          s.kind === "integer"
            ? `Number.isSafeInteger(${x})`
            : `typeof ${x} === "number" && ${x} - ${x} === 0`,
        ];
        const n = (value: number) => Object.is(value, -0) ? "0" : String(value);
        if (s.minimum !== undefined) tests.push(`${x} >= ${n(s.minimum)}`);
        if (s.maximum !== undefined) tests.push(`${x} <= ${n(s.maximum)}`);
        if (s.exclusiveMinimum !== undefined) tests.push(`${x} > ${n(s.exclusiveMinimum)}`);
        if (s.exclusiveMaximum !== undefined) tests.push(`${x} < ${n(s.exclusiveMaximum)}`);
        if (s.multipleOf !== undefined) tests.push(`Number.isInteger(${x} / ${n(s.multipleOf)})`);
        return all(tests);
      }
      case "boolean":
        return `typeof ${x} === "boolean"`;
      case "null":
        return `${x} === null`;
      case "any":
        return `H.isJson(${x}, ${d})`;
      case "literal":
        return `${x} === ${literal(s.value)}`;
      case "enum": {
        const values = [...new Set(s.values)];
        if (values.length > 8) {
          const code = `new Set([${values.map(literal).join(", ")}])`;
          return `${this.#constant(new Set(values), code)}.has(${x})`;
        }
        return `(${values.map((v) => `${x} === ${literal(v)}`).join(" || ")})`;
      }
      case "optional":
        return `(${x} === undefined || ${this.#test(s.inner as Schema, x, d)})`;
      case "nullable":
        return `(${x} === null || ${this.#test(s.inner as Schema, x, d)})`;
      default:
        return this.#call(this.#function(s)!, x, d);
    }
  }

  // The function of an array, record, object or union; undefined for any other schema.
  #function(s: Schema): string | undefined {
    if (!compound(s)) return undefined;
    const names = this.#names[this.#deep ? 1 : 0];
    let name = names.get(s);
    if (name !== undefined) return name;
    name = this.#name("c");
    names.set(s, name);
    const body = this.#deep ? [`  if (d > ${MAX_DEPTH}) return false;`] : [];
    this.#compound(s, "v", "d", body, "  ", { n: 0 });
    body.push("  return true;");
    this.#emit(name, this.#params, "boolean", body);
    return name;
  }

  // Whether the check of `s` is written into the function being written (`lines`) rather than
  // called: a compound node used once, while that function is short, where depth is not tested.
  // One function for a whole document's check needs no inlining decisions from V8, which a
  // check called from json.decode (a call site that sees every schema) does not get.
  #inlined(s: Schema, lines: string[]): boolean {
    if (this.#deep || lines.length >= INLINE_LINES) return false;
    if (s.kind === "optional" || s.kind === "nullable") {
      return this.#inlined(s.inner as Schema, lines);
    }
    return compound(s) && this.#uses.get(s) === 1;
  }

  // Statements (into `lines`) that return false unless `x` matches `s` at depth `d`.
  // `tag`: the member a union has already read and matched, for one of its variants.
  #checkInto(
    s: Schema,
    x: string,
    d: string,
    lines: string[],
    indent: string,
    scope: Scope,
    tag?: string,
  ) {
    if (!this.#inlined(s, lines)) {
      lines.push(`${indent}if (!(${this.#test(s, x, d)})) return false;`);
    } else if (s.kind === "optional" || s.kind === "nullable") {
      lines.push(`${indent}if (${x} !== ${s.kind === "optional" ? "undefined" : "null"}) {`);
      this.#checkInto(s.inner as Schema, x, d, lines, `${indent}  `, scope);
      lines.push(`${indent}}`);
    } else this.#compound(s, x, d, lines, indent, scope, tag);
  }

  // Statements (into `lines`) that return false unless `x` matches `s`, an array, record,
  // object or union, at depth `d`. Names are unique in the function (`scope`). A variant of a
  // union (`tag` given) is an object whose tag the union has tested already.
  #compound(
    s: Schema,
    x: string,
    d: string,
    lines: string[],
    indent: string,
    scope: Scope,
    tag?: string,
  ) {
    const local = (prefix: string) => `${prefix}${scope.n++}`;
    const inner = `${d} + 1`;
    switch (s.kind) {
      case "array": {
        const i = local("i"), y = local("x");
        lines.push(`${indent}if (!Array.isArray(${x})) return false;`);
        lines.push(...this.#counts(s, x, "return false", indent));
        lines.push(`${indent}for (let ${i} = 0; ${i} < ${x}.length; ${i}++) {`);
        lines.push(`${indent}  const ${y} = ${x}[${i}];`);
        this.#checkInto(s.item as Schema, y, inner, lines, `${indent}  `, scope);
        lines.push(`${indent}}`);
        if (s.uniqueItems) lines.push(`${indent}if (H.repeated(${x}) >= 0) return false;`);
        break;
      }
      case "record": {
        const max = s.maxProperties, k = local("k"), y = local("x"), n = local("n");
        lines.push(`${indent}if (${OBJECT(x)}) return false;`);
        if (max !== undefined) lines.push(`${indent}let ${n} = 0;`);
        lines.push(`${indent}for (const ${k} in ${x}) {`, `${indent}  const ${y} = ${x}[${k}];`);
        // own members only; JSON.parse makes no others, so ask only when the value fails
        const test = this.#test(s.value as Schema, y, inner);
        lines.push(`${indent}  if (!(${test}) && Object.hasOwn(${x}, ${k})) return false;`);
        if (max !== undefined) {
          lines.push(`${indent}  if (Object.hasOwn(${x}, ${k}) && ++${n} > ${max}) return false;`);
        }
        lines.push(`${indent}}`);
        break;
      }
      case "object": {
        if (tag === undefined) lines.push(`${indent}if (${OBJECT(x)}) return false;`);
        const keys = Object.keys(s.shape);
        for (const key of keys) {
          if (key === tag) continue;
          const y = local("x"), member = s.shape[key] as Schema;
          lines.push(`${indent}const ${y} = ${this.#member(x, key)};`);
          // only an optional member may be absent, whatever optional schema it wraps
          if (member.kind !== "optional" && admitsUndefined(member)) {
            lines.push(`${indent}if (${y} === undefined) return false;`);
          }
          this.#checkInto(member, y, inner, lines, indent, scope);
        }
        const reject = s.unknownKeys === "reject", max = s.maxProperties;
        if (reject || max !== undefined) {
          const k = local("k"), n = local("n");
          if (max !== undefined) lines.push(`${indent}let ${n} = 0;`);
          lines.push(`${indent}for (const ${k} in ${x}) {`);
          lines.push(`${indent}  if (!Object.hasOwn(${x}, ${k})) continue;`);
          if (max !== undefined) lines.push(`${indent}  if (++${n} > ${max}) return false;`);
          if (reject) {
            const known = keys.map((key) => `${k} !== ${str(key)}`);
            const test = known.length === 0 ? "true" : known.join(" && ");
            lines.push(`${indent}  if (${test}) return false;`);
          }
          lines.push(`${indent}}`);
        }
        break;
      }
      case "union": {
        const key = s.discriminator, t = local("t");
        lines.push(`${indent}if (${OBJECT(x)}) return false;`);
        lines.push(`${indent}const ${t} = ${this.#member(x, key)};`);
        const variants = s.variants as readonly Schema[];
        variants.forEach((variant, i) => {
          const tag = literal(tagOf(variant, key));
          lines.push(`${indent}${i === 0 ? "" : "} else "}if (${t} === ${tag}) {`);
          this.#checkInto(variant, x, d, lines, `${indent}  `, scope, key);
        });
        lines.push(`${indent}${variants.length === 0 ? "" : "} else "}return false;`);
        break;
      }
    }
  }

  #counts(s: ArrayConstraints, x: string, fail: string, indent = "  "): string[] {
    const tests: string[] = [];
    if (s.minItems !== undefined) tests.push(`${x}.length < ${s.minItems}`);
    if (s.maxItems !== undefined) tests.push(`${x}.length > ${s.maxItems}`);
    return tests.length === 0 ? [] : [`${indent}if (${tests.join(" || ")}) ${fail};`];
  }

  #union(
    s: UnionSchema<string, readonly VariantSchema<string>[]>,
    call: (variant: Schema) => string,
    fail: string,
  ): string[] {
    const key = s.discriminator;
    return [
      `  if (${OBJECT("v")}) return ${fail};`,
      `  const t = ${this.#member("v", key)};`,
      ...s.variants.map((variant) =>
        `  if (t === ${literal(tagOf(variant as Schema, key))}) return ${call(variant as Schema)};`
      ),
      `  return ${fail};`,
    ];
  }

  // Statements (into `lines`) that project `x` by `s` or return F; returns the projected value.
  #projectInto(s: Schema, x: string, lines: string[], indent = "  "): string {
    if (plain(s)) {
      lines.push(`${indent}if (!(${this.#test(s, x, "1")})) return F;`);
      const levels = arrays(s);
      if (levels === 0) return x;
      // an array is written as it is unless it has a toJSON(), which encoding never calls
      const y = this.#name("y");
      lines.push(`${indent}const ${y} = H.bare(${x}, ${levels});`);
      return y;
    }
    switch (s.kind) {
      case "any":
        lines.push(`${indent}if (${x} === undefined) return F;`);
        return x;
      case "optional":
      case "nullable": {
        // absent (or null) is written as it is
        const y = this.#name("y");
        const inner: string[] = [];
        const z = this.#projectInto(s.inner as Schema, x, inner, `${indent}  `);
        const none = s.kind === "optional" ? "undefined" : "null";
        lines.push(`${indent}let ${y} = ${x};`, `${indent}if (${x} !== ${none}) {`, ...inner);
        lines.push(`${indent}  ${y} = ${z};`, `${indent}}`);
        return y;
      }
      default: {
        const y = this.#name("y");
        lines.push(`${indent}const ${y} = ${this.#projection(s)}(${x});`);
        lines.push(`${indent}if (${y} === F) return F;`);
        return y;
      }
    }
  }

  // The projection function of an array, record, object or union.
  #projection(s: Schema): string {
    let name = this.#projections.get(s);
    if (name !== undefined) return name;
    name = this.#name("p");
    this.#projections.set(s, name);
    const body: string[] = [];
    switch (s.kind) {
      case "array": {
        body.push("  if (!Array.isArray(v)) return F;", ...this.#counts(s, "v", "return F"));
        body.push("  const out = [];", "  for (let i = 0; i < v.length; i++) {");
        body.push("    const x = v[i];");
        const y = this.#projectInto(s.item as Schema, "x", body, "    ");
        body.push(`    out.push(${y});`, "  }");
        if (s.uniqueItems) body.push("  if (H.repeated(out) >= 0) return F;"); // as written
        body.push("  return out;");
        break;
      }
      case "record": {
        const max = s.maxProperties;
        body.push(`  if (${OBJECT("v")}) return F;`);
        if (plain(s.value as Schema) && arrays(s.value as Schema) === 0 && max === undefined) {
          // a plain object whose values are scalars is written itself (JSON.stringify writes own
          // members only, and such an object has no toJSON unless it holds one itself); only own
          // members are checked, so ask only when a value fails
          body.push(
            "  if (Object.getPrototypeOf(v) === Object.prototype && v.toJSON === undefined) {",
            "    for (const k in v) {",
            "      const x = v[k];",
            `      if (!(${
              this.#test(s.value as Schema, "x", "1")
            }) && Object.hasOwn(v, k)) return F;`,
            "    }",
            "    return v;",
            "  }",
          );
        }
        body.push("  const out = {};", "  let n = 0;");
        body.push("  for (const k in v) {", "    if (!Object.hasOwn(v, k)) continue;", "    n++;");
        body.push("    const x = v[k];");
        const y = this.#projectInto(s.value as Schema, "x", body, "    ");
        body.push(
          `    if (k === "__proto__") H.put(out, k, ${y});`,
          `    else out[k] = ${y};`,
          "  }",
        );
        body.push(`  return ${max === undefined ? "out" : `n > ${max} ? F : out`};`);
        break;
      }
      case "object": {
        body.push(`  if (${OBJECT("v")}) return F;`);
        const written: string[] = [];
        const members = Object.keys(s.shape).map((key, i) => {
          body.push(`  const x${i} = ${this.#member("v", key)};`);
          const y = this.#projectInto(s.shape[key] as Schema, `x${i}`, body);
          written.push(`(${y} !== undefined ? 1 : 0)`);
          // a computed key defines a member named __proto__ instead of setting the prototype
          return key === "__proto__" ? `[${str(key)}]: ${y}` : `${str(key)}: ${y}`;
        });
        // the members written count against maxProperties
        if (s.maxProperties !== undefined && written.length > s.maxProperties) {
          body.push(`  if (${written.join(" + ")} > ${s.maxProperties}) return F;`);
        }
        body.push(`  return { ${members.join(", ")} };`);
        break;
      }
      case "union":
        body.push(...this.#union(s, (variant) => `${this.#projection(variant)}(v)`, "F"));
        break;
      default:
        throw new TypeError(`Cannot write a projection for ${s.kind}`);
    }
    this.#emit(name, "v", "unknown", body);
    return name;
  }
}

// Compiles the functions a writer wrote, returning the one named `name`.
function compile<T>(writer: Writer, name: string): T {
  const source = ["const F = H.FAIL;", ...writer.functions, `return ${name};`];
  return new Function("K", "H", source.join("\n"))(writer.constants, RUN_TIME_HELPERS);
}

/** The check of `schema` at the root, generated and compiled (throws where eval is forbidden). */
export function generateCheck(schema: Schema): Check {
  const writer = new Writer(false);
  return compile(writer, writer.check(schema));
}

/** The projection of `schema` for json.encode, generated and compiled. */
export function generateProjection(schema: Schema): Project {
  const writer = new Writer(false);
  return compile(writer, writer.project(schema));
}
