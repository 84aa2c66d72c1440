import assert from "node:assert/strict";
import { get, router } from "../../mod.ts";
import { type Infer, json, type Schema, schema as s } from "../../lib/json/mod.ts";
import { useCodeGeneration } from "../../lib/json/_compile.ts";
import { runChild } from "../_child.ts";

const User = s.object({
  id: s.integer(),
  name: s.string(),
  email: s.optional(s.string()),
  roles: s.array(s.enum(["admin", "user"])),
  address: s.nullable(s.object({ city: s.string() })),
});

Deno.test("json.encode() without a schema writes what JSON.stringify writes", () => {
  const value = { a: [1, "x", null, true], b: { c: 1.5 } };
  assert.equal(json.encode(value), JSON.stringify(value));
  assert.equal(json.encode("é"), '"é"');
  assert.throws(() => json.encode(undefined), TypeError);
  assert.throws(() => json.encode(() => 1), TypeError);
});

Deno.test("json.encode() with a schema never writes a member the schema does not name", () => {
  const row: Infer<typeof User> & { passwordHash: string } = {
    id: 1,
    name: "Ada",
    passwordHash: "$argon2id$secret",
    roles: ["admin"],
    address: { city: "Bern", passwordHash: "nested secret" } as { city: string },
  };
  const text = json.encode(row, User);
  assert.doesNotMatch(text, /secret|passwordHash/);
  assert.deepEqual(JSON.parse(text), {
    id: 1,
    name: "Ada",
    roles: ["admin"],
    address: { city: "Bern" },
  });
  assert.equal(row.passwordHash, "$argon2id$secret"); // the input is untouched
});

Deno.test("json.encode() writes members in shape order and omits absent optional ones", () => {
  const value = { roles: [], address: null, name: "B", id: 2 };
  assert.equal(json.encode(value, User), '{"id":2,"name":"B","roles":[],"address":null}');
  const withEmail = { ...value, email: "b@example.com" };
  assert.equal(
    json.encode(withEmail, User),
    '{"id":2,"name":"B","email":"b@example.com","roles":[],"address":null}',
  );
  const undefinedEmail = { ...value, email: undefined };
  assert.equal(json.encode(undefinedEmail, User), '{"id":2,"name":"B","roles":[],"address":null}');
});

Deno.test("json.encode() returns JSON.stringify's text when the value holds exactly the schema", () => {
  const value: Infer<typeof User> = {
    id: 3,
    name: "C",
    email: "c@x",
    roles: ["user"],
    address: { city: "Z" },
  };
  assert.equal(json.encode(value, User), JSON.stringify(value));
});

Deno.test("json.encode() throws a TypeError naming the first mismatch", () => {
  const bad = { id: 1.5, name: "x", roles: [], address: null };
  assert.throws(() => json.encode(bad as never, User), {
    name: "TypeError",
    message: "Cannot encode the value: Expected integer at $.id, got the number 1.5",
  });
  assert.throws(() => json.encode({ id: 1, roles: [], address: null } as never, User), {
    message: 'Cannot encode the value: Missing required field "name" at $.name',
  });
  assert.throws(() => json.encode(Number.NaN, s.number()), TypeError);
  assert.throws(() => json.encode(Infinity, s.number()), TypeError);
  assert.throws(() => json.encode("admin!" as never, s.enum(["admin"])), TypeError);
  assert.throws(() => json.encode(new Date() as never, s.string()), TypeError);
});

Deno.test("json.encode() throws where a schema lets through a value that has no JSON text", async () => {
  // JSON.stringify writes these as nothing (undefined): json.encode returned that, and
  // ctx.json(value, { schema }) answered 200 with an empty application/json body
  const cases: [unknown, Schema][] = [
    [undefined, s.optional(s.string())],
    [undefined, s.optional(s.any())],
    [() => 1, s.any()],
    [Symbol("x"), s.any()],
    [{ toJSON: () => undefined }, s.any()],
    [() => 1, s.nullable(s.any())],
  ];
  for (const enabled of [true, false]) {
    try {
      useCodeGeneration(enabled);
      for (const [value, schema] of cases) {
        assert.throws(() => json.encode(value as never, schema), {
          name: "TypeError",
          message: /^Cannot encode \w+: it has no JSON form$/,
        });
      }
      const reported: unknown[] = [];
      const app = router([
        get("/none", (ctx) => ctx.json(undefined, { schema: s.optional(s.string()) })),
      ], { onError: (error) => void reported.push(error) });
      const res = await app.fetch(new Request("http://localhost/none"));
      assert.equal(res.status, 500);
      await res.body?.cancel();
      assert.match(String(reported[0]), /^TypeError: Cannot encode undefined/);
    } finally {
      useCodeGeneration(undefined);
    }
  }
});

Deno.test("json.encode() compares unique items as it writes them", () => {
  // items that differ as values but are written alike were written twice (a text the same
  // schema refuses), and distinct dates were one item ({} without their toJSON), a TypeError
  const Any = s.array(s.any(), { uniqueItems: true });
  const Maps = s.array(s.record(s.optional(s.string())), { uniqueItems: true });
  const dates = [new Date(0), new Date(1)];
  for (const enabled of [true, false]) {
    try {
      useCodeGeneration(enabled);
      const text = json.encode(dates as never, Any);
      assert.equal(text, '["1970-01-01T00:00:00.000Z","1970-01-01T00:00:00.001Z"]');
      assert.equal(json.decode(text, Any).ok, true);
      // distinct boxed primitives were one item (no members, so {}), a TypeError
      const boxed = [new Number(1), new Number(2), new Boolean(false), new String("b")];
      assert.equal(json.encode(boxed as never, Any), '[1,2,false,"b"]');
      for (
        const [value, schema] of [
          [[new Date(0), "1970-01-01T00:00:00.000Z"], Any],
          [[null, Number.NaN], Any],
          [[{ a: 1 }, { a: 1, b: () => 1 }], Any],
          [[{}, { a: undefined }], Maps],
          // a boxed primitive is written as its value
          [[new String("a"), "a"], Any],
          [[{ n: new Number(1) }, { n: 1 }], Any],
        ] as const
      ) {
        assert.throws(() => json.encode(value as never, schema), TypeError, JSON.stringify(value));
      }
    } finally {
      useCodeGeneration(undefined);
    }
  }
});

Deno.test("json.encode() refuses unique items whose toJSON() nests without end", () => {
  // a toJSON() that returns a new object at every call, with a toJSON() in it (nodes that
  // write their parent, which writes its children): JSON.stringify overflows its stack, but
  // the comparison of unique items walked on until the process ran out of memory
  class Node {
    constructor(readonly parent?: Node) {}
    toJSON() {
      return this.parent === undefined ? { children: [new Node(this)] } : { parent: this.parent };
    }
  }
  const Any = s.array(s.any(), { uniqueItems: true });
  for (const enabled of [true, false]) {
    try {
      useCodeGeneration(enabled);
      assert.throws(
        () => json.encode([new Node(), 1] as never, Any),
        new TypeError("Cannot compare items: toJSON() nests values more than 10000 levels deep"),
      );
      // nesting made by toJSON() short of that is compared as before
      let deep: unknown = 0;
      for (let i = 0; i < 500; i++) {
        const inner = deep;
        deep = { toJSON: () => [inner] };
      }
      assert.equal(json.encode([deep, 1] as never, Any), JSON.stringify([deep, 1]));
    } finally {
      useCodeGeneration(undefined);
    }
  }
});

Deno.test("json.encode() calls no toJSON() of arrays and records, on both paths", () => {
  // generated projections handed arrays of scalars and records of scalars to JSON.stringify as
  // they were, which called their toJSON(): what it returned was written instead of the
  // schema's members (the walk, where code generation is forbidden, wrote the members)
  class Tags extends Array<string> {
    toJSON() {
      return { secret: "leak" };
    }
  }
  const tags = () => Tags.from(["a", "b"]) as string[];
  const leaky = <T extends object>(value: T) =>
    Object.defineProperty(value, "toJSON", { value: () => "leak" });
  const cases: [unknown, Schema, string][] = [
    [{ tags: tags() }, s.object({ tags: s.array(s.string()) }), '{"tags":["a","b"]}'],
    [tags(), s.nullable(s.array(s.string())), '["a","b"]'],
    [[["x"], tags()], s.array(s.array(s.string())), '[["x"],["a","b"]]'],
    [{ k: tags() }, s.record(s.array(s.string())), '{"k":["a","b"]}'],
    [leaky({ a: "x" }), s.record(s.string()), '{"a":"x"}'],
    [leaky([1, 2]), s.array(s.integer()), "[1,2]"],
  ];
  for (const enabled of [true, false]) {
    try {
      useCodeGeneration(enabled);
      for (const [value, schema, text] of cases) {
        assert.equal(json.encode(value as never, schema), text, `${enabled} ${text}`);
      }
    } finally {
      useCodeGeneration(undefined);
    }
  }
});

Deno.test("json.encode() writes records, unions, nullable and any values", () => {
  const Shape = s.union("kind", [
    s.object({ kind: s.literal("circle"), r: s.number() }),
    s.object({ kind: s.literal("square"), side: s.number() }),
  ]);
  assert.equal(
    json.encode({ kind: "square", side: 2, r: 9 } as never, Shape),
    '{"kind":"square","side":2}',
  );
  assert.throws(() => json.encode({ kind: "star" } as never, Shape), TypeError);
  const Scores = s.record(s.object({ n: s.integer() }));
  const scores = { a: { n: 1, x: 0 }, b: { n: 2 } };
  assert.equal(json.encode(scores, Scores), '{"a":{"n":1},"b":{"n":2}}');
  const Doc = s.object({ meta: s.any(), note: s.nullable(s.string()) });
  assert.equal(
    json.encode({ meta: { any: ["thing"] }, note: null }, Doc),
    '{"meta":{"any":["thing"]},"note":null}',
  );
});

Deno.test("json.encode() writes a member named __proto__ as a member", () => {
  const S = s.object({ ["__proto__"]: s.integer(), a: s.integer() });
  const value = JSON.parse('{"a":1,"__proto__":2,"b":3}');
  assert.equal(json.encode(value, S), '{"__proto__":2,"a":1}');
});

Deno.test("json.encode() and json.decode() round-trip a schema's values", () => {
  const value: Infer<typeof User> = {
    id: 9,
    name: 'ü " \n \u2028',
    roles: ["admin", "user"],
    address: { city: "€" },
  };
  const decoded = json.decode(json.encode(value, User), User);
  assert.deepEqual(decoded, { ok: true, value });
});

Deno.test("weft/json compiles code in codegen.ts only, and evaluates nothing else", async () => {
  for await (const entry of Deno.readDir(new URL("../../lib/json/", import.meta.url))) {
    const source = await Deno.readTextFile(
      new URL(`../../lib/json/${entry.name}`, import.meta.url),
    );
    const code = source.replace(/\/\/.*$|\/\*[\s\S]*?\*\//gm, "");
    assert.doesNotMatch(code, /\beval\s*\(/, entry.name);
    const compiles = code.match(/new\s+Function\b|\bFunction\s*\(/g)?.length ?? 0;
    // codegen.ts compiles generated code; _compile.ts probes whether it may
    const expected = entry.name === "codegen.ts" || entry.name === "_compile.ts" ? 1 : 0;
    assert.equal(compiles, expected, entry.name);
  }
});

Deno.test("json.encode() and json.decode() work where code generation is forbidden", async () => {
  const mod = new URL("../../lib/json/mod.ts", import.meta.url).href;
  const script = `
    import { json, schema as s } from ${JSON.stringify(mod)};
    let blocked = false;
    try { new Function("return 1"); } catch { blocked = true; }
    const S = s.object({ a: s.array(s.object({ b: s.string() })) });
    const decoded = json.decode('{"a":[{"b":"x","c":1}]}', S);
    console.log(JSON.stringify({ blocked, decoded: decoded.ok, text: json.encode({ a: [{ b: "x", c: 1 }] }, S) }));
  `;
  const file = await Deno.makeTempFile({ suffix: ".ts" });
  try {
    await Deno.writeTextFile(file, script);
    const { code, stdout, stderr } = await runChild(Deno.execPath(), {
      what: "deno run without code generation from strings",
      args: ["run", "--no-check", "--v8-flags=--disallow-code-generation-from-strings", file],
    });
    assert.equal(code, 0, new TextDecoder().decode(stderr));
    assert.deepEqual(JSON.parse(new TextDecoder().decode(stdout)), {
      blocked: true,
      decoded: true,
      text: '{"a":[{"b":"x"}]}',
    });
  } finally {
    await Deno.remove(file);
  }
});

Deno.test("json.encode() checks enums of up to eight values and of more", () => {
  const values = ["a", "b", "c", "d", "e", "f", "g", "h", "i"] as const;
  for (const n of [1, 4, 5, 8, 9]) {
    const E = s.enum(values.slice(0, n) as unknown as ["a"]);
    for (let i = 0; i < 100; i++) json.decode("null", E); // hot or not, the same answers
    for (const v of values.slice(0, n)) assert.equal(json.encode(v as "a", E), `"${v}"`);
    assert.throws(() => json.encode((values[n] ?? "z") as never, E), TypeError);
    assert.equal(json.decode(`"${values[n - 1]}"`, E).ok, true);
    assert.equal(json.decode('"z"', E).ok, false);
  }
});

Deno.test("json.encode() alternates between hot schemas", () => {
  const A = s.object({ a: s.integer() });
  const B = s.object({ b: s.string() });
  for (let i = 0; i < 100; i++) {
    assert.equal(json.encode({ a: i, b: "x" } as never, A), `{"a":${i}}`);
    assert.equal(json.encode({ a: i, b: "x" } as never, B), '{"b":"x"}');
  }
  assert.throws(() => json.encode({ b: "x" } as never, A), /Missing required field "a"/);
});
