// The package as npm will publish it: publint (strict) and Are the Types Wrong (ESM only) on
// npm/, run here so that CI counts them with the other tests.
import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import assert from "node:assert/strict";
import { test } from "vitest";

const npmDir = fileURLToPath(new URL("../../npm", import.meta.url));
const bin = (name: string) => fileURLToPath(new URL(`node_modules/.bin/${name}`, import.meta.url));

function run(
  command: string,
  args: string[],
): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    execFile(
      command,
      args,
      { maxBuffer: 16 * 1024 * 1024 },
      (error, stdout, stderr) => {
        resolve({
          code: error ? Number(error.code ?? 1) : 0,
          output: stdout + stderr,
        });
      },
    );
  });
}

test("publint --strict finds nothing in npm/", async () => {
  const { code, output } = await run(bin("publint"), [npmDir, "--strict"]);
  assert.equal(code, 0, output);
  assert.match(output, /All good/);
});

test("attw --profile esm-only resolves every entry point with types", async () => {
  const { code, output } = await run(bin("attw"), [
    "--pack",
    npmDir,
    "--profile",
    "esm-only",
  ]);
  assert.equal(code, 0, output);
  for (const entry of ['"weft"', '"weft/wsgi"', '"weft/template"']) {
    assert.ok(output.includes(entry), `${entry} was not checked:\n${output}`);
  }
});
