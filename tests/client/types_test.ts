// Type tests of the typed client: type_cases.ts holds uses with errors, each under
// `// @ts-expect-error`. Importing it makes `deno test` type-check it (an unneeded directive is
// itself an error); the test below checks that every directive covers a real error. The same
// mechanism as tests/app/types_test.ts.
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { typeCases } from "./type_cases.ts";
import { runChild } from "../_child.ts";

const CASES = new URL("./type_cases.ts", import.meta.url);

Deno.test("type_cases.ts type-checks with its @ts-expect-error directives", async () => {
  assert.equal(typeof typeCases, "function");
  const { code, stderr } = await runChild(Deno.execPath(), {
    what: "deno check on type_cases.ts",
    args: ["check", "--quiet", fileURLToPath(CASES)],
    stdout: "null",
    deadlineMs: 120_000,
  });
  assert.equal(code, 0, new TextDecoder().decode(stderr));
});

Deno.test("every @ts-expect-error in type_cases.ts marks a real type error", async () => {
  const source = await Deno.readTextFile(CASES);
  const directives = source.match(/^\s*\/\/ @ts-expect-error/gm)?.length ?? 0;
  assert.ok(directives >= 15, `expected at least 15 cases, found ${directives}`);
  // The same file without the directives, its imports made absolute, in a temp folder.
  const stripped = source
    .replace(/^\s*\/\/ @ts-expect-error.*\n/gm, "")
    .replace(
      /(from|module) "(\.\.?\/[^"]+)"/g,
      (_, word, path) => `${word} "${new URL(path, CASES).href}"`,
    );
  const dir = await Deno.makeTempDir();
  try {
    await Deno.writeTextFile(`${dir}/type_cases.ts`, stripped);
    const { code, stdout, stderr } = await runChild(Deno.execPath(), {
      what: "deno check on type_cases.ts without its directives",
      args: ["check", "--no-config", "--no-lock", `${dir}/type_cases.ts`],
      env: { NO_COLOR: "1" },
      deadlineMs: 120_000,
    });
    const output = new TextDecoder().decode(stdout) + new TextDecoder().decode(stderr);
    assert.notEqual(code, 0, "the cases must fail to type-check without the directives");
    // "Found N errors": a related message (TS6236 under a missing argument) is no error of its own.
    const errors = Number(/Found (\d+) errors?/.exec(output)?.[1] ?? 0);
    assert.equal(errors, directives, output);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
