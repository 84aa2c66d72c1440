// json.decode() with other libraries' Standard Schema v1 validators as the target.
import assert from "node:assert/strict";
import { z } from "zod";
import * as v from "valibot";
import {
  json,
  type JsonError,
  jsonErrorResponse,
  schema,
  type StandardSchemaV1,
} from "../../lib/json/mod.ts";
import { post, router } from "../../mod.ts";

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

Deno.test("json.decode() maps zod's unrecognized keys to unexpected_field at each key", () => {
  const Strict = z.strictObject({ a: z.number() });
  const result = json.decode('{"a":1,"b":2,"c":3}', Strict, { issues: "all" });
  assert.ok(!result.ok);
  assert.deepEqual(result.issues?.map((e) => [e.kind, "path" in e && e.path]), [
    ["unexpected_field", "$.b"],
    ["unexpected_field", "$.c"],
  ]);
});

Deno.test("json.decode() throws for an asynchronous or throwing validator: its fault, not the input's", () => {
  const asynchronous: StandardSchemaV1<number> = {
    "~standard": { version: 1, vendor: "test", validate: () => Promise.resolve({ value: 1 }) },
  };
  assert.throws(() => json.decode("1", asynchronous), {
    name: "TypeError",
    message: /the "test" validator is asynchronous/,
  });
  const boom = new Error("boom");
  const throwing: StandardSchemaV1<number> = {
    "~standard": {
      version: 1,
      vendor: "test",
      validate: () => {
        throw boom;
      },
    },
  };
  assert.throws(() => json.decode("1", throwing), {
    message: /the "test" validator threw/,
    cause: boom,
  });
  const zAsync = z.string().refine(() => Promise.resolve(true));
  assert.throws(() => json.decode('"x"', zAsync));
  // a syntax error is still the input's: answered before the validator runs
  assert.equal(failure(json.decode("{", throwing)).kind, "syntax_error");
});

Deno.test("ctx.decode() with a throwing validator is a reported 500, its message kept from the client", async () => {
  const reported: unknown[] = [];
  const throwing = schema.standard({
    "~standard": {
      version: 1,
      vendor: "test",
      validate: () => {
        throw new Error("secret detail");
      },
    },
  } as StandardSchemaV1<number>);
  const app = router([post("/", async (ctx) => {
    const result = await ctx.decode(throwing);
    return result.ok ? ctx.json(result.value) : jsonErrorResponse(result.error);
  })], { onError: (error) => void reported.push(error) });
  const headers = { "content-type": "application/json" };
  const res = await app.fetch(
    new Request("http://localhost/", { method: "POST", headers, body: "1" }),
  );
  assert.equal(res.status, 500);
  assert.doesNotMatch(await res.text(), /secret detail/);
  assert.equal(reported.length, 1);
  assert.match(String((reported[0] as Error).cause), /secret detail/);
});

Deno.test("json.decode() uses a foreign validator's transformed output", () => {
  const Trimmed = z.string().transform((text) => text.trim());
  assert.deepEqual(json.decode('"  x "', Trimmed), { ok: true, value: "x" });
});

const zPost = z.object({
  title: z.string().min(1).max(5),
  id: z.int().positive(),
  email: z.email(),
  tags: z.array(z.string()).max(1),
  code: z.string().regex(/^[a-z]+$/),
  step: z.number().multipleOf(5),
  kind: z.literal("post"),
  note: z.string().refine((text) => text !== "no", "not no"),
});
const vPost = v.object({
  title: v.pipe(v.string(), v.minLength(1), v.maxLength(5)),
  id: v.pipe(v.number(), v.integer(), v.minValue(1)),
  email: v.pipe(v.string(), v.email()),
  tags: v.pipe(v.array(v.string()), v.maxLength(1)),
  code: v.pipe(v.string(), v.regex(/^[a-z]+$/)),
  step: v.pipe(v.number(), v.multipleOf(5)),
  kind: v.literal("post"),
  note: v.pipe(v.string(), v.check((text) => text !== "no", "not no")),
});
const BAD_POST = JSON.stringify({
  title: "too long",
  id: 0,
  email: "nope",
  tags: ["a", "b"],
  code: "A1",
  step: 7,
  kind: "page",
  note: "no",
});

for (const [library, Post] of [["zod 4", zPost], ["valibot", vPost]] as const) {
  Deno.test(`json.decode() passes every ${library} issue through with its path and message`, () => {
    const result = json.decode(BAD_POST, Post, { issues: "all" });
    assert.ok(!result.ok && result.issues !== undefined);
    assert.deepEqual(result.error, result.issues[0]);
    const seen = result.issues.map((e) => [
      "path" in e && e.path,
      e.kind,
      e.kind === "constraint" ? e.constraint : e.kind === "type_mismatch" ? e.expected : "",
    ]);
    assert.deepEqual(seen, [
      ["$.title", "constraint", "maxLength"],
      ["$.id", "constraint", library === "zod 4" ? "exclusiveMinimum" : "minimum"],
      ["$.email", "constraint", "format"],
      ["$.tags", "constraint", library === "zod 4" ? "maxItems" : "maxLength"],
      ["$.code", "constraint", "pattern"],
      ["$.step", "constraint", "multipleOf"],
      ["$.kind", "type_mismatch", '"post"'],
      [
        "$.note",
        library === "zod 4" ? "invalid" : "constraint",
        library === "zod 4" ? "" : "check",
      ],
    ]);
    for (const e of result.issues) {
      assert.ok(e.kind !== "type_mismatch" || e.expected !== "valid value", e.message);
      assert.ok(e.message.includes("$."), e.message);
    }
    // by default, only the first
    const first = json.decode(BAD_POST, Post);
    assert.ok(!first.ok && first.issues === undefined);
    assert.deepEqual(first.error, result.issues[0]);
  });
}
