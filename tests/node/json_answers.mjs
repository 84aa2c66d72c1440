// Prints, as one line of JSON, weft/json's answers (from the npm package) to JSONTestSuite's y_
// and n_ files, to constraint cases, to hostile member names, to values without JSON text, to
// unique items (deep members, dates), to syntax errors with every issue asked, to patterns for
// JSON Schema, to nesting past the limit, to toJSON() methods (one that nests without end) and to
// optional array items, with whether code generation was allowed. json.test.ts runs it twice, with
// and without --disallow-code-generation-from-strings, and compares.
import { readdirSync, readFileSync } from "node:fs";
import { json, schema as s, toJsonSchema } from "weft/json";

let generation = true;
try {
  new Function("return 1");
} catch {
  generation = false;
}

const corpus = new URL(
  "../fixtures/JSONTestSuite/test_parsing/",
  import.meta.url,
);
const suite = {};
for (
  const name of readdirSync(corpus).filter((n) => /^[yn]_.*\.json$/.test(n))
    .sort()
) {
  const result = json.decode(
    new Uint8Array(readFileSync(new URL(encodeURIComponent(name), corpus))),
    s.any(),
  );
  suite[name] = result.ok ? "ok" : `${result.error.kind}@${result.error.offset}`;
}

const Post = s.object({
  title: s.string({ minLength: 1, maxLength: 5 }),
  id: s.integer({ exclusiveMinimum: 0 }),
  email: s.string({ format: "email" }),
  when: s.string({ format: "date-time" }),
  tags: s.array(s.string({ pattern: /^[a-z]+$/ }), {
    maxItems: 2,
    uniqueItems: true,
  }),
}, { unknownKeys: "reject" });
const posts = [
  '{"title":"hi","id":1,"email":"a@b.co","when":"2024-06-30T23:59:60Z","tags":["a"]}',
  '{"title":"😀😀😀😀😀😀","id":0,"email":"a@b","when":"2024-01-01 00:00:00Z","tags":["a","a","B"],"x":1}',
].map((text) => json.decode(text, Post, { issues: "all" }));

const keys = ['"]);process.exit(1);//', "__proto__", "a\u2028b"];
const Hostile = s.object(
  Object.fromEntries(keys.map((k) => [k, s.literal(k)])),
);
const value = Object.fromEntries(keys.map((k) => [k, k]));
const hostile = [
  json.decode(JSON.stringify(value), Hostile).ok,
  json.encode(value, Hostile),
];

// values JSON has no text for, which a schema lets through: each throws a TypeError
const nothing = [
  [undefined, s.optional(s.string())],
  [() => 1, s.any()],
  [Symbol("x"), s.any()],
].map(([value, schema]) => {
  try {
    return json.encode(value, schema);
  } catch (error) {
    return `${error.name}: ${error.message}`;
  }
});

// unique items whose members the schema does not name nest 100,000 levels deep
const Unique = s.array(s.object({ a: s.string() }), { uniqueItems: true });
const deepItem = (leaf) => `{"a":"x","extra":${"[".repeat(100_000)}${leaf}${"]".repeat(100_000)}}`;
const deep = [`[${deepItem(1)},${deepItem(2)}]`, `[${deepItem(1)},${deepItem(1)}]`].map(
  (text) => {
    try {
      const result = json.decode(text, Unique);
      return result.ok || result.error.message;
    } catch (error) {
      return `${error.name}: ${error.message}`;
    }
  },
);

// unique items compared as they are written: distinct dates, and a date and its text; distinct
// boxed numbers, and a boxed string and its text
const Dates = s.array(s.any(), { uniqueItems: true });
const dates = [
  [new Date(0), new Date(1)],
  [new Date(0), "1970-01-01T00:00:00.000Z"],
  // boxed primitives, written as their values
  [new Number(1), new Number(2)],
  [new String("a"), "a"],
].map(
  (value) => {
    try {
      return json.encode(value, Dates);
    } catch (error) {
      return `${error.name}: ${error.message}`;
    }
  },
);

// a text that is not JSON is one issue, in `issues` too
const syntax = ['{"title":', new Uint8Array([0x22, 0xff, 0x22])].map((text) =>
  json.decode(text, Post, { issues: "all" }).issues?.map((issue) => issue.message)
);

// patterns JSON Schema's u flag reads otherwise are refused
const patterns = [/^[\p{L}&&\p{ASCII}]+$/v, /^a--b$/v].map((pattern) => {
  try {
    return toJsonSchema(s.string({ pattern })).pattern;
  } catch (error) {
    return error.name;
  }
});

// nesting past the limit is reported where the schema walks it, not in a member it ignores
const nested = (n) => "[".repeat(n) + "]".repeat(n);
const tooDeep = json.decode(
  `{"skip":${nested(600)},"a":${nested(600)}}`,
  s.object({ a: s.any() }),
).error?.offset;

// arrays and records are written member by member: their toJSON() is never called
class Tags extends Array {
  toJSON() {
    return { secret: "leak" };
  }
}
const toJSON = [
  json.encode({ tags: Tags.from(["a"]) }, s.object({ tags: s.array(s.string()) })),
  json.encode(
    Object.defineProperty({ a: "x" }, "toJSON", { value: () => "leak" }),
    s.record(s.string()),
  ),
];

// unique items whose toJSON() returns a new object at every call, nesting without end (the
// comparison walked on until the process ran out of memory)
class Node {
  constructor(parent) {
    this.parent = parent;
  }
  toJSON() {
    return this.parent === undefined ? { children: [new Node(this)] } : { parent: this.parent };
  }
}
let endless;
try {
  endless = json.encode([new Node(), 1], s.array(s.any(), { uniqueItems: true }));
} catch (error) {
  endless = `${error.name}: ${error.message}`;
}

// an array item cannot be optional
let optionalItem;
try {
  optionalItem = s.array(s.optional(s.string())).kind;
} catch (error) {
  optionalItem = `${error.name}: ${error.message}`;
}

console.log(
  JSON.stringify({
    generation,
    suite,
    posts,
    hostile,
    nothing,
    deep,
    dates,
    syntax,
    patterns,
    tooDeep,
    toJSON,
    endless,
    optionalItem,
  }),
);
