// Property test of schema checks (fast-check, 10,000 runs): generated schemas and values
// that mostly conform, against the reference checker of _schema_arbitraries.ts. Each case
// runs on a fresh schema (the generic path) and again once the schema is hot (its own
// copies of the object checks, lib/json/_shapes.ts).
import assert from "node:assert/strict";
import fc from "fast-check";
import { json, type JsonError } from "../../lib/json/mod.ts";
import { freeCopies } from "../../lib/json/_shapes.ts";
import { compiled } from "../../lib/json/_check.ts";
import { build, descArb, heat, reference, valueArb } from "./_schema_arbitraries.ts";

const RUNS = { numRuns: 10_000 };

Deno.test("json.decode() gives exactly one of ok, type_mismatch, missing_field, with the right path", () => {
  const cases = descArb.chain((d) => fc.tuple(fc.constant(d), valueArb(d)));
  const seen = { ok: 0, type_mismatch: 0, missing_field: 0 };
  fc.assert(
    fc.property(cases, ([d, value]) => {
      const schema = build(d);
      const text = JSON.stringify(value);
      const result = json.decode(text, schema);
      const expected = reference(d, JSON.parse(text), []);
      // the fast pass answers alone, before the slow pass names a failure
      const fast = () => compiled(schema)!.check(JSON.parse(text), 1);
      assert.equal(fast(), expected.kind === "ok", `check of ${text}`);
      if (expected.kind === "ok") {
        assert.ok(result.ok, `${text}: ${!result.ok && result.error.message}`);
        assert.deepStrictEqual(result.value, JSON.parse(text));
      } else {
        assert.ok(!result.ok, `${text} passed`);
        const error: JsonError = result.error;
        assert.equal(error.kind, expected.kind, `${text}: ${error.message}`);
        assert.equal("path" in error ? error.path : undefined, expected.path, text);
        if (error.kind === "missing_field") {
          const field = error.field;
          assert.ok(
            error.path.endsWith(`.${field}`) || error.path.endsWith(`[${JSON.stringify(field)}]`),
          );
        }
      }
      seen[expected.kind]++;
      // the Standard Schema face agrees
      const standard = schema["~standard"].validate(JSON.parse(text));
      assert.equal("issues" in standard && standard.issues !== undefined, !result.ok);
      // and so does the hot schema
      freeCopies();
      heat(() => json.decode(text, schema));
      assert.deepStrictEqual(json.decode(text, schema), result);
      assert.equal(fast(), expected.kind === "ok", `hot check of ${text}`);
      assert.deepStrictEqual(schema["~standard"].validate(JSON.parse(text)), standard);
    }),
    RUNS,
  );
  // the generator reaches every outcome often
  for (const count of Object.values(seen)) assert.ok(count > 500, JSON.stringify(seen));
});
