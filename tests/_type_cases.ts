// The type-test mechanism of tests/app, tests/client and tests/template: a type_cases.ts holds
// uses with errors, each under `// @ts-expect-error`. Importing it makes `deno test` type-check
// it (an unneeded directive is itself an error); typeCaseTests() adds the test that every
// directive covers a real error, by checking the file again without its directives.
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { runChild } from "./_child.ts";

/**
 * Registers the two type tests of a cases file: it type-checks with its directives, and
 * without them fails with exactly one error per directive (at least `minimum` of them).
 */
export function typeCaseTests(cases: URL, minimum: number): void {
  const name = cases.pathname.split("/").pop();

  Deno.test(`${name} type-checks with its @ts-expect-error directives`, async () => {
    const { code, stderr } = await runChild(Deno.execPath(), {
      what: `deno check on ${name}`,
      args: ["check", "--quiet", fileURLToPath(cases)],
      stdout: "null",
      deadlineMs: 120_000,
    });
    assert.equal(code, 0, new TextDecoder().decode(stderr));
  });

  Deno.test(`every @ts-expect-error in ${name} marks a real type error`, async () => {
    const source = await Deno.readTextFile(cases);
    const directives = source.match(/^\s*\/\/ @ts-expect-error/gm)?.length ?? 0;
    assert.ok(directives >= minimum, `expected at least ${minimum} cases, found ${directives}`);
    // The same file without the directives, its imports made absolute, in a temp folder.
    const stripped = source
      .replace(/^\s*\/\/ @ts-expect-error.*\n/gm, "")
      .replace(
        /(from|module) "(\.\.?\/[^"]+)"/g,
        (_, word, path) => `${word} "${new URL(path, cases).href}"`,
      );
    const dir = await Deno.makeTempDir();
    try {
      await Deno.writeTextFile(`${dir}/${name}`, stripped);
      const { code, stdout, stderr } = await runChild(Deno.execPath(), {
        what: `deno check on ${name} without its directives`,
        args: ["check", "--no-config", "--no-lock", `${dir}/${name}`],
        env: { NO_COLOR: "1" },
        deadlineMs: 120_000,
      });
      const output = new TextDecoder().decode(stdout) + new TextDecoder().decode(stderr);
      assert.notEqual(code, 0, "the cases must fail to type-check without the directives");
      // "Found N errors": a related message (TS6236 under a missing argument) prints a TS line
      // of its own but is no error of its own.
      const found = /Found (\d+) errors?/.exec(output)?.[1];
      const errors = found !== undefined
        ? Number(found)
        : output.match(/^TS\d+ \[ERROR\]/gm)?.length ?? 0;
      assert.equal(errors, directives, output);
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  });
}
