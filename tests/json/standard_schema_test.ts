// json.decode() with other libraries' Standard Schema v1 validators as the target.
import assert from "node:assert/strict";
import { z } from "zod";
import * as v from "valibot";
import { json, type JsonError, type StandardSchemaV1 } from "../../lib/json/mod.ts";

function failure(result: { ok: boolean; error?: JsonError }): JsonError {
  assert.ok(!result.ok && result.error);
  return result.error;
}

const zUser = z.object({
  name: z.string(),
  age: z.int(),
  role: z.enum(["admin", "user"]),
  address: z.object({ city: z.string() }),
  tags: z.array(z.string()),
});
const vUser = v.object({
  name: v.string(),
  age: v.pipe(v.number(), v.integer()),
  role: v.picklist(["admin", "user"]),
  address: v.object({ city: v.string() }),
  tags: v.array(v.string()),
});
const GOOD = '{"name":"Ada","age":36,"role":"admin","address":{"city":"Bern"},"tags":["a"]}';

for (const [library, User] of [["zod 4", zUser], ["valibot", vUser]] as const) {
  Deno.test(`json.decode() accepts a ${library} schema and returns its typed output`, () => {
    const result = json.decode(new TextEncoder().encode(GOOD), User as StandardSchemaV1);
    assert.deepEqual(result, { ok: true, value: JSON.parse(GOOD) });
  });

  Deno.test(`json.decode() maps a ${library} missing member to missing_field`, () => {
    const e = failure(
      json.decode('{"name":"Ada","age":36,"role":"admin","address":{},"tags":[]}', User),
    );
    assert.equal(e.kind, "missing_field");
    assert.equal(e.kind === "missing_field" && e.field, "city");
    assert.equal(e.kind === "missing_field" && e.path, "$.address.city");
  });

  Deno.test(`json.decode() maps a ${library} wrong type to type_mismatch with expected`, () => {
    const e = failure(
      json.decode('{"name":"Ada","age":36,"role":"admin","address":{"city":"B"},"tags":[1]}', User),
    );
    assert.equal(e.kind, "type_mismatch");
    assert.equal(e.kind === "type_mismatch" && e.path, "$.tags[0]");
    assert.equal(e.kind === "type_mismatch" && e.expected, "string");
    const literal = failure(
      json.decode('{"name":"Ada","age":36,"role":"root","address":{"city":"B"},"tags":[]}', User),
    );
    assert.equal(literal.kind === "type_mismatch" && literal.path, "$.role");
    assert.match(literal.kind === "type_mismatch" ? literal.expected : "", /"admin" \| "user"/);
  });

  Deno.test(`json.decode() still reports ${library} targets' syntax errors by byte offset`, () => {
    const e = failure(json.decode('{"name": tru}', User));
    assert.deepEqual({ kind: e.kind, offset: e.kind === "syntax_error" && e.offset }, {
      kind: "syntax_error",
      offset: 12,
    });
  });
}

Deno.test("json.decode() maps zod's unrecognized keys to type_mismatch at the key", () => {
  const Strict = z.strictObject({ a: z.number() });
  const e = failure(json.decode('{"a":1,"b":2}', Strict));
  assert.equal(e.kind === "type_mismatch" && e.path, "$.b");
  assert.equal(e.kind === "type_mismatch" && e.expected, "never");
});

Deno.test("json.decode() turns asynchronous or throwing validators into type_mismatch", () => {
  const asynchronous: StandardSchemaV1<number> = {
    "~standard": { version: 1, vendor: "test", validate: () => Promise.resolve({ value: 1 }) },
  };
  const e = failure(json.decode("1", asynchronous));
  assert.equal(e.kind, "type_mismatch");
  assert.match(e.message, /asynchronous/);
  const throwing: StandardSchemaV1<number> = {
    "~standard": {
      version: 1,
      vendor: "test",
      validate: () => {
        throw new Error("boom");
      },
    },
  };
  assert.match(failure(json.decode("1", throwing)).message, /boom/);
  const zAsync = z.string().refine(() => Promise.resolve(true));
  assert.equal(failure(json.decode('"x"', zAsync)).kind, "type_mismatch");
});

Deno.test("json.decode() uses a foreign validator's transformed output", () => {
  const Trimmed = z.string().transform((text) => text.trim());
  assert.deepEqual(json.decode('"  x "', Trimmed), { ok: true, value: "x" });
});
