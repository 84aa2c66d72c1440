import assert from "node:assert/strict";
import { json, type Schema, schema as s } from "../../lib/json/mod.ts";
import { copiesLeft, freeCopies } from "../../lib/json/_shapes.ts";

Deno.test("lib/json/_shapes.ts holds identical copies of one object checker", async () => {
  const source = await Deno.readTextFile(new URL("../../lib/json/_shapes.ts", import.meta.url));
  const parts = source.split(/^function shape(\d+)\(/m).slice(1);
  const bodies = new Set<string>();
  for (let i = 0; i < parts.length; i += 2) {
    assert.equal(parts[i], String(i / 2), "copies are numbered from 0");
    bodies.add(parts[i + 1].slice(0, parts[i + 1].indexOf("\n}\n")));
  }
  assert.ok(parts.length / 2 >= 8);
  assert.equal(bodies.size, 1, "every copy has the same body");
  const list = source.slice(source.indexOf("const COPIES")).match(/= \[([^\]]*)\]/)?.[1];
  assert.deepEqual(
    list?.split(",").map((name) => name.trim()).filter(Boolean),
    Array.from({ length: parts.length / 2 }, (_, i) => `shape${i}`),
  );
});

// Uses a schema often enough for it to count as hot.
function heat(S: Schema): void {
  for (let i = 0; i < 100; i++) json.decode("null", S);
}

Deno.test("json.decode() and json.encode() agree before and after schemas get hot, past the copies", () => {
  for (let i = 0; i < 40; i++) {
    const key = `k${i}`;
    const S = s.object({ [key]: s.integer(), name: s.string(), tags: s.array(s.string()) });
    const value = { tags: ["a"], name: "n", [key]: i };
    for (const hot of [false, true]) {
      if (hot) heat(S);
      assert.deepEqual(json.decode(JSON.stringify({ ...value, extra: 1 }), S), {
        ok: true,
        value: { ...value, extra: 1 },
      });
      const missing = json.decode(JSON.stringify({ name: "n", tags: [] }), S);
      assert.ok(!missing.ok && missing.error.kind === "missing_field");
      assert.equal(missing.error.field, key);
      const wrong = json.decode(JSON.stringify({ ...value, name: 1 }), S);
      assert.ok(!wrong.ok && wrong.error.kind === "type_mismatch" && wrong.error.path === "$.name");
      assert.equal(
        json.encode({ ...value, secret: "x" }, S),
        `{${JSON.stringify(key)}:${i},"name":"n","tags":["a"]}`,
      );
    }
  }
});

Deno.test("json.decode() and json.encode() handle shapes longer than one copy", () => {
  const keys = Array.from({ length: 20 }, (_, i) => `m${i}`);
  const S = s.object(Object.fromEntries(keys.map((k, i) => [k, i % 3 ? s.integer() : s.string()])));
  const value = Object.fromEntries(keys.map((k, i) => [k, i % 3 ? i : `v${i}`]));
  const text = JSON.stringify(value);
  freeCopies();
  for (const hot of [false, true]) {
    if (hot) heat(S);
    assert.deepEqual(json.decode(text, S), { ok: true, value });
    assert.equal(json.encode({ x: 0, ...value, y: 1 }, S), text);
    assert.equal(json.encode(Object.fromEntries(Object.entries(value).reverse()), S), text);
    const { m18: _, ...missing } = value;
    const result = json.decode(JSON.stringify(missing), S);
    assert.ok(!result.ok && result.error.kind === "missing_field" && result.error.field === "m18");
    assert.throws(() => json.encode({ ...value, m17: "x" }, S), /Expected integer at \$\.m17/);
  }
});

Deno.test("json.encode() writes a member named __proto__ from a hot schema", () => {
  const S = s.object({ a: s.integer(), ["__proto__"]: s.integer(), b: s.optional(s.string()) });
  const value = JSON.parse('{"b":"x","__proto__":2,"a":1,"c":3}');
  freeCopies();
  for (const hot of [false, true]) {
    if (hot) heat(S);
    assert.equal(json.encode(value, S), '{"a":1,"__proto__":2,"b":"x"}');
    assert.deepEqual(json.decode(JSON.stringify({ a: 1 }), S).ok, false);
  }
});

Deno.test("json.encode() reads members named like Object.prototype's only as own members", () => {
  const S = s.object({
    ["__proto__"]: s.optional(s.object({ a: s.integer() })),
    constructor: s.optional(s.string()),
    b: s.object({ c: s.integer() }),
  });
  const value = { b: { c: 1, d: 2 } };
  freeCopies();
  for (const hot of [false, true]) {
    if (hot) heat(S);
    assert.equal(json.encode(value as never, S), '{"b":{"c":1}}');
    assert.equal(
      json.encode({ constructor: "x", ...value } as never, S),
      '{"constructor":"x","b":{"c":1}}',
    );
  }
});

Deno.test("json.encode() reads members of objects that are not plain, hot or not", () => {
  class Account {
    id = 7;
    secret = "s";
    toJSON(): unknown {
      return { leaked: this.secret };
    }
    get name(): string {
      return "from a getter";
    }
  }
  const Public = s.object({ id: s.integer(), name: s.string() });
  freeCopies();
  for (const hot of [false, true]) {
    if (hot) heat(Public);
    assert.equal(json.encode(new Account() as never, Public), '{"id":7,"name":"from a getter"}');
  }
});

Deno.test("json.decode() caps nesting at 512 levels wherever a hot schema's objects sit", () => {
  const deep = (n: number) => "[".repeat(n) + "]".repeat(n);
  const offset = (text: string, S: Schema) => {
    const result = json.decode(text, S);
    return !result.ok && result.error.kind === "syntax_error" && result.error.offset;
  };
  // the same object sits at levels 2 and 3, and the arrays under `any` count from there
  const Inner = s.object({ x: s.any() });
  const S = s.object({ a: Inner, b: s.object({ c: Inner }) });
  const text = (a: number, c: number) => `{"a":{"x":${deep(a)}},"b":{"c":{"x":${deep(c)}}}}`;
  // objects nested beyond the limit, whose inner ones are built (and take copies) first
  let D: Schema = s.integer();
  for (let i = 0; i < 514; i++) D = s.object({ a: D });
  const objects = '{"a":'.repeat(514) + "1" + "}".repeat(514);
  freeCopies();
  for (const hot of [false, true]) {
    if (hot) heat(S), heat(D);
    assert.ok(json.decode(text(510, 509), S).ok);
    assert.equal(offset(text(511, 509), S), 10 + 510);
    assert.equal(offset(text(510, 510), S), 10 + 2 * 510 + 16 + 509);
    assert.equal(offset(objects, D), 5 * 512);
  }
});

Deno.test("a hot schema builds each object once for each depth it sits at", () => {
  // variants and an optional object with `any` below: their pairs serve one depth only
  const U = s.union("t", [
    s.object({ t: s.literal("a"), x: s.any() }),
    s.object({ t: s.literal("b"), y: s.any() }),
  ]);
  const S = s.object({ u: U, o: s.optional(s.object({ z: s.any() })) });
  const row = { u: { t: "a" as const, x: 1, k: 2 }, o: { z: 3, w: 4 } }; // extra members
  freeCopies();
  heat(S);
  const used = Array.from({ length: 13 }, (_, n) => n).find((n) => copiesLeft(6 * (12 - n)));
  assert.equal(used, 4); // S, the two variants and o's object
  assert.ok(json.decode('{"u":{"t":"b","y":{}},"o":{"z":[1]}}', S).ok);
  assert.equal(
    json.encode(row, S),
    '{"u":{"t":"a","x":1},"o":{"z":3}}',
  );
});
