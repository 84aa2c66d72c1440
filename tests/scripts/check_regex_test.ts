import assert from "node:assert/strict";
import { findRegexes, findVulnerable } from "../../scripts/check_regex.ts";

Deno.test("no regular expression in lib/ or wsgi/ can backtrack super-linearly", async () => {
  const root = new URL("../..", import.meta.url).pathname.replace(/\/$/, "");
  assert.deepEqual(await findVulnerable(root), []);
});

Deno.test("the regex audit reports /^(a+)+$/, a run-time RegExp and stale allowances", async () => {
  const root = await Deno.makeTempDir();
  try {
    await Deno.mkdir(`${root}/lib`);
    await Deno.mkdir(`${root}/wsgi`);
    await Deno.writeTextFile(
      `${root}/lib/bad.ts`,
      [
        "// /^(a+)+$/ in a comment is not code",
        "export const nested = /^(a+)+$/;",
        'export const safe = new RegExp("^[a-z]+$", "i");',
        "export const built = (s: string) => new RegExp(s);",
        "export const allowed = (s: string) => RegExp(s);",
      ].join("\n"),
    );
    await Deno.writeTextFile(
      `${root}/wsgi/quadratic.ts`,
      'export const trim = "x".split(/\\s*,\\s*/);\n',
    );
    const problems = await findVulnerable(root, [
      { file: "lib/bad.ts", text: "RegExp(s)", why: "test" },
      { file: "lib/gone.ts", text: "/a/", why: "test" },
    ]);
    assert.equal(problems.length, 4, problems.join("\n"));
    assert.match(problems[0], /^lib\/bad\.ts:2: \/\^\(a\+\)\+\$\/: exponential backtracking/);
    assert.match(problems[1], /^lib\/bad\.ts:4: new RegExp\(s\): built at run time/);
    assert.match(
      problems[2],
      /^wsgi\/quadratic\.ts:1: \/\\s\*,\\s\*\/: 2nd degree polynomial backtracking, e.g. /,
    );
    assert.equal(problems[3], "lib/gone.ts: allowed regex not found: /a/");
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("findRegexes() reads literals, flags and RegExp calls with constant arguments", () => {
  const found = findRegexes(
    "x.ts",
    'const a = /a\\/b/gi;\nconst b = new RegExp(`c`, "y");\nconst c = "/not/ a regex";\n',
  );
  assert.deepEqual(found.map(({ line, pattern }) => [line, pattern]), [
    [1, { source: "a\\/b", flags: "gi" }],
    [2, { source: "c", flags: "y" }],
  ]);
});
