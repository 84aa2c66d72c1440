import assert from "node:assert/strict";
import {
  isWeftSchema,
  json,
  schema as s,
  type StandardSchemaV1,
  type StandardSchemaV1Result,
} from "../../lib/json/mod.ts";

function validate<T>(schema: StandardSchemaV1<T>, value: unknown): StandardSchemaV1Result<T> {
  const result = schema["~standard"].validate(value);
  assert.ok(!(result instanceof Promise));
  return result;
}

Deno.test("schema builds immutable, Standard Schema v1 schemas", () => {
  const User = s.object({ name: s.string() });
  assert.equal(User["~standard"].version, 1);
  assert.equal(User["~standard"].vendor, "weft");
  assert.equal(typeof User["~standard"].validate, "function");
  assert.ok(Object.isFrozen(User));
  assert.ok(Object.isFrozen(User.shape));
  assert.ok(isWeftSchema(User));
  assert.ok(!isWeftSchema({ ...User, "~standard": User["~standard"] }));
  assert.deepEqual(Object.keys(User), ["kind", "shape", "unknownKeys"]);
});

Deno.test("schema's ~standard.validate returns the value or issues with a path", () => {
  const Order = s.object({ items: s.array(s.object({ qty: s.integer() })) });
  assert.deepEqual(validate(Order, { items: [{ qty: 1 }] }), { value: { items: [{ qty: 1 }] } });
  assert.deepEqual(validate(Order, { items: [{ qty: 1 }, { qty: "2" }] }), {
    issues: [{
      message: 'Expected integer at $.items[1].qty, got the string "2"',
      path: ["items", 1, "qty"],
    }],
  });
  assert.deepEqual(validate(Order, { items: [{}] }), {
    issues: [{
      message: 'Missing required field "qty" at $.items[0].qty',
      path: ["items", 0, "qty"],
    }],
  });
});

Deno.test("schema's ~standard.validate handles values that are not JSON", () => {
  const Anything = s.any();
  assert.ok("issues" in validate(Anything, { a: undefined }));
  assert.ok("issues" in validate(Anything, [() => 1]));
  assert.ok("issues" in validate(Anything, Number.NaN));
  assert.ok("issues" in validate(Anything, 1n));
  const cyclic: Record<string, unknown> = {};
  cyclic.self = cyclic;
  const result = validate(Anything, cyclic);
  assert.ok(result.issues);
  assert.match(result.issues[0].message, /Nesting deeper than 512 levels/);
  const Optional = s.object({ a: s.optional(s.string()) });
  assert.deepEqual(validate(Optional, { a: undefined }), { value: { a: undefined } });
  const Strict = s.object({ a: s.optional(s.string()) }, { unknownKeys: "reject" });
  assert.ok("value" in validate(Strict, { a: undefined }));
  assert.ok("issues" in validate(Strict, { b: undefined }));
  const Required = s.object({ a: s.string() });
  assert.equal(validate(Required, { a: undefined }).issues?.[0].path?.[0], "a");
});

Deno.test("schema's builders reject what cannot be a schema", () => {
  assert.throws(() => s.array({} as never), {
    name: "TypeError",
    message: "Cannot build an array schema: not a Weft schema",
  });
  assert.throws(() => s.object({ a: "string" as never }), /member "a"/);
  assert.throws(() => s.literal(undefined as never), TypeError);
  assert.throws(() => s.literal(Number.POSITIVE_INFINITY), TypeError);
  assert.throws(() => s.enum([] as never), TypeError);
  assert.throws(() => s.enum([{}] as never), TypeError);
  assert.throws(() => s.object({}, { unknownKeys: "strip" as never }), TypeError);
  assert.throws(
    () => s.union("kind", [s.object({ kind: s.string() }) as never]),
    /every variant must be an object schema with a literal "kind"/,
  );
  assert.throws(
    () =>
      s.union("t", [
        s.object({ t: s.literal("a") }),
        s.object({ t: s.literal("a"), x: s.number() }),
      ]),
    /"a" is used twice/,
  );
  // an array has no absent item: an optional one was written as null by json.encode, and the
  // same schema refused that null on decoding
  for (const item of [s.optional(s.string()), s.nullable(s.optional(s.string()))]) {
    assert.throws(() => s.array(item), {
      name: "TypeError",
      message: "Cannot build an array schema: an item cannot be optional (use nullable)",
    });
  }
  assert.equal(s.array(s.nullable(s.string())).kind, "array");
  assert.equal(s.optional(s.array(s.string())).kind, "optional");
});

Deno.test("schema.literal() and schema.enum() compare with ===", () => {
  assert.ok(json.decode("null", s.literal(null)).ok);
  assert.ok(json.decode("false", s.literal(false)).ok);
  assert.ok(!json.decode("0", s.literal(false)).ok);
  assert.ok(!json.decode('"1"', s.enum([1, 2])).ok);
});

Deno.test("schema.union() discriminates on numbers and booleans too", () => {
  const Result = s.union("ok", [
    s.object({ ok: s.literal(true), value: s.number() }),
    s.object({ ok: s.literal(false), error: s.string() }),
  ]);
  assert.ok(json.decode('{"ok":false,"error":"x"}', Result).ok);
  assert.ok(!json.decode('{"ok":true,"error":"x"}', Result).ok);
});
