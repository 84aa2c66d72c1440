// Property test of json.encode (fast-check, 10,000 runs): generated schemas and values that
// mostly conform, against a reference projection written here and the reference projection of
// lib/json/_project.ts. The text must be exactly JSON.stringify of the reference (members in
// shape order, unknown ones dropped), from a fresh schema and from a hot one.
import assert from "node:assert/strict";
import fc from "fast-check";
import { json } from "../../lib/json/mod.ts";
import { FAIL as LIB_FAIL, project as libProject } from "../../lib/json/_project.ts";
import {
  brokenRule,
  build,
  type Desc,
  descArb,
  heat,
  isObj,
  same,
  valueArb,
} from "./_schema_arbitraries.ts";

const RUNS = { numRuns: 10_000 };

const FAIL = Symbol("fail");

function project(d: Desc, v: unknown): unknown {
  const fields = (o: Record<string, unknown>, list: [string, Desc, boolean][]) => {
    const out: Record<string, unknown> = {};
    for (const [k, f, optional] of list) {
      const x = Object.hasOwn(o, k) ? o[k] : undefined;
      if (x === undefined) {
        if (optional) continue;
        return FAIL;
      }
      const y = project(f, x);
      if (y === FAIL) return FAIL;
      out[k] = y;
    }
    return out;
  };
  switch (d.t) {
    case "string":
      return typeof v === "string" && brokenRule(d.c, v) === undefined ? v : FAIL;
    case "number":
      return typeof v === "number" && Number.isFinite(v) && brokenRule(d.c, v) === undefined
        ? v
        : FAIL;
    case "integer":
      return Number.isSafeInteger(v) && brokenRule(d.c, v as number) === undefined ? v : FAIL;
    case "boolean":
      return typeof v === "boolean" ? v : FAIL;
    case "null":
      return v === null ? v : FAIL;
    case "any":
      return v === undefined ? FAIL : v;
    case "literal":
      return v === d.v ? v : FAIL;
    case "enum":
      return d.v.includes(v as string) ? v : FAIL;
    case "nullable":
      return v === null ? v : project(d.of, v);
    case "array": {
      if (!Array.isArray(v)) return FAIL;
      if (v.length < (d.c?.minItems ?? 0) || v.length > (d.c?.maxItems ?? Infinity)) return FAIL;
      const out = v.map((x) => project(d.of, x));
      if (out.includes(FAIL)) return FAIL;
      // the items as written must be unique
      return d.c?.uniqueItems && out.some((x, i) => out.slice(0, i).some((y) => same(x, y)))
        ? FAIL
        : out;
    }
    case "record": {
      if (!isObj(v)) return FAIL;
      if (Object.keys(v).length > (d.c?.maxProperties ?? Infinity)) return FAIL;
      const out: Record<string, unknown> = {};
      for (const k of Object.keys(v)) {
        const y = project(d.of, v[k]);
        if (y === FAIL) return FAIL;
        out[k] = y;
      }
      return out;
    }
    case "object": {
      if (!isObj(v)) return FAIL;
      const out = fields(v, d.fields); // unknown members are dropped, never rejected
      const max = d.c?.maxProperties ?? Infinity;
      return out !== FAIL && Object.keys(out).length > max ? FAIL : out;
    }
    case "union": {
      if (!isObj(v) || !Object.hasOwn(v, "t")) return FAIL;
      const variant = d.variants.find(([tag]) => tag === v.t);
      if (variant === undefined) return FAIL;
      const out = fields(v, variant[1].filter(([k]) => k !== "t"));
      return out === FAIL ? FAIL : { ...out, t: v.t };
    }
  }
}

Deno.test("json.encode() writes exactly the schema's projection, or throws a TypeError", () => {
  const cases = descArb.chain((d) => fc.tuple(fc.constant(d), valueArb(d)));
  const seen = { written: 0, thrown: 0 };
  fc.assert(
    fc.property(cases, ([d, value]) => {
      const schema = build(d);
      const expected = project(d, value);
      const encode = () => json.encode(value as never, schema);
      const walked = libProject(schema, value);
      assert.equal(walked === LIB_FAIL, expected === FAIL, "lib reference projection");
      if (walked !== LIB_FAIL) assert.equal(JSON.stringify(walked), JSON.stringify(expected));
      for (const hot of [false, true]) {
        if (hot) heat(() => expected === FAIL || encode());
        if (expected === FAIL) {
          assert.throws(encode, TypeError);
        } else {
          const text = encode();
          assert.equal(text, JSON.stringify(expected));
          assert.ok(json.decode(text, schema).ok, text);
        }
      }
      seen[expected === FAIL ? "thrown" : "written"]++;
    }),
    RUNS,
  );
  for (const count of Object.values(seen)) assert.ok(count > 1_000, JSON.stringify(seen));
});
