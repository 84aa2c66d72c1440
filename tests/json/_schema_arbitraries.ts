// Generated schemas and values for the property tests of schema checks and encoding: schema
// descriptions (Desc), the Weft schemas they build, values that mostly conform, and a
// reference checker written here.
import fc from "fast-check";
import { schema as s, type SchemaNode } from "../../lib/json/mod.ts";

/** Uses a schema often enough (through `use`) for it to count as hot. */
export function heat(use: () => unknown): void {
  for (let i = 0; i < 100; i++) use();
}

export type Desc =
  | { t: "string" | "number" | "integer" | "boolean" | "null" | "any" }
  | { t: "literal"; v: string | number | boolean | null }
  | { t: "enum"; v: (string | number)[] }
  | { t: "array" | "nullable" | "record"; of: Desc }
  | { t: "object"; fields: [string, Desc, boolean][]; reject: boolean }
  | { t: "union"; variants: [string, [string, Desc, boolean][]][] };

const KEYS = ["a", "b", "c", "d e", "constructor", "id"];

export const descArb: fc.Arbitrary<Desc> = fc.letrec<{ desc: Desc }>((tie) => ({
  desc: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    fc.constantFrom(
      ...(["string", "number", "integer", "boolean", "null", "any"] as const).map((t) => ({ t })),
    ),
    fc.constantFrom<string | number | boolean | null>("x", 1, true, null).map((v) => ({
      t: "literal" as const,
      v,
    })),
    fc.uniqueArray(fc.constantFrom<string | number>("x", "y", 2, 3), { minLength: 1 }).map((v) => ({
      t: "enum" as const,
      v,
    })),
    fc.record({ t: fc.constantFrom("array", "nullable", "record" as const), of: tie("desc") }),
    fc.record({
      t: fc.constant("object" as const),
      fields: fc.uniqueArray(fc.tuple(fc.constantFrom(...KEYS), tie("desc"), fc.boolean()), {
        maxLength: 4,
        selector: (f) => f[0],
      }),
      reject: fc.boolean(),
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

export function build(d: Desc): SchemaNode {
  const shape = (fields: [string, Desc, boolean][]) =>
    Object.fromEntries(
      fields.map(([k, f, optional]) => [k, optional ? s.optional(build(f)) : build(f)]),
    );
  switch (d.t) {
    case "literal":
      return s.literal(d.v);
    case "enum":
      return s.enum(d.v as [string | number]);
    case "array":
      return s.array(build(d.of));
    case "nullable":
      return s.nullable(build(d.of));
    case "record":
      return s.record(build(d.of));
    case "object":
      return s.object(shape(d.fields), { unknownKeys: d.reject ? "reject" : "ignore" });
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
      right = fc.string({ maxLength: 3 });
      break;
    case "number":
      right = fc.oneof(fc.double({ noNaN: true, noDefaultInfinity: true }), fc.integer());
      break;
    case "integer":
      right = fc.oneof(
        fc.integer(),
        fc.maxSafeInteger(),
        fc.constant(2 ** 53),
        fc.constant(-(2 ** 53)),
      );
      break;
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
      right = fc.array(valueArb(d.of), { maxLength: 3 });
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

export type Expected = { kind: "ok" } | { kind: "type_mismatch" | "missing_field"; path: string };

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

export function reference(d: Desc, v: unknown, path: (string | number)[]): Expected {
  const bad = (): Expected => ({ kind: "type_mismatch", path: pathText(path) });
  const ok: Expected = { kind: "ok" };
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
      return typeof v === "string" ? ok : bad();
    case "number":
      return typeof v === "number" && Number.isFinite(v) ? ok : bad();
    case "integer":
      return Number.isSafeInteger(v) ? ok : bad();
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
      for (let i = 0; i < v.length; i++) {
        const r = reference(d.of, v[i], [...path, i]);
        if (r.kind !== "ok") return r;
      }
      return ok;
    }
    case "record": {
      if (!isObj(v)) return bad();
      for (const k of Object.keys(v)) {
        const r = reference(d.of, v[k], [...path, k]);
        if (r.kind !== "ok") return r;
      }
      return ok;
    }
    case "object": {
      if (!isObj(v)) return bad();
      const r = fieldsCheck(v, d.fields);
      if (r.kind !== "ok" || !d.reject) return r;
      const unknown = Object.keys(v).find((k) => !d.fields.some(([f]) => f === k));
      return unknown === undefined
        ? ok
        : { kind: "type_mismatch", path: pathText([...path, unknown]) };
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
