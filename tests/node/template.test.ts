// weft/template's compiler on Node, whose call stack differs from Deno's: a long template and
// deep nesting (tests/template/ covers them on Deno).
import assert from "node:assert/strict";
import { test } from "vitest";
import { compileTemplate, TemplateSyntaxError } from "weft/template";

test("a long template compiles: its 300,000 lines were spread into one call", () => {
  const row = '<p title="{{a}}">{{b}}</p>\n';
  assert.match(
    compileTemplate(row.repeat(150_000), { file: "t.html" }),
    /escapeHtml\(data\.b\)/,
  );
});

test("blocks nested 5,000 deep are a compile error, not a RangeError of the compiler", () => {
  assert.throws(
    () => compileTemplate("{{#if a}}".repeat(5000) + "x" + "{{/if}}".repeat(5000)),
    (error: unknown) =>
      error instanceof TemplateSyntaxError && error.column === 4501 &&
      error.reason === "Too deeply nested: blocks may nest 500 deep",
  );
});

test("an error's excerpt of a long line is the part around the column", () => {
  assert.throws(
    () => compileTemplate("x".repeat(100_000) + "{{a..b}}" + "y".repeat(100_000)),
    (error: unknown) =>
      error instanceof TemplateSyntaxError &&
      error.excerpt.split("\n")[0] === `1 | …${"x".repeat(78)}{{a..b}}${"y".repeat(74)}…`,
  );
});
