// Constraints of the schema builder: what each accepts and rejects, the `constraint` errors
// they give, every issue with `issues: "all"`. These tests also run where code generation is
// forbidden (codegen_test.ts), so both paths pass them.
import assert from "node:assert/strict";
import { json, type JsonError, type Schema, schema as s } from "../../lib/json/mod.ts";
import { checkPath } from "../../lib/json/_compile.ts";
import { FORMAT_SAMPLES } from "./_schema_arbitraries.ts";

let codeGeneration = true;
try {
  new Function("return 1");
} catch {
  codeGeneration = false;
}

function error(text: string, schema: Schema): JsonError {
  const result = json.decode(text, schema);
  assert.ok(!result.ok, `${text} passed`);
  return result.error;
}

const ok = (text: string, schema: Schema) => json.decode(text, schema).ok;

Deno.test("a schema runs the generated check where code generation is allowed, else the walk", () => {
  const S = s.object({ title: s.string({ maxLength: 3 }) });
  assert.ok(ok('{"title":"abc"}', S));
  assert.equal(checkPath(S), codeGeneration ? "generated" : "reference");
});

Deno.test("a constraint error names the path, the constraint, its limit, and what was found", () => {
  const Post = s.object({ title: s.string({ minLength: 1, maxLength: 200 }) });
  assert.deepEqual(error(JSON.stringify({ title: "x".repeat(241) }), Post), {
    kind: "constraint",
    constraint: "maxLength",
    limit: 200,
    path: "$.title",
    message: "$.title: must be at most 200 characters, got 241",
  });
  assert.equal(error('{"title":""}', Post).message, "$.title: must be at least 1 character, got 0");
});

Deno.test("string lengths count code points, not UTF-16 units", () => {
  const Two = s.string({ minLength: 2, maxLength: 2 });
  assert.ok(ok('"😀😀"', Two)); // four UTF-16 units
  assert.ok(ok('"é😀"', Two));
  assert.equal((error('"😀"', Two) as { constraint: string }).constraint, "minLength");
  assert.equal((error('"😀😀😀"', Two) as { constraint: string }).constraint, "maxLength");
  assert.ok(ok('"\\ud800\\ud800"', Two)); // lone surrogates count one each
});

Deno.test("a pattern is tested on strings within the length limits, and keeps no state", () => {
  const Slug = s.string({ pattern: /^[a-z-]+$/g, maxLength: 8 });
  for (let i = 0; i < 3; i++) assert.ok(ok('"a-b"', Slug)); // no lastIndex carried over
  const e = error('"A"', Slug);
  assert.deepEqual(e.kind === "constraint" && [e.constraint, e.limit], ["pattern", "^[a-z-]+$"]);
  assert.equal(e.message, "$: must match /^[a-z-]+$/");
  // too long: the length is reported, the pattern never runs
  const long = error(JSON.stringify("A".repeat(9)), Slug);
  assert.equal(long.kind === "constraint" && long.constraint, "maxLength");
});

Deno.test("formats accept what their grammar allows and nothing else", () => {
  const valid: Record<string, string[]> = {
    email: ["a@b.co", "a.b@c-d.ef", "a+tag@mail.example.org", "A@B.CO"],
    uri: [
      "https://example.com/a?b#c",
      "mailto:a@b.co",
      "urn:isbn:0451450523",
      "http://user@host:8080/p",
      "file:///etc/passwd",
      "http://x/%41",
      "http://[::1]:80/",
      "a:",
      "HTTP://EX.COM",
      "x:y:z",
      "http://x?q=a/b?c",
    ],
    uuid: ["123e4567-e89b-12d3-a456-426614174000", "123E4567-E89B-12D3-A456-426614174000"],
    date: ["2024-02-29", "2000-02-29", "2024-04-30", "2024-12-31"],
    "date-time": [
      "2024-01-01T00:00:00Z",
      "2024-01-01t00:00:00z",
      "2024-06-30T23:59:60Z",
      "2024-06-30T22:59:60-01:00", // 23:59:60 UTC

      "2024-01-01T00:00:00.123+05:30",
    ],
  };
  for (const [format, samples] of Object.entries(FORMAT_SAMPLES)) {
    const S = s.string({ format: format as never });
    for (const sample of samples) {
      const expected = valid[format].includes(sample);
      assert.equal(ok(JSON.stringify(sample), S), expected, `${format}: ${sample}`);
    }
    const e = error('""', S);
    assert.deepEqual(e.kind === "constraint" && [e.constraint, e.limit], ["format", format]);
  }
  assert.equal(error('"x"', s.string({ format: "email" })).message, "$: must be an email address");
  // lengths and formats of other grammars: a space separator, an offset without colon
  const DateTime = s.string({ format: "date-time" });
  for (const text of ["2024-01-01 00:00:00Z", "2024-01-01T00:00:00+0100", "2024-01-01T00:00Z"]) {
    assert.equal(ok(JSON.stringify(text), DateTime), false, text);
  }
});

Deno.test("number and integer bounds, exclusive bounds and multiples", () => {
  const N = s.number({ minimum: 0, maximum: 10, multipleOf: 0.5 });
  assert.ok(ok("0", N) && ok("10", N) && ok("2.5", N));
  const kinds = (text: string, S: Schema) => {
    const e = error(text, S);
    return e.kind === "constraint" ? [e.constraint, e.limit, e.message] : e.kind;
  };
  assert.deepEqual(kinds("-1", N), ["minimum", 0, "$: must be at least 0, got -1"]);
  assert.deepEqual(kinds("10.5", N), ["maximum", 10, "$: must be at most 10, got 10.5"]);
  assert.deepEqual(kinds("2.25", N), ["multipleOf", 0.5, "$: must be a multiple of 0.5, got 2.25"]);
  const Id = s.integer({ exclusiveMinimum: 0, exclusiveMaximum: 100 });
  assert.ok(ok("1", Id) && ok("99", Id));
  assert.deepEqual(kinds("0", Id), ["exclusiveMinimum", 0, "$: must be more than 0, got 0"]);
  assert.deepEqual(kinds("100", Id), [
    "exclusiveMaximum",
    100,
    "$: must be less than 100, got 100",
  ]);
  assert.equal(error("1.5", Id).kind, "type_mismatch"); // the type first
});

Deno.test("array item counts and unique items, record and object member counts", () => {
  const Tags = s.array(s.any(), { minItems: 1, maxItems: 3, uniqueItems: true });
  assert.ok(ok('["a", 1, {"a": 1, "b": 2}, ]'.replace(", ]", "]"), Tags));
  const constraint = (text: string, S: Schema) => {
    const e = error(text, S);
    return e.kind === "constraint" ? [e.constraint, e.message] : e.message;
  };
  assert.deepEqual(constraint("[]", Tags), ["minItems", "$: must have at least 1 item, got 0"]);
  assert.deepEqual(constraint("[1,2,3,4]", Tags), [
    "maxItems",
    "$: must have at most 3 items, got 4",
  ]);
  // equal as JSON values: members in any order, 1 and 1.0
  assert.equal(constraint('[{"a":1,"b":2},{"b":2,"a":1}]', Tags)[0], "uniqueItems");
  assert.equal(constraint("[1, 1.0]", Tags)[0], "uniqueItems");
  assert.ok(ok('["1", 1]', Tags));
  const Map = s.record(s.integer(), { maxProperties: 1 });
  assert.deepEqual(constraint('{"a":1,"b":2}', Map), [
    "maxProperties",
    "$: must have at most 1 members, got 2",
  ]);
  const Small = s.object({ a: s.integer() }, { maxProperties: 2 });
  assert.ok(ok('{"a":1,"b":2}', Small));
  assert.equal(constraint('{"a":1,"b":2,"c":3}', Small)[0], "maxProperties");
  // encoding counts the members it writes
  assert.equal(json.encode({ a: 1, b: 2, c: 3 } as never, Small), '{"a":1}');
});

Deno.test("unique items compare members the schema does not name, however deep they nest", () => {
  // such members are not checked, so the 512-level limit does not apply to them; comparing
  // the items walked them recursively, and 20,000 levels were a RangeError out of json.decode
  // (a 500 from ctx.decode) instead of an answer
  const Items = s.array(s.object({ a: s.string() }), { uniqueItems: true });
  const deep = (n: number, leaf: string) => "[".repeat(n) + leaf + "]".repeat(n);
  const item = (leaf: string) => `{"a":"x","extra":${deep(100_000, leaf)}}`;
  const result = json.decode(`[${item("1")},${item("2")}]`, Items);
  assert.ok(result.ok && result.value.length === 2);
  const repeat = error(`[${item("1")},${item("1")}]`, Items);
  assert.equal(repeat.message, "$: must have unique items, [1] repeats one");
  // the same on the Standard Schema face, for values that never were JSON text
  const shared: unknown[] = [];
  let value: unknown[] = shared;
  for (let i = 0; i < 100_000; i++) value = [value];
  const items = [{ a: "x", extra: value }, { a: "x", extra: [value] }];
  assert.deepEqual(Items["~standard"].validate(items), { value: items });
  const cyclic: Record<string, unknown> = { a: "x" };
  cyclic.self = cyclic; // as JSON.stringify would, comparing such a value throws a TypeError
  assert.throws(() => Items["~standard"].validate([cyclic, { a: "x" }]), {
    name: "TypeError",
    message: "Cannot compare items: an item contains itself",
  });
});

Deno.test('json.decode() reports every issue with issues: "all", at most 100', () => {
  const Form = s.object({
    title: s.string({ maxLength: 3 }),
    id: s.integer({ minimum: 1 }),
    email: s.string({ format: "email" }),
    tags: s.array(s.string({ minLength: 1 })),
  }, { unknownKeys: "reject" });
  const text = '{"title":"long","email":"x","tags":["", "ok", ""],"extra":1,"more":2}';
  const result = json.decode(text, Form, { issues: "all" });
  assert.ok(!result.ok);
  assert.deepEqual(result.issues?.map((e) => e.message), [
    "$.title: must be at most 3 characters, got 4",
    'Missing required field "id" at $.id',
    "$.email: must be an email address",
    "$.tags[0]: must be at least 1 character, got 0",
    "$.tags[2]: must be at least 1 character, got 0",
    'unexpected field "extra" at $.extra',
    'unexpected field "more" at $.more',
  ]);
  assert.deepEqual(result.error, result.issues?.[0]);
  const first = json.decode(text, Form);
  assert.deepEqual(first, { ok: false, error: result.error });
  const many = json.decode(JSON.stringify(Array(500).fill("x")), s.array(s.integer()), {
    issues: "all",
  });
  assert.equal(!many.ok && many.issues?.length, 100);
});

Deno.test("the builders reject constraints that cannot hold", () => {
  assert.throws(() => s.string({ minLength: -1 }), /minLength is a non-negative integer/);
  assert.throws(() => s.string({ minLength: 3, maxLength: 2 }), /minLength 3 is more than/);
  assert.throws(() => s.string({ pattern: "a" as never }), /pattern is a RegExp/);
  assert.throws(() => s.string({ format: "ipv4" as never }), /format is one of/);
  assert.throws(() => s.number({ minimum: Number.NaN }), /minimum is a finite number/);
  assert.throws(() => s.integer({ multipleOf: 0 }), /multipleOf is more than 0/);
  for (
    const bounds of [
      { exclusiveMinimum: 5, exclusiveMaximum: 1 },
      { exclusiveMinimum: 1, exclusiveMaximum: 1 },
      { minimum: 1, exclusiveMaximum: 1 },
      { exclusiveMinimum: 3, maximum: 3 },
      { minimum: 4, exclusiveMaximum: 2 },
    ]
  ) {
    assert.throws(() => s.number(bounds), /its bounds leave no number between them/);
  }
  // bounds that leave numbers but no integer refuse every value of an integer schema
  for (
    const bounds of [
      { minimum: 1.2, maximum: 1.8 },
      { exclusiveMinimum: 1, exclusiveMaximum: 2 },
      { exclusiveMinimum: 1.5, maximum: 1.9 },
      { minimum: 1.1, exclusiveMaximum: 2 },
    ]
  ) {
    assert.throws(() => s.integer(bounds), /its bounds leave no integer between them/);
    s.number(bounds); // a number schema keeps them
  }
  for (
    const [bounds, value] of [
      [{ minimum: 1.2, maximum: 2 }, 2],
      [{ exclusiveMinimum: 1, exclusiveMaximum: 3 }, 2],
      [{ exclusiveMinimum: 1.5, maximum: 2.5 }, 2],
      [{ minimum: -0.5, exclusiveMaximum: 0.5 }, 0],
    ] as const
  ) {
    assert.deepEqual(json.decode(String(value), s.integer(bounds)), { ok: true, value });
  }
  // bounds that meet, inclusively, still hold one number
  assert.deepEqual(json.decode("1", s.number({ minimum: 1, maximum: 1, exclusiveMinimum: 0 })), {
    ok: true,
    value: 1,
  });
  assert.throws(() => s.array(s.string(), { maxItems: 1.5 }), /maxItems/);
  assert.throws(() => s.array(s.string(), { uniqueItems: 1 as never }), /uniqueItems/);
  assert.throws(() => s.record(s.string(), { maxProperties: -2 }), /maxProperties/);
  assert.throws(() => s.object({}, { maxProperties: Infinity }), /maxProperties/);
});
