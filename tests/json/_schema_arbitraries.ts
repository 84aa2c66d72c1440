// Generated schemas and values for the property tests of schema checks and encoding: schema
// descriptions (Desc), the Weft schemas they build, values that mostly conform, and a
// reference checker written here.
import fc from "fast-check";
import { schema as s, type SchemaNode } from "../../lib/json/mod.ts";

/** Uses a schema often enough (through `use`) for it to count as hot. */
export function heat(use: () => unknown): void {
  for (let i = 0; i < 100; i++) use();
}

/** Constraints of a description (a pattern is an index into PATTERNS). */
export interface Cons {
  minLength?: number;
  maxLength?: number;
  pattern?: number;
  format?: "email" | "uri" | "uuid" | "date" | "date-time";
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  multipleOf?: number;
  minItems?: number;
  maxItems?: number;
  uniqueItems?: boolean;
  maxProperties?: number;
}

export type Desc =
  | { t: "string" | "number" | "integer"; c?: Cons }
  | { t: "boolean" | "null" | "any" }
  | { t: "literal"; v: string | number | boolean | null }
  | { t: "enum"; v: (string | number)[] }
  | { t: "array" | "record"; of: Desc; c?: Cons }
  | { t: "nullable"; of: Desc }
  | { t: "object"; fields: [string, Desc, boolean][]; reject: boolean; c?: Cons }
  | { t: "union"; variants: [string, [string, Desc, boolean][]][] };

const KEYS = ["a", "b", "c", "d e", "constructor", "id"];

export const PATTERNS: RegExp[] = [/^[a-z]*$/, /\d/, /^(a|bc)+$/u];

/** Strings of each format, valid and not, near the edges of each grammar. */
export const FORMAT_SAMPLES: Record<NonNullable<Cons["format"]>, string[]> = {
  email: [
    "a@b.co",
    "a.b@c-d.ef",
    "a+tag@mail.example.org",
    "x@y",
    ".a@b.co",
    "a.@b.co",
    "a..b@c.de",
    "a@-b.co",
    "a@b-.co",
    "a@b..co",
    "\u00e4@b.co",
    "a@b.co ",
    "@b.co",
    "a@",
    "a@b_c.de",
    "a@@b.co",
    "A@B.CO",
  ],
  uri: [
    "https://example.com/a?b#c",
    "mailto:a@b.co",
    "urn:isbn:0451450523",
    "http://user@host:8080/p",
    "file:///etc/passwd",
    "http://x/%41",
    "http://x/%zz",
    "http://a b",
    "1http://x",
    "/relative",
    "http://host:port/",
    "a:",
    "http://x/\u00e4",
    "HTTP://EX.COM",
    "http://x?q=a/b?c",
    "http://x#f#g",
    "x:y:z",
  ],
  uuid: [
    "123e4567-e89b-12d3-a456-426614174000",
    "123E4567-E89B-12D3-A456-426614174000",
    "123e4567e89b12d3a456426614174000",
    "123e4567-e89b-12d3-a456-42661417400g",
    "123e4567-e89b-12d3-a456-4266141740000",
    "urn:uuid:123e4567-e89b-12d3-a456-426614174000",
  ],
  date: [
    "2024-02-29",
    "2000-02-29",
    "2023-02-29",
    "1900-02-29",
    "2024-13-01",
    "2024-00-10",
    "2024-04-31",
    "2024-04-30",
    "2024-1-01",
    "20240101",
    "2024-12-31",
  ],
  "date-time": [
    "2024-01-01T00:00:00Z",
    "2024-01-01t00:00:00z",
    "2024-06-30T23:59:60Z",
    "2024-06-30T23:59:60+01:00",
    "2024-06-30T22:59:60-01:00",
    "2024-06-30T12:59:60Z",
    "2024-01-01T00:00:00.123+05:30",
    "2024-01-01T00:00:00",
    "2024-01-01T24:00:00Z",
    "2024-01-01T00:60:00Z",
    "2024-01-01T00:00:00.Z",
    "2024-02-30T00:00:00Z",
    "2024-01-01T00:00:00+24:00",
    "2024-01-01 00:00:00Z",
    "2024-01-01T00:00:00+0100",
  ],
};

const opt = <T>(arb: fc.Arbitrary<T>) => fc.option(arb, { nil: undefined, freq: 2 });

function ordered(c: Cons, low: keyof Cons, high: keyof Cons): Cons {
  const a = c[low] as number | undefined, b = c[high] as number | undefined;
  if (a !== undefined && b !== undefined && a > b) return { ...c, [low]: b, [high]: a };
  return c;
}

const clean = (c: Cons): Cons | undefined => {
  const out = Object.fromEntries(Object.entries(c).filter(([, v]) => v !== undefined));
  return Object.keys(out).length === 0 ? undefined : out;
};

const LIMITS = [-2, 0, 1.5, 3, 10];

const stringCons = fc.record({
  minLength: opt(fc.nat(3)),
  maxLength: opt(fc.nat(4)),
  pattern: opt(fc.nat(PATTERNS.length - 1)),
  format: opt(fc.constantFrom("email", "uri", "uuid", "date", "date-time" as const)),
}).map((c) => clean(ordered(c, "minLength", "maxLength")));

const numberCons = fc.record({
  minimum: opt(fc.constantFrom(...LIMITS)),
  maximum: opt(fc.constantFrom(...LIMITS)),
  exclusiveMinimum: opt(fc.constantFrom(...LIMITS)),
  exclusiveMaximum: opt(fc.constantFrom(...LIMITS)),
  multipleOf: opt(fc.constantFrom(0.5, 2, 3)),
}).map((c) => ordered(c, "minimum", "maximum")).map((c) => {
  // the builder refuses exclusive bounds that leave no number: drop the exclusive ones then
  const low = c.exclusiveMinimum ?? -Infinity, high = c.exclusiveMaximum ?? Infinity;
  const empty = low >= (c.maximum ?? Infinity) || (c.minimum ?? -Infinity) >= high || low >= high;
  return clean(empty ? { ...c, exclusiveMinimum: undefined, exclusiveMaximum: undefined } : c);
});

// the builder refuses an integer schema whose bounds leave no integer: drop the bounds then
const integerCons = numberCons.map((c) => {
  if (c === undefined) return c;
  const low = c.exclusiveMinimum ?? -Infinity, high = c.exclusiveMaximum ?? Infinity;
  const least = Math.max(Math.ceil(c.minimum ?? -Infinity), Math.floor(low) + 1);
  const most = Math.min(Math.floor(c.maximum ?? Infinity), Math.ceil(high) - 1);
  return least > most ? clean({ multipleOf: c.multipleOf }) : c;
});

const arrayCons = fc.record({
  minItems: opt(fc.nat(2)),
  maxItems: opt(fc.nat(3)),
  uniqueItems: opt(fc.boolean()),
}).map((c) => clean(ordered(c, "minItems", "maxItems")));

const countCons = fc.record({ maxProperties: opt(fc.nat(3)) }).map(clean);

export const descArb: fc.Arbitrary<Desc> = fc.letrec<{ desc: Desc }>((tie) => ({
  desc: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    fc.constantFrom(
      ...(["string", "number", "integer", "boolean", "null", "any"] as const).map((t) => ({ t })),
    ),
    fc.record({ t: fc.constant("string" as const), c: stringCons }),
    fc.record({ t: fc.constant("number" as const), c: numberCons }),
    fc.record({ t: fc.constant("integer" as const), c: integerCons }),
    fc.constantFrom<string | number | boolean | null>("x", 1, true, null).map((v) => ({
      t: "literal" as const,
      v,
    })),
    fc.uniqueArray(fc.constantFrom<string | number>("x", "y", 2, 3), { minLength: 1 }).map((v) => ({
      t: "enum" as const,
      v,
    })),
    fc.record({ t: fc.constantFrom("array", "nullable", "record" as const), of: tie("desc") }),
    fc.record({ t: fc.constant("array" as const), of: tie("desc"), c: arrayCons }),
    fc.record({ t: fc.constant("record" as const), of: tie("desc"), c: countCons }),
    fc.record({
      t: fc.constant("object" as const),
      fields: fc.uniqueArray(fc.tuple(fc.constantFrom(...KEYS), tie("desc"), fc.boolean()), {
        maxLength: 4,
        selector: (f) => f[0],
      }),
      reject: fc.boolean(),
      c: countCons,
    }),
    fc.record({
      t: fc.constant("union" as const),
      variants: fc.uniqueArray(
        fc.tuple(
          fc.constantFrom("p", "q", "r"),
          fc.uniqueArray(fc.tuple(fc.constantFrom("a", "b"), tie("desc"), fc.boolean()), {
            maxLength: 2,
            selector: (f) => f[0],
          }),
        ),
        { minLength: 1, maxLength: 3, selector: (v) => v[0] },
      ),
    }),
  ),
})).desc;

/**
 * The Weft schema of a description. With `shared`, equal descriptions anywhere in it build one
 * node, so checks meet nodes used in several places (written once, as a function of their own).
 */
export function build(d: Desc, shared?: Map<string, SchemaNode>): SchemaNode {
  if (shared === undefined) return node(d, build);
  const key = JSON.stringify(d);
  let built = shared.get(key);
  if (built === undefined) shared.set(key, built = node(d, (inner) => build(inner, shared)));
  return built;
}

function node(d: Desc, build: (d: Desc) => SchemaNode): SchemaNode {
  const shape = (fields: [string, Desc, boolean][]) =>
    Object.fromEntries(
      fields.map(([k, f, optional]) => [k, optional ? s.optional(build(f)) : build(f)]),
    );
  switch (d.t) {
    case "literal":
      return s.literal(d.v);
    case "enum":
      return s.enum(d.v as [string | number]);
    case "string":
      return s.string(d.c && constraints(d.c));
    case "number":
    case "integer":
      return s[d.t](d.c);
    case "array":
      return s.array(build(d.of), d.c);
    case "nullable":
      return s.nullable(build(d.of));
    case "record":
      return s.record(build(d.of), d.c);
    case "object":
      return s.object(shape(d.fields), {
        unknownKeys: d.reject ? "reject" : "ignore",
        maxProperties: d.c?.maxProperties,
      });
    case "union":
      return s.union(
        "t",
        d.variants.map(([tag, fields]) =>
          s.object({ ...shape(fields.filter(([k]) => k !== "t")), t: s.literal(tag) })
        ) as never,
      );
    default:
      return s[d.t]();
  }
}

/** The builder's constraints of a description's (a pattern index made a RegExp). */
export function constraints(c: Cons): Record<string, unknown> {
  return c.pattern === undefined ? { ...c } : { ...c, pattern: PATTERNS[c.pattern] };
}

// Values at and around each limit of a description's constraints.
function nearLimits(c: Cons | undefined, integer: boolean): number[] {
  const out: number[] = [];
  for (const key of ["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"] as const) {
    const limit = c?.[key];
    if (limit !== undefined) out.push(limit, limit - 1, limit + 1, limit - 0.5, limit + 0.5);
  }
  if (c?.multipleOf !== undefined) out.push(c.multipleOf * 3, c.multipleOf * 3 + 0.25);
  return integer ? out.filter(Number.isInteger) : out;
}

// Strings of lengths around the limits (some of astral characters, one code point each).
function stringsNear(c: Cons | undefined): fc.Arbitrary<string> {
  const lengths = [c?.minLength, c?.maxLength].filter((n) => n !== undefined)
    .flatMap((n) => [n - 1, n, n + 1]).filter((n) => n >= 0);
  const arbs: fc.Arbitrary<string>[] = [
    fc.string({ maxLength: 5 }),
    fc.string({ unit: "grapheme", maxLength: 4 }),
    fc.stringMatching(/^(a|bc)+$/).filter((x) => x.length < 8),
  ];
  for (const n of lengths) {
    arbs.push(fc.constantFrom("a".repeat(n), "\u{1F600}".repeat(n), "1".repeat(n), "bc".repeat(n)));
  }
  if (c?.format !== undefined) arbs.push(fc.constantFrom(...FORMAT_SAMPLES[c.format]));
  return fc.oneof(...arbs);
}

// A value for a description: mostly conforming, sometimes wrong or with a member missing.
export function valueArb(d: Desc): fc.Arbitrary<unknown> {
  const wrong = fc.oneof(
    fc.constant("w"),
    fc.constant(7),
    fc.constant(1.5),
    fc.constant(null),
    fc.constant([]),
    fc.constant({}),
  );
  const fieldsArb = (fields: [string, Desc, boolean][], extra: boolean) =>
    fc.tuple(
      ...fields.map(([, f, optional]) =>
        fc.oneof({ weight: 8, arbitrary: valueArb(f) }, {
          weight: optional ? 2 : 1,
          arbitrary: fc.constant(undefined),
        })
      ),
      extra ? fc.option(fc.constant("extra"), { freq: 6 }) : fc.constant(null),
    ).map((values) => {
      const out: Record<string, unknown> = {};
      fields.forEach(([k], i) => {
        if (values[i] !== undefined) out[k] = values[i];
      });
      if (values[fields.length] !== null) out.zz = 0;
      return out;
    });
  let right: fc.Arbitrary<unknown>;
  switch (d.t) {
    case "string":
      right = d.c === undefined ? fc.string({ maxLength: 3 }) : stringsNear(d.c);
      break;
    case "number": {
      const near = nearLimits(d.c, false);
      right = fc.oneof(
        fc.double({ noNaN: true, noDefaultInfinity: true }),
        fc.integer(),
        ...(near.length > 0 ? [fc.constantFrom(...near), fc.constantFrom(...near)] : []),
      );
      break;
    }
    case "integer": {
      const near = nearLimits(d.c, true);
      right = fc.oneof(
        fc.integer(),
        fc.maxSafeInteger(),
        fc.constant(2 ** 53),
        fc.constant(-(2 ** 53)),
        ...(near.length > 0 ? [fc.constantFrom(...near), fc.constantFrom(...near)] : []),
      );
      break;
    }
    case "boolean":
      right = fc.boolean();
      break;
    case "null":
      right = fc.constant(null);
      break;
    case "any":
      right = fc.jsonValue({ maxDepth: 2 });
      break;
    case "literal":
      right = fc.constant(d.v);
      break;
    case "enum":
      right = fc.constantFrom(...d.v);
      break;
    case "array":
      // repeated items, for uniqueItems
      right = fc.array(valueArb(d.of), { maxLength: 4 }).chain((items) =>
        fc.constantFrom(items, items.length > 0 ? [...items, items[0]] : items)
      );
      break;
    case "nullable":
      right = fc.oneof(fc.constant(null), valueArb(d.of));
      break;
    case "record":
      right = fc.dictionary(fc.constantFrom(...KEYS), valueArb(d.of), { maxKeys: 3 });
      break;
    case "object":
      right = fieldsArb(d.fields, true);
      break;
    case "union":
      right = fc.oneof(
        ...d.variants.map(([tag, fields]) =>
          fieldsArb(fields.filter(([k]) => k !== "t"), false).chain((o) =>
            fc.constantFrom(tag, "zz", undefined).map((t) => (t === undefined ? o : { ...o, t }))
          )
        ),
      );
      break;
  }
  return fc.oneof({ weight: 12, arbitrary: right }, { weight: 1, arbitrary: wrong });
}

export type Expected =
  | { kind: "ok" }
  | {
    kind: "type_mismatch" | "missing_field" | "constraint" | "unexpected_field";
    path: string;
    constraint?: string;
  };

export function pathText(path: (string | number)[]): string {
  return "$" +
    path.map((k) =>
      typeof k === "number"
        ? `[${k}]`
        : /^[A-Za-z_$][\w$]*$/.test(k)
        ? `.${k}`
        : `[${JSON.stringify(k)}]`
    ).join("");
}

export const isObj = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

// JSON equality, members in any order
export function same(a: unknown, b: unknown): boolean {
  if (Array.isArray(a) || Array.isArray(b)) {
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length &&
      a.every((x, i) => same(x, b[i]));
  }
  if (isObj(a) || isObj(b)) {
    if (!isObj(a) || !isObj(b)) return false;
    const keys = Object.keys(a);
    return keys.length === Object.keys(b).length &&
      keys.every((k) => Object.hasOwn(b, k) && same(a[k], b[k]));
  }
  return a === b;
}

const FORMAT_RE: Record<string, (x: string) => boolean> = {
  uuid: (x) => /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(x),
  date: (x) => {
    const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(x);
    if (!m) return false;
    const date = new Date(Date.UTC(+m[1], +m[2] - 1, +m[3]));
    return date.getUTCMonth() === +m[2] - 1 && date.getUTCDate() === +m[3];
  },
  "date-time": (x) => {
    const m = /^(.{10})T(\d\d):(\d\d):(\d\d)(\.\d+)?(Z|([+-])(\d\d):(\d\d))$/i.exec(x);
    if (!m || !FORMAT_RE.date(m[1]) || +m[2] > 23 || +m[3] > 59 || +m[4] > 60) return false;
    if (m[7] !== undefined && (+m[8] > 23 || +m[9] > 59)) return false;
    if (+m[4] < 60) return true;
    const offset = m[7] === undefined ? 0 : (m[7] === "+" ? 1 : -1) * (+m[8] * 60 + +m[9]);
    return ((+m[2] * 60 + +m[3] - offset) % 1440 + 1440) % 1440 === 1439;
  },
  email: (x) =>
    /^[a-z0-9!#$%&'*+/=?^_`{|}~-]+(\.[a-z0-9!#$%&'*+/=?^_`{|}~-]+)*@([a-z0-9]([a-z0-9-]*[a-z0-9])?\.)+[a-z0-9]([a-z0-9-]*[a-z0-9])?$/i
      .test(x),
  uri: (x) => {
    const m = /^[a-z][a-z0-9+.-]*:(\/\/([^/?#]*))?([^?#]*)(\?[^#]*)?(#.*)?$/i.exec(x);
    if (!m) return false;
    const chars = (text: string, extra: string) =>
      new RegExp(`^([A-Za-z0-9\\-._~!$&'()*+,;=${extra}]|%[0-9A-Fa-f]{2})*$`).test(text);
    if (m[2] !== undefined) {
      const auth = /^(([^@]*)@)?([^:]*)(:(\d*))?$/.exec(m[2]);
      if (!auth || !chars(auth[2] ?? "", ":") || !chars(auth[3], "")) return false;
    }
    return chars(m[3], ":@/") && chars((m[4] ?? "").slice(1), ":@/?") &&
      chars((m[5] ?? "").slice(1), ":@/?");
  },
};

// The first broken constraint of a string or number, else undefined.
export function brokenRule(c: Cons | undefined, v: string | number): string | undefined {
  if (c === undefined) return undefined;
  if (typeof v === "string") {
    const n = [...v].length;
    if (c.minLength !== undefined && n < c.minLength) return "minLength";
    if (c.maxLength !== undefined && n > c.maxLength) return "maxLength";
    if (c.pattern !== undefined && !PATTERNS[c.pattern].test(v)) return "pattern";
    if (c.format !== undefined && !FORMAT_RE[c.format](v)) return "format";
    return undefined;
  }
  if (c.minimum !== undefined && v < c.minimum) return "minimum";
  if (c.maximum !== undefined && v > c.maximum) return "maximum";
  if (c.exclusiveMinimum !== undefined && v <= c.exclusiveMinimum) return "exclusiveMinimum";
  if (c.exclusiveMaximum !== undefined && v >= c.exclusiveMaximum) return "exclusiveMaximum";
  if (c.multipleOf !== undefined && !Number.isInteger(v / c.multipleOf)) return "multipleOf";
  return undefined;
}

export function reference(d: Desc, v: unknown, path: (string | number)[]): Expected {
  const bad = (): Expected => ({ kind: "type_mismatch", path: pathText(path) });
  const ok: Expected = { kind: "ok" };
  const rule = (constraint: string | undefined): Expected =>
    constraint === undefined ? ok : { kind: "constraint", path: pathText(path), constraint };
  const fieldsCheck = (o: Record<string, unknown>, fields: [string, Desc, boolean][]): Expected => {
    for (const [k, f, optional] of fields) {
      if (!Object.hasOwn(o, k)) {
        if (optional) continue;
        return { kind: "missing_field", path: pathText([...path, k]) };
      }
      const r = reference(f, o[k], [...path, k]);
      if (r.kind !== "ok") return r;
    }
    return ok;
  };
  switch (d.t) {
    case "string":
      return typeof v === "string" ? rule(brokenRule(d.c, v)) : bad();
    case "number":
      return typeof v === "number" && Number.isFinite(v) ? rule(brokenRule(d.c, v)) : bad();
    case "integer":
      return Number.isSafeInteger(v) ? rule(brokenRule(d.c, v as number)) : bad();
    case "boolean":
      return typeof v === "boolean" ? ok : bad();
    case "null":
      return v === null ? ok : bad();
    case "any":
      return ok;
    case "literal":
      return v === d.v ? ok : bad();
    case "enum":
      return d.v.includes(v as string) ? ok : bad();
    case "nullable":
      return v === null ? ok : reference(d.of, v, path);
    case "array": {
      if (!Array.isArray(v)) return bad();
      if (d.c?.minItems !== undefined && v.length < d.c.minItems) return rule("minItems");
      if (d.c?.maxItems !== undefined && v.length > d.c.maxItems) return rule("maxItems");
      for (let i = 0; i < v.length; i++) {
        const r = reference(d.of, v[i], [...path, i]);
        if (r.kind !== "ok") return r;
      }
      const repeated = v.some((x, i) => v.slice(0, i).some((y) => same(x, y)));
      return rule(d.c?.uniqueItems && repeated ? "uniqueItems" : undefined);
    }
    case "record": {
      if (!isObj(v)) return bad();
      for (const k of Object.keys(v)) {
        const r = reference(d.of, v[k], [...path, k]);
        if (r.kind !== "ok") return r;
      }
      const max = d.c?.maxProperties;
      return rule(max !== undefined && Object.keys(v).length > max ? "maxProperties" : undefined);
    }
    case "object": {
      if (!isObj(v)) return bad();
      const r = fieldsCheck(v, d.fields);
      if (r.kind !== "ok") return r;
      const unknown = Object.keys(v).find((k) => !d.fields.some(([f]) => f === k));
      if (d.reject && unknown !== undefined) {
        return { kind: "unexpected_field", path: pathText([...path, unknown]) };
      }
      const max = d.c?.maxProperties;
      return rule(max !== undefined && Object.keys(v).length > max ? "maxProperties" : undefined);
    }
    case "union": {
      if (!isObj(v)) return bad();
      if (!Object.hasOwn(v, "t")) return { kind: "missing_field", path: pathText([...path, "t"]) };
      const variant = d.variants.find(([tag]) => tag === v.t);
      if (variant === undefined) return { kind: "type_mismatch", path: pathText([...path, "t"]) };
      return fieldsCheck(v, variant[1].filter(([k]) => k !== "t"));
    }
  }
}
