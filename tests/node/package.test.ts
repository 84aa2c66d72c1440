// The package as npm will publish it: publint (strict) and Are the Types Wrong (node16: ES
// module and CommonJS importers, and bundlers) on
// npm/, run here so that CI counts them with the other tests.
import { fileURLToPath } from "node:url";
import assert from "node:assert/strict";
import { test } from "vitest";
import { runChild } from "./_child.ts";

const npmDir = fileURLToPath(new URL("../../npm", import.meta.url));
const bin = (name: string) => fileURLToPath(new URL(`node_modules/.bin/${name}`, import.meta.url));

// Within vitest's 60 s test timeout, so that a hung tool is killed and named.
async function run(
  command: string,
  args: string[],
): Promise<{ code: number; output: string }> {
  const { code, stdout, stderr } = await runChild(command, { args, deadlineMs: 50_000 });
  const decoder = new TextDecoder();
  return { code: code ?? 1, output: decoder.decode(stdout) + decoder.decode(stderr) };
}

test("publint --strict finds nothing in npm/", async () => {
  const { code, output } = await run(bin("publint"), [npmDir, "--strict"]);
  assert.equal(code, 0, output);
  assert.match(output, /All good/);
});

test("attw --profile node16 resolves every entry point with types, for import and require", async () => {
  const { code, output } = await run(bin("attw"), [
    "--pack",
    npmDir,
    "--profile",
    "node16",
    // attw counts require() of an ES module as an error, as it was before Node 20.19; the
    // package's floor loads one (smoke.test.ts requires every entry point from CommonJS)
    "--ignore-rules",
    "cjs-resolves-to-esm",
  ]);
  assert.equal(code, 0, output);
  for (
    const entry of [
      '"weft"',
      '"weft/wsgi"',
      '"weft/template"',
      '"weft/multipart"',
      '"weft/compress"',
      '"weft/jwt"',
      '"weft/redis"',
      '"weft/client"',
    ]
  ) {
    assert.ok(output.includes(entry), `${entry} was not checked:\n${output}`);
  }
});
