// The one policy: every schema gets a generated check where code generation is allowed, the
// reference checker walks it where it is not, and both answer alike. Schema text that looks
// like code stays data on both paths and in modules generated ahead of time.
import assert from "node:assert/strict";
import { json, type Schema, schema as s } from "../../lib/json/mod.ts";
import { checkPath, useCodeGeneration } from "../../lib/json/_compile.ts";
import { main } from "../../lib/json/cli.ts";
import { runChild } from "../_child.ts";

const RUNTIME = new URL("../../lib/json/mod.ts", import.meta.url).href;

// Runs `test` with generated checks, then with the reference checker, and returns both answers.
function bothPaths<T>(test: () => T): [T, T] {
  try {
    useCodeGeneration(true);
    const generated = test();
    useCodeGeneration(false);
    return [generated, test()];
  } finally {
    useCodeGeneration(undefined);
  }
}

const HOSTILE = ['"]);process.exit(1);//', "__proto__", "a\u2028b", "\u2029", "`${x}`", "\\", "'"];

// A schema whose keys, tags, literals, enum values and pattern are all hostile text.
const HOSTILE_SOURCE = `import { schema as s } from ${JSON.stringify(RUNTIME)};
const keys = ${JSON.stringify(HOSTILE)};
export const Hostile = s.object({
  ...Object.fromEntries(keys.map((k) => [k, s.optional(s.string())])),
  [keys[0]]: s.literal(keys[0]),
  both: s.enum(keys),
  text: s.string({ pattern: /^"\\]\\);process\\.exit\\(1\\);\\/\\/|\\u2028$/, maxLength: 40 }),
  union: s.union(keys[0], [
    s.object({ [keys[0]]: s.literal(keys[2]), [keys[1]]: s.integer() }),
    s.object({ [keys[0]]: s.literal(keys[3]) }, { unknownKeys: "reject" }),
  ]),
}, { unknownKeys: "reject" });
`;

const HOSTILE_VALUES: unknown[] = [
  {
    [HOSTILE[0]]: HOSTILE[0],
    both: HOSTILE[4],
    text: HOSTILE[0],
    union: { [HOSTILE[0]]: HOSTILE[2], [HOSTILE[1]]: 1 },
    [HOSTILE[2]]: "x",
  },
  { [HOSTILE[0]]: HOSTILE[0], both: "no", text: "\u2028", union: { [HOSTILE[0]]: HOSTILE[3] } },
  { [HOSTILE[0]]: "x", both: HOSTILE[1], text: "x", union: { [HOSTILE[0]]: HOSTILE[3], e: 1 } },
  { [HOSTILE[0]]: HOSTILE[0], both: HOSTILE[5], text: "\u2028", union: {}, extra: 1 },
  { [HOSTILE[0]]: HOSTILE[0], both: HOSTILE[6], text: "\u2028", union: { [HOSTILE[0]]: "z" } },
];

Deno.test("hostile keys, literals and patterns stay data on both paths and ahead of time", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await Deno.writeTextFile(`${dir}/hostile.ts`, HOSTILE_SOURCE);
    const quiet = console.log;
    console.log = () => {};
    try {
      assert.equal(await main([`${dir}/hostile.ts`, "--runtime", RUNTIME]), 0);
    } finally {
      console.log = quiet;
    }
    const generatedSource = await Deno.readTextFile(`${dir}/hostile.checks.ts`);
    assert.doesNotMatch(generatedSource, /[\u2028\u2029]/);
    const { Hostile } = await import(`file://${dir}/hostile.ts`);
    const { Hostile: Ahead } = await import(`file://${dir}/hostile.checks.ts`);
    assert.equal(checkPath(Ahead), "ahead");
    const outcomes = new Set<boolean>();
    for (const value of HOSTILE_VALUES) {
      const text = JSON.stringify(value);
      const [generated, walked] = bothPaths(() => {
        const decoded = json.decode(text, Hostile as Schema, { issues: "all" });
        let encoded: string;
        try {
          encoded = json.encode(value as never, Hostile);
        } catch (error) {
          encoded = String(error);
        }
        return { decoded, encoded, path: checkPath(Hostile) };
      });
      assert.equal(generated.path, "generated");
      assert.equal(walked.path, "reference");
      assert.deepStrictEqual(
        { ...generated, path: undefined },
        { ...walked, path: undefined },
        text,
      );
      assert.deepStrictEqual(json.decode(text, Ahead as Schema, { issues: "all" }), walked.decoded);
      outcomes.add(walked.decoded.ok);
      if (walked.decoded.ok) {
        // a member named __proto__ is a member, not the prototype
        assert.equal(Object.getPrototypeOf(JSON.parse(walked.encoded)), Object.prototype);
        assert.deepEqual(JSON.parse(walked.encoded), value);
      }
    }
    assert.deepEqual([...outcomes].sort(), [false, true]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("every schema runs its generated check, whatever was used before it", () => {
  const kinds = [
    () => s.string({ maxLength: 9 }),
    () => s.integer({ minimum: 0 }),
    () => s.array(s.number()),
    () => s.nullable(s.boolean()),
    () => s.record(s.string()),
  ];
  for (let i = 0; i < 500; i++) {
    const S = s.object({ [`k${i}`]: kinds[i % kinds.length](), n: s.optional(s.integer()) });
    assert.equal(checkPath(S), undefined);
    json.decode(`{"k${i}": null}`, S);
    assert.equal(checkPath(S), "generated", `schema ${i}`);
  }
});

Deno.test("a check longer than one generated function holds answers as the reference does", () => {
  // 200 members each an object used once: the first are written into the root's function, the
  // rest (past its line limit) are called; a failure anywhere is found with its path
  const Member = () => s.object({ a: s.string(), b: s.array(s.object({ c: s.integer() })) });
  const S = s.object(
    Object.fromEntries(Array.from({ length: 200 }, (_, i) => [`m${i}`, Member()])),
  );
  const good = Object.fromEntries(
    Array.from({ length: 200 }, (_, i) => [`m${i}`, { a: "x", b: [{ c: i }] }]),
  );
  const bad = (i: number) => JSON.stringify({ ...good, [`m${i}`]: { a: "x", b: [{ c: 0.5 }] } });
  const [generated, walked] = bothPaths(() =>
    [JSON.stringify(good), bad(0), bad(20), bad(199)].map((text) => {
      const result = json.decode(text, S);
      return result.ok || result.error.kind === "type_mismatch" && result.error.path;
    })
  );
  assert.deepEqual(generated, [true, "$.m0.b[0].c", "$.m20.b[0].c", "$.m199.b[0].c"]);
  assert.deepEqual(walked, generated);
});

Deno.test("json.decode() and json.encode() answer alike on both paths", () => {
  const Inner = s.object({ x: s.any() });
  const S = s.object({
    a: Inner,
    b: s.object({ c: Inner }),
    ["__proto__"]: s.optional(s.object({ a: s.integer() })),
    constructor: s.optional(s.string()),
    list: s.array(s.object({ id: s.integer({ minimum: 1 }) }), { maxItems: 2, uniqueItems: true }),
  });
  const texts = [
    '{"a":{"x":1},"b":{"c":{"x":[]}},"list":[]}',
    '{"a":{"x":1},"b":{"c":{"x":[]}},"list":[{"id":1},{"id":1}]}',
    '{"a":{"x":1},"b":{"c":{"x":[]}},"list":[{"id":0},{"id":2},{"id":3}]}',
    '{"a":{},"b":{"c":{"x":[]}},"constructor":"x","__proto__":{"a":1},"list":[]}',
    '{"a":{"x":1},"b":{"c":{}},"constructor":1,"__proto__":{"a":"1"},"list":[{}]}',
  ];
  for (const text of texts) {
    const [generated, walked] = bothPaths(() => {
      const decoded = json.decode(text, S, { issues: "all" });
      let encoded: string;
      try {
        encoded = json.encode(JSON.parse(text), S);
      } catch (error) {
        encoded = String(error);
      }
      return { decoded, encoded };
    });
    assert.deepStrictEqual(generated, walked, text);
  }
});

Deno.test("json.encode() reads members of objects that are not plain, on both paths", () => {
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
  const [generated, walked] = bothPaths(() => json.encode(new Account() as never, Public));
  assert.equal(generated, '{"id":7,"name":"from a getter"}');
  assert.equal(walked, generated);
  // a record that is not a plain object is copied, so its toJSON is never called
  class Labels {
    en = "yes";
    toJSON(): unknown {
      return "leaked";
    }
  }
  const Map = s.record(s.string());
  const records = bothPaths(() => [
    json.encode(new Labels() as never, Map),
    json.encode({ en: "yes", toJSON: "a string" }, Map),
    json.encode(JSON.parse('{"__proto__":"x"}'), Map),
  ]);
  assert.deepEqual(records[0], [
    '{"en":"yes"}',
    '{"en":"yes","toJSON":"a string"}',
    '{"__proto__":"x"}',
  ]);
  assert.deepEqual(records[1], records[0]);
});

Deno.test("json.decode() caps nesting at 512 levels wherever an object sits, on both paths", () => {
  const deep = (n: number) => "[".repeat(n) + "]".repeat(n);
  const offset = (text: string, S: Schema) => {
    const result = json.decode(text, S);
    return !result.ok && result.error.kind === "syntax_error" && result.error.offset;
  };
  // the same object sits at levels 2 and 3, and the arrays under `any` count from there
  const Inner = s.object({ x: s.any() });
  const S = s.object({ a: Inner, b: s.object({ c: Inner }) });
  const text = (a: number, c: number) => `{"a":{"x":${deep(a)}},"b":{"c":{"x":${deep(c)}}}}`;
  let D: Schema = s.integer();
  for (let i = 0; i < 514; i++) D = s.object({ a: D });
  const objects = '{"a":'.repeat(514) + "1" + "}".repeat(514);
  const [generated, walked] = bothPaths(() => [
    json.decode(text(510, 509), S).ok,
    offset(text(511, 509), S),
    offset(text(510, 510), S),
    offset(objects, D),
  ]);
  assert.deepEqual(generated, [true, 10 + 510, 10 + 2 * 510 + 16 + 509, 5 * 512]);
  assert.deepEqual(walked, generated);
});

Deno.test("json.decode() reports the bracket past the limit where the schema walks, on both paths", () => {
  // the offset was the first such bracket of the text, which may sit in a member the schema
  // does not walk, or in a duplicate member JSON.parse drops
  const deep = (n: number) => "[".repeat(n) + "]".repeat(n);
  const S = s.object({ a: s.any(), b: s.array(s.record(s.any())) });
  const texts = [
    `{"skip":${deep(600)},"a":${deep(600)},"b":[]}`,
    `{"a":${deep(600)},"b":[],"a" : [ 1 , "]" , {"x]":[]}, ${deep(700)} ]}`,
    `{"a":1,"b":[{"k":1},{"k":${deep(600)}, "k\\\\" : ${deep(600)}}]}`,
    `\uFEFF{"a":[], "b":[{"x":{"y":${deep(700)}}}]}`,
  ];
  const [generated, walked] = bothPaths(() =>
    texts.map((text) => {
      const result = json.decode(text, S);
      return !result.ok && result.error.kind === "syntax_error" && result.error.offset;
    })
  );
  const at = (text: string, before: string) =>
    new TextEncoder().encode(text.slice(0, text.lastIndexOf(before) + before.length)).length;
  assert.deepEqual(generated, [
    at(texts[0], '"a":') + 511,
    at(texts[1], '{"x]":[]}, ') + 510,
    at(texts[2], '"k":') + 509,
    at(texts[3], '"y":') + 508,
  ]);
  assert.deepEqual(walked, generated);
});

Deno.test("a schema nested too deep to be written as code is walked instead", () => {
  // 1,500 arrays and 600 unions are more levels than the generator's recursion has stack for
  let arrays: Schema = s.number();
  for (let i = 0; i < 1_500; i++) arrays = s.array(arrays);
  let unions: Schema = s.number();
  for (let i = 0; i < 600; i++) unions = s.union("k", [s.object({ k: s.literal(i), a: unions })]);
  const [generated, walked] = bothPaths(() =>
    [arrays, unions].map((S) => {
      const result = json.decode("[[1]]", S);
      return result.ok || result.error.kind;
    })
  );
  assert.deepEqual(generated, ["type_mismatch", "type_mismatch"]);
  assert.deepEqual(walked, generated);
});

Deno.test("a member is absent only where its schema is optional, whatever it wraps", () => {
  // an optional schema under a nullable one does not make the member optional
  const S = s.object({
    a: s.nullable(s.optional(s.string())),
    b: s.optional(s.nullable(s.string())),
  });
  const [generated, walked] = bothPaths(() =>
    ['{"a":null}', '{"a":"x","b":null}', "{}", '{"b":"x"}'].map((text) => {
      const result = json.decode(text, S);
      return result.ok || `${result.error.kind} ${"path" in result.error && result.error.path}`;
    })
  );
  assert.deepEqual(generated, [true, true, "missing_field $.a", "missing_field $.a"]);
  assert.deepEqual(walked, generated);
});

Deno.test("a union's discriminator is a string, never text read from an object", () => {
  let calls = 0;
  const key = { toString: () => calls++ < 3 ? "k" : "k; globalThis.injected = 1; //" };
  assert.throws(
    () => s.union(key as unknown as string, [s.object({ k: s.literal("a") })]),
    /discriminator must be a string/,
  );
  assert.equal("injected" in globalThis, false);
});

Deno.test("the decode, encode and constraint tests pass where code generation is forbidden", async () => {
  const files = ["decode_test.ts", "json_test_suite_test.ts", "constraints_test.ts"]
    .map((name) => new URL(name, import.meta.url).pathname);
  const { code, stdout, stderr } = await runChild(Deno.execPath(), {
    what: "deno test without code generation from strings",
    args: [
      "test",
      "-A",
      "--no-check",
      "--v8-flags=--disallow-code-generation-from-strings",
      ...files,
    ],
    env: { NO_COLOR: "1" },
    deadlineMs: 300_000,
  });
  const out = new TextDecoder().decode(stdout) + new TextDecoder().decode(stderr);
  assert.equal(code, 0, out);
  assert.match(out, /ok \| \d+ passed \| 0 failed/);
});
