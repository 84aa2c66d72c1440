import assert from "node:assert/strict";
import { type DecodeResult, json, type JsonError, schema as s } from "../../lib/json/mod.ts";
import { rootOf } from "../../lib/json/_compile.ts";

const enc = new TextEncoder();
const any = s.any();

function error<T>(result: DecodeResult<T>): JsonError {
  assert.ok(!result.ok, `expected a failure, got ${JSON.stringify(result)}`);
  return result.error;
}

function offset(input: Uint8Array | string): number {
  const e = error(json.decode(input, any));
  assert.equal(e.kind, "syntax_error", e.message);
  return e.offset;
}

Deno.test("json.decode() reports the offset of the first byte that cannot continue the text", () => {
  assert.equal(offset('{"é": tru}'), 10);
  assert.equal(offset(enc.encode('{"é": tru}')), 10);
  assert.equal(offset(new Uint8Array([0x22, 0xc3, 0x28])), 2);
  assert.equal(offset("[1,]"), 3);
  assert.equal(offset("[1 2]"), 3);
  assert.equal(offset('{"a" 1}'), 5);
  assert.equal(offset('{"a":1,}'), 7);
  assert.equal(offset("01"), 1);
  assert.equal(offset("-x"), 1);
  assert.equal(offset("1.e5"), 2);
  assert.equal(offset("1e+x"), 3);
  assert.equal(offset('"\\x"'), 2);
  assert.equal(offset('"\\u12G4"'), 5);
  assert.equal(offset('"a\nb"'), 2);
  assert.equal(offset("nul1"), 3);
  assert.equal(offset("{} {}"), 3);
  assert.equal(offset("[]]"), 2);
  assert.equal(offset("'a'"), 0);
});

Deno.test("json.decode() reports the input length for a truncated text", () => {
  for (
    const text of [
      "",
      " ",
      "[",
      '{"a"',
      '{"a":',
      "[1,",
      "tru",
      "-",
      "1.",
      "1e",
      "1e+",
      '"ab',
      '"\\u00',
    ]
  ) {
    assert.equal(offset(text), enc.encode(text).length, JSON.stringify(text));
  }
  assert.equal(offset(new Uint8Array([0x22, 0xe2, 0x82])), 3); // inside a 3-byte character
});

Deno.test("json.decode() rejects invalid UTF-8 at the first byte that cannot continue it", () => {
  const at = (...bytes: number[]) => offset(new Uint8Array(bytes));
  assert.equal(at(0x22, 0x80, 0x22), 1); // a lone continuation byte
  assert.equal(at(0x22, 0xc0, 0x80, 0x22), 1); // overlong lead byte
  assert.equal(at(0x22, 0xe0, 0x80, 0x80, 0x22), 2); // overlong 3-byte form
  assert.equal(at(0x22, 0xed, 0xa0, 0x80, 0x22), 2); // an encoded surrogate
  assert.equal(at(0x22, 0xf4, 0x90, 0x80, 0x80, 0x22), 2); // beyond U+10FFFF
  assert.equal(at(0x22, 0xf5, 0x22), 1);
  assert.equal(at(0x22, 0xe2, 0x82, 0x41, 0x22), 3);
  assert.equal(at(0x5b, 0xc3, 0xa9, 0x5d), 1); // non-ASCII outside a string
  // valid sequences at the edges of Table 3-7 pass
  const ok = json.decode(
    new Uint8Array([0x22, 0xf4, 0x8f, 0xbf, 0xbf, 0xed, 0x9f, 0xbf, 0x22]),
    any,
  );
  assert.deepEqual(ok, { ok: true, value: "\u{10FFFF}\uD7FF" });
});

Deno.test("json.decode() keeps a genuine U+FFFD while rejecting bytes that decode to it", () => {
  assert.deepEqual(json.decode(enc.encode('"\uFFFD"'), any), { ok: true, value: "\uFFFD" });
  assert.equal(offset(new Uint8Array([0x22, 0xef, 0xbf, 0xbd, 0xff, 0x22])), 4);
});

Deno.test("json.decode() skips one leading BOM and counts its bytes in offsets", () => {
  const bom = [0xef, 0xbb, 0xbf];
  assert.deepEqual(json.decode(new Uint8Array([...bom, 0x7b, 0x7d]), any), { ok: true, value: {} });
  assert.deepEqual(json.decode("\uFEFF[1]", any), { ok: true, value: [1] });
  assert.equal(offset(new Uint8Array([...bom, 0x5b, 0x5d, 0x5d])), 5);
  assert.equal(offset("\uFEFF[]]"), 5);
  assert.equal(offset(new Uint8Array([...bom, ...bom, 0x7b, 0x7d])), 3); // a second BOM
  assert.equal(offset(new Uint8Array([0x20, ...bom, 0x7b, 0x7d])), 1); // not leading
  assert.equal(offset(new Uint8Array([0xef, 0xbb])), 2); // a truncated BOM
  assert.equal(offset(new Uint8Array([0xef, 0x41])), 1);
});

Deno.test("json.decode() counts string input offsets in UTF-8 bytes", () => {
  assert.equal(offset('["€", x]'), 8);
  assert.equal(offset('["\u{1F600}" 1]'), 8);
});

Deno.test("json.decode() never throws, whatever it is given", () => {
  const inputs: unknown[] = [
    new Uint8Array([0xff, 0xfe, 0x00]),
    "\uD800",
    '["\uD800"]',
    "[\uD800]",
    new Uint8Array(0),
    new Uint8Array(new SharedArrayBuffer(4)),
    null,
    undefined,
    42,
    {},
    new ArrayBuffer(2),
  ];
  for (const input of inputs) {
    const result = json.decode(input as string, any);
    assert.equal(typeof result.ok, "boolean");
  }
  assert.deepEqual(json.decode('["\uD800"]', any), { ok: true, value: ["\uD800"] });
  assert.equal(offset("[\uD800]"), 1);
  assert.equal(error(json.decode(null as unknown as string, any)).kind, "syntax_error");
});

Deno.test("json.decode() caps nesting at 512 levels without overflowing the stack", () => {
  const deep = (n: number) => "[".repeat(n) + "]".repeat(n);
  assert.ok(json.decode(deep(512), any).ok);
  assert.equal(offset(deep(513)), 512);
  assert.equal(offset(deep(100_000)), 512);
  assert.equal(offset(enc.encode(deep(100_000))), 512);
  assert.equal(offset("[".repeat(100_000)), 100_000); // truncated: syntax errors win
  assert.equal(offset(deep(100_000) + "x"), 200_000);
  const objects = '{"a":'.repeat(600) + "1" + "}".repeat(600);
  assert.equal(offset(objects), 5 * 512);
  // a deep value the schema never walks is left to the engine's parser
  const Shallow = s.object({ id: s.integer() });
  assert.ok(json.decode(`{"id":1,"junk":${deep(100_000)}}`, Shallow).ok);
  assert.equal(offset(`{"id":1,"junk":${deep(100_000)}}`), 15 + 511);
});

Deno.test("json.decode() never coerces types", () => {
  const cases: [unknown, string][] = [
    [s.number(), '"3"'],
    [s.integer(), '"3"'],
    [s.string(), "3"],
    [s.boolean(), "0"],
    [s.boolean(), '"true"'],
    [s.null(), "0"],
    [s.null(), '""'],
    [s.array(s.any()), "{}"],
    [s.object({}), "[]"],
    [s.record(s.any()), "null"],
  ];
  for (const [schema, text] of cases) {
    const e = error(json.decode(text, schema as ReturnType<typeof s.any>));
    assert.equal(e.kind, "type_mismatch", text);
    assert.equal(e.kind === "type_mismatch" && e.path, "$");
  }
});

Deno.test("json.decode() rejects non-finite numbers and integers beyond 2^53", () => {
  const e = error(json.decode("1e400", s.number()));
  assert.deepEqual({ ...e, message: "" }, {
    kind: "type_mismatch",
    expected: "number",
    path: "$",
    message: "",
  });
  assert.equal(error(json.decode("-1e400", s.integer())).kind, "type_mismatch");
  assert.equal(error(json.decode("[1e999]", s.any())).kind, "type_mismatch");
  // as object members, cold (the generic path) and hot (the object's own copy)
  const Member = s.object({
    n: s.number(),
    i: s.integer(),
    m: s.nullable(s.number()),
    o: s.optional(s.number()),
  });
  for (let k = 0; k < 100; k++) {
    for (
      const [text, path] of [
        ['{"n":1e400,"i":1,"m":null}', "$.n"],
        ['{"n":1,"i":2e400,"m":null}', "$.i"],
        ['{"n":1,"i":9007199254740992,"m":null}', "$.i"],
        ['{"n":1,"i":1,"m":-1e400}', "$.m"],
        ['{"n":1,"i":1,"m":null,"o":1e400}', "$.o"],
      ]
    ) {
      const e = error(json.decode(text, Member));
      assert.equal(e.kind === "type_mismatch" && e.path, path, text);
    }
    assert.ok(json.decode('{"n":1.5,"i":1,"m":2,"o":3}', Member).ok);
  }
  assert.deepEqual(json.decode("9007199254740991", s.integer()), {
    ok: true,
    value: 9007199254740991,
  });
  for (const text of ["9007199254740992", "-9007199254740992", "1e300", "1.5"]) {
    const mismatch = error(json.decode(text, s.integer()));
    assert.equal(mismatch.kind === "type_mismatch" && mismatch.expected, "integer", text);
  }
  assert.deepEqual(json.decode("[1.0, 1e2, -0]", s.array(s.integer())), {
    ok: true,
    value: [1, 100, -0],
  });
});

Deno.test("json.decode() keeps the last of duplicate keys", () => {
  assert.deepEqual(json.decode('{"a":1,"a":"x"}', s.object({ a: s.string() })), {
    ok: true,
    value: { a: "x" },
  });
  assert.equal(
    error(json.decode('{"a":"x","a":1}', s.object({ a: s.string() }))).kind,
    "type_mismatch",
  );
});

const Order = s.object({
  id: s.integer(),
  items: s.array(s.object({ name: s.string(), qty: s.optional(s.integer()) })),
  "ship to": s.nullable(s.object({ city: s.string() })),
});

Deno.test("json.decode() reports type_mismatch with the path and the expected type", () => {
  const text =
    '{"id":1,"items":[{"name":"a"},{"name":"b"},{"name":"c"},{"name":7}],"ship to":null}';
  const e = error(json.decode(text, Order));
  assert.deepEqual(e, {
    kind: "type_mismatch",
    expected: "string",
    path: "$.items[3].name",
    message: "Expected string at $.items[3].name, got the number 7",
  });
  const nullable = error(json.decode('{"id":1,"items":[],"ship to":"Bern"}', Order));
  assert.equal(nullable.kind === "type_mismatch" && nullable.expected, "object | null");
  assert.equal(nullable.kind === "type_mismatch" && nullable.path, '$["ship to"]');
});

Deno.test("json.decode() reports missing_field with the field and its path", () => {
  const e = error(json.decode('{"id":1,"items":[{"qty":2}],"ship to":null}', Order));
  assert.deepEqual(e, {
    kind: "missing_field",
    field: "name",
    path: "$.items[0].name",
    message: 'Missing required field "name" at $.items[0].name',
  });
  assert.equal(error(json.decode('{"id":1,"items":[]}', Order)).kind, "missing_field");
});

Deno.test("json.decode() reports the first failure in shape order", () => {
  const e = error(json.decode('{"items":"no","id":"no"}', Order));
  assert.equal(e.kind === "type_mismatch" && e.path, "$.id");
});

Deno.test("json.decode() ignores unknown members by default and keeps them in the value", () => {
  const result = json.decode('{"x":0,"name":"a","y":[1]}', s.object({ name: s.string() }));
  assert.deepEqual(result, { ok: true, value: { x: 0, name: "a", y: [1] } });
});

Deno.test("json.decode() rejects unknown members when the object asks for it", () => {
  const Strict = s.object({ a: s.integer(), b: s.optional(s.string()) }, { unknownKeys: "reject" });
  assert.ok(json.decode('{"a":1}', Strict).ok);
  assert.ok(json.decode('{"b":"x","a":1}', Strict).ok);
  const e = error(json.decode('{"a":1,"extra":true}', Strict));
  assert.deepEqual(e, {
    kind: "unexpected_field",
    field: "extra",
    path: "$.extra",
    message: 'unexpected field "extra" at $.extra',
  });
});

Deno.test("json.decode() accepts members in any order and with absent optional ones", () => {
  const S = s.object({ a: s.optional(s.integer()), b: s.string(), c: s.optional(s.boolean()) });
  for (
    const text of ['{"b":"x"}', '{"c":true,"b":"x","a":1}', '{"b":"x","a":1}', '{"a":1,"b":"x"}']
  ) {
    assert.ok(json.decode(text, S).ok, text);
  }
  assert.equal(error(json.decode('{"c":true,"a":1}', S)).kind, "missing_field");
  assert.equal(error(json.decode('{"b":"x","a":"1"}', S)).kind, "type_mismatch");
});

Deno.test("json.decode() reads members named like Object.prototype's only as own members", () => {
  const S = s.object({ constructor: s.string(), toString: s.optional(s.integer()) });
  const missing = error(json.decode("{}", S));
  assert.equal(missing.kind === "missing_field" && missing.field, "constructor");
  assert.deepEqual(json.decode('{"constructor":"x"}', S), {
    ok: true,
    value: { constructor: "x" },
  });
  const Proto = s.object({ ["__proto__"]: s.integer() });
  assert.equal(error(json.decode("{}", Proto)).kind, "missing_field");
  const result = json.decode('{"__proto__":5}', Proto);
  assert.ok(result.ok);
  assert.equal(Object.getPrototypeOf(result.value), Object.prototype); // not polluted
  assert.equal(Object.getOwnPropertyDescriptor(result.value, "__proto__")?.value, 5);
});

Deno.test("json.decode() checks literals, enums, records and the any schema", () => {
  assert.ok(json.decode('"a"', s.literal("a")).ok);
  const literal = error(json.decode('"b"', s.literal("a")));
  assert.equal(literal.kind === "type_mismatch" && literal.expected, '"a"');
  const Level = s.enum(["low", "high", 3]);
  assert.ok(json.decode("3", Level).ok);
  const e = error(json.decode('"mid"', Level));
  assert.equal(e.kind === "type_mismatch" && e.expected, '"low" | "high" | 3');
  const Counts = s.record(s.integer());
  assert.ok(json.decode('{"a":1,"b c":2}', Counts).ok);
  const r = error(json.decode('{"a":1,"b c":"2"}', Counts));
  assert.equal(r.kind === "type_mismatch" && r.path, '$["b c"]');
  assert.ok(json.decode('[{"a":[null,true,"x",1.5]}]', s.any()).ok);
});

const Shape = s.union("kind", [
  s.object({ kind: s.literal("circle"), r: s.number() }),
  s.object({ kind: s.literal("rect"), w: s.number(), h: s.number() }),
]);

Deno.test("json.decode() picks a union variant by its discriminator", () => {
  assert.deepEqual(json.decode('{"kind":"rect","w":1,"h":2}', Shape), {
    ok: true,
    value: { kind: "rect", w: 1, h: 2 },
  });
  const wrongTag = error(json.decode('{"kind":"star"}', Shape));
  assert.equal(wrongTag.kind === "type_mismatch" && wrongTag.path, "$.kind");
  assert.equal(wrongTag.kind === "type_mismatch" && wrongTag.expected, '"circle" | "rect"');
  const noTag = error(json.decode('{"r":1}', Shape));
  assert.equal(noTag.kind === "missing_field" && noTag.field, "kind");
  const inVariant = error(json.decode('{"kind":"rect","w":1}', Shape));
  assert.equal(inVariant.kind === "missing_field" && inVariant.path, "$.h");
  const notObject = error(json.decode("[]", Shape));
  assert.equal(notObject.kind === "type_mismatch" && notObject.expected, "object");
});

Deno.test("json.decode() picks any of five variants, and discriminates on an inherited name", () => {
  // up to four variants are compared one by one, more in a loop; both, cold and hot
  const Five = s.union("t", [
    s.object({ t: s.literal("a"), n: s.integer() }),
    s.object({ t: s.literal("b"), n: s.string() }),
    s.object({ t: s.literal("c"), n: s.boolean() }),
    s.object({ t: s.literal("d"), n: s.null() }),
    s.object({ t: s.literal("e"), n: s.number() }),
  ]);
  const Four = s.union("constructor", [
    s.object({ constructor: s.literal(1) }),
    s.object({ constructor: s.literal(2), x: s.string() }),
    s.object({ constructor: s.literal(3) }),
    s.object({ constructor: s.literal(4) }),
  ]);
  const good = ['{"t":"a","n":1}', '{"t":"b","n":"x"}', '{"t":"c","n":true}', '{"t":"d","n":null}'];
  const check = (text: string, schema: object) =>
    rootOf(schema as never).check(JSON.parse(text), 1);
  for (let i = 0; i < 100; i++) {
    for (const text of [...good, '{"t":"e","n":1.5}']) {
      assert.ok(json.decode(text, Five).ok, text);
      assert.ok(check(text, Five), text); // the fast pass alone
    }
    const e = error(json.decode('{"t":"e","n":"1"}', Five));
    assert.equal(e.kind === "type_mismatch" && e.path, "$.n");
    const f = error(json.decode('{"t":"f"}', Five));
    assert.equal(f.kind === "type_mismatch" && f.path, "$.t");
    for (const text of ['{"constructor":4}', '{"constructor":2,"x":"y"}']) {
      assert.ok(json.decode(text, Four).ok, text);
      assert.ok(check(text, Four), text);
    }
    assert.ok(!check('{"constructor":2}', Four));
    const inherited = error(json.decode("{}", Four));
    assert.equal(inherited.kind === "missing_field" && inherited.field, "constructor");
    const five = error(json.decode('{"constructor":5}', Four));
    assert.equal(five.kind === "type_mismatch" && five.path, "$.constructor");
  }
});

Deno.test("json.decode() returns the parsed value itself, with no copy", () => {
  const result = json.decode('{"a":{"b":[1]}}', s.object({ a: s.any() }));
  assert.ok(result.ok);
  assert.deepEqual(result.value, { a: { b: [1] } });
});

Deno.test("json.decode() alternates between hot schemas", () => {
  const A = s.object({ a: s.integer() });
  const B = s.object({ b: s.string() });
  const both = enc.encode('{"a":1,"b":"x"}');
  for (let i = 0; i < 100; i++) {
    assert.deepEqual(json.decode(both, A), { ok: true, value: { a: 1, b: "x" } });
    assert.deepEqual(json.decode('{"b":"x"}', B), { ok: true, value: { b: "x" } });
    const wrong = json.decode('{"a":"1"}', A);
    assert.equal(!wrong.ok && wrong.error.kind, "type_mismatch");
    const missing = json.decode('{"a":1}', B);
    assert.equal(!missing.ok && missing.error.kind === "missing_field" && missing.error.field, "b");
  }
});

// Decodes each text a hundred times (the schema gets hot on the way) and expects it to pass
// (no path) or to fail with a type_mismatch at the path given.
function expectHotAndCold(schema: Parameters<typeof json.decode>[1], cases: [string, string?][]) {
  for (let round = 0; round < 100; round++) {
    for (const [text, path] of cases) {
      const result = json.decode(text, schema);
      if (path === undefined) assert.equal(result.ok, true, text);
      else {
        assert.equal(
          !result.ok && result.error.kind === "type_mismatch" && result.error.path,
          path,
        );
      }
    }
  }
}

Deno.test("json.decode() checks nullable and optional leaves, hot or not", () => {
  const S = s.object({
    text: s.nullable(s.string()),
    count: s.nullable(s.integer()),
    ratio: s.optional(s.number()),
    flag: s.optional(s.boolean()),
  });
  const cases: [string, string?][] = [
    ['{"text":null,"count":null}', undefined],
    ['{"text":"a","count":3,"ratio":0.5,"flag":true}', undefined],
    ['{"text":1,"count":3}', "$.text"],
    ['{"text":"a","count":9007199254740993}', "$.count"],
    ['{"text":"a","count":1.5}', "$.count"],
    ['{"text":"a","count":1,"ratio":null}', "$.ratio"],
    ['{"text":"a","count":1,"flag":"yes"}', "$.flag"],
  ];
  expectHotAndCold(S, cases);
  const absent = json.decode('{"count":1}', S);
  assert.equal(!absent.ok && absent.error.kind === "missing_field" && absent.error.field, "text");
});

Deno.test("json.decode() checks arrays of leaves item by item, hot or not", () => {
  const S = s.object({
    names: s.array(s.string()),
    ratios: s.array(s.number()),
    counts: s.array(s.integer()),
    flags: s.array(s.boolean()),
  });
  const valid = '{"names":["a"],"ratios":[0.5,-2],"counts":[1,2],"flags":[true,false]}';
  const cases: [string, string?][] = [
    [valid, undefined],
    ['{"names":[],"ratios":[],"counts":[],"flags":[]}', undefined],
    ['{"names":["a",1],"ratios":[],"counts":[],"flags":[]}', "$.names[1]"],
    ['{"names":[],"ratios":[1,1e400],"counts":[],"flags":[]}', "$.ratios[1]"],
    ['{"names":[],"ratios":["1"],"counts":[],"flags":[]}', "$.ratios[0]"],
    ['{"names":[],"ratios":[],"counts":[1,1.5],"flags":[]}', "$.counts[1]"],
    ['{"names":[],"ratios":[],"counts":[9007199254740993],"flags":[]}', "$.counts[0]"],
    ['{"names":[],"ratios":[],"counts":[],"flags":[0]}', "$.flags[0]"],
    ['{"names":{},"ratios":[],"counts":[],"flags":[]}', "$.names"],
  ];
  expectHotAndCold(S, cases);
  assert.equal(
    json.encode({ names: ["a"], ratios: [0.5], counts: [1], flags: [true] }, S),
    '{"names":["a"],"ratios":[0.5],"counts":[1],"flags":[true]}',
  );
  assert.throws(
    () => json.encode({ names: [], ratios: [NaN], counts: [], flags: [] }, S),
    TypeError,
  );
});
