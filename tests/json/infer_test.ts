// Type-level tests: `deno test` type-checks this file; each @ts-expect-error must be an error.
import assert from "node:assert/strict";
import { type Infer, json, type JsonValue, schema as s } from "../../lib/json/mod.ts";
import { z } from "zod";

type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends (<T>() => T extends B ? 1 : 2) ? true
  : false;
function expectType<T extends true>(_: T): void {}

const User = s.object({
  id: s.integer(),
  name: s.string(),
  nick: s.optional(s.string()),
  bio: s.nullable(s.string()),
  role: s.enum(["admin", "user"]),
  kind: s.literal("person"),
  tags: s.array(s.string()),
  prefs: s.record(s.boolean()),
  extra: s.any(),
  pet: s.union("type", [
    s.object({ type: s.literal("dog"), barks: s.boolean() }),
    s.object({ type: s.literal("cat"), lives: s.integer() }),
  ]),
});
type User = Infer<typeof User>;

Deno.test("Infer gives each schema its TypeScript type", () => {
  expectType<Equal<Infer<ReturnType<typeof s.string>>, string>>(true);
  expectType<Equal<Infer<ReturnType<typeof s.null>>, null>>(true);
  expectType<Equal<User["id"], number>>(true);
  expectType<Equal<User["nick"], string | undefined>>(true);
  expectType<Equal<User["bio"], string | null>>(true);
  expectType<Equal<User["role"], "admin" | "user">>(true);
  expectType<Equal<User["kind"], "person">>(true);
  expectType<Equal<User["tags"], string[]>>(true);
  expectType<Equal<User["prefs"], Record<string, boolean>>>(true);
  expectType<Equal<User["extra"], JsonValue>>(true);
  expectType<
    Equal<User["pet"], { type: "dog"; barks: boolean } | { type: "cat"; lives: number }>
  >(true);
  expectType<Equal<Infer<z.ZodString>, string>>(true);

  const ok: User = {
    id: 1,
    name: "Ada",
    bio: null,
    role: "admin",
    kind: "person",
    tags: [],
    prefs: {},
    extra: [1, { a: null }],
    pet: { type: "cat", lives: 9 },
  };
  // @ts-expect-error a required member is missing
  const missing: User = { ...ok, name: undefined };
  // @ts-expect-error a literal outside the enum
  const badRole: User = { ...ok, role: "root" };
  // @ts-expect-error the union variant's members do not match its tag
  const badPet: User = { ...ok, pet: { type: "dog", lives: 9 } };
  // @ts-expect-error integers are still numbers, not strings
  const badId: User = { ...ok, id: "1" };
  // @ts-expect-error nick is optional but not nullable
  const nullNick: User = { ...ok, nick: null };
  assert.ok([missing, badRole, badPet, badId, nullNick]);
});

Deno.test("json.decode() and json.encode() carry the schema's type", () => {
  const result = json.decode("{}", User);
  if (result.ok) {
    expectType<Equal<typeof result.value, User>>(true);
    // @ts-expect-error no such member in the type
    result.value.password;
  } else {
    expectType<
      Equal<
        typeof result.error.kind,
        | "syntax_error"
        | "type_mismatch"
        | "missing_field"
        | "constraint"
        | "unexpected_field"
        | "invalid"
      >
    >(
      true,
    );
  }
  const zResult = json.decode("1", z.number());
  if (zResult.ok) expectType<Equal<typeof zResult.value, number>>(true);
  // @ts-expect-error the value does not match the schema's type
  assert.throws(() => json.encode({ id: "x" }, User));
  // @ts-expect-error a schema is required to decode
  assert.throws(() => json.decode("1"), TypeError);
  // @ts-expect-error a union needs literal discriminators
  assert.throws(() => s.union("t", [s.object({ t: s.string() })]));
});

Deno.test("json.encode() takes only Weft schemas", () => {
  // @ts-expect-error a zod schema cannot drive the encoder
  assert.throws(() => json.encode("x", z.string()), TypeError);
});
