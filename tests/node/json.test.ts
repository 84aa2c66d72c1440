// weft/json from the npm package on Node: JSONTestSuite, constraints, every issue and hostile
// member names give the same answers with generated checks and with code generation forbidden
// (the reference checker).
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { test } from "vitest";
import { runChild } from "./_child.ts";

const script = fileURLToPath(new URL("json_answers.mjs", import.meta.url));

async function answers(flags: string[]): Promise<Record<string, unknown>> {
  const { success, stdout, stderr } = await runChild(process.execPath, {
    args: [...flags, script],
    deadlineMs: 50_000,
  });
  const decoder = new TextDecoder();
  assert.ok(success, decoder.decode(stderr));
  return JSON.parse(decoder.decode(stdout));
}

test("weft/json answers alike with generated checks and with code generation forbidden", async () => {
  const generated = await answers([]);
  const walked = await answers(["--disallow-code-generation-from-strings"]);
  assert.equal(generated.generation, true);
  assert.equal(walked.generation, false);
  assert.deepEqual({ ...walked, generation: true }, generated);
  const suite = Object.entries(generated.suite as Record<string, string>);
  assert.equal(
    suite.filter(([name, answer]) => name.startsWith("y_") && answer === "ok")
      .length,
    95,
  );
  assert.equal(
    suite.filter(([name, answer]) => name.startsWith("n_") && answer.startsWith("syntax_error@"))
      .length,
    188,
  );
  const [good, bad] = generated.posts as {
    ok: boolean;
    issues?: { message: string }[];
  }[];
  assert.equal(good.ok, true);
  assert.deepEqual(bad.issues?.map((issue) => issue.message), [
    "$.title: must be at most 5 characters, got 6",
    "$.id: must be more than 0, got 0",
    "$.email: must be an email address",
    "$.when: must be an RFC 3339 date-time",
    "$.tags: must have at most 2 items, got 3",
    'unexpected field "x" at $.x',
  ]);
  assert.deepEqual(generated.hostile, [
    true,
    '{"\\"]);process.exit(1);//":"\\"]);process.exit(1);//","__proto__":"__proto__","a\u2028b":"a\u2028b"}',
  ]);
  assert.deepEqual(generated.nothing, [
    "TypeError: Cannot encode undefined: it has no JSON form",
    "TypeError: Cannot encode function: it has no JSON form",
    "TypeError: Cannot encode symbol: it has no JSON form",
  ]);
  assert.deepEqual(generated.deep, [true, "$: must have unique items, [1] repeats one"]);
  assert.deepEqual(generated.dates, [
    '["1970-01-01T00:00:00.000Z","1970-01-01T00:00:00.001Z"]',
    "TypeError: Cannot encode the value: $: must have unique items, [1] repeats one",
    "[1,2]",
    "TypeError: Cannot encode the value: $: must have unique items, [1] repeats one",
  ]);
  assert.deepEqual(generated.syntax, [
    ["Unexpected end of input: expected a value at byte 9"],
    ["Invalid UTF-8: byte 0xff cannot start a character at byte 1"],
  ]);
  assert.deepEqual(generated.patterns, ["TypeError", "^a--b$"]);
  assert.equal(generated.tooDeep, 1213 + 511); // "a" holds the 513th bracket
  assert.deepEqual(generated.toJSON, ['{"tags":["a"]}', '{"a":"x"}']);
  assert.equal(
    generated.endless,
    "TypeError: Cannot compare items: toJSON() nests values more than 10000 levels deep",
  );
  assert.equal(
    generated.optionalItem,
    "TypeError: Cannot build an array schema: an item cannot be optional (use nullable)",
  );
});
