import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { findOutsideReferences } from "../../scripts/check_self_contained.ts";

// Built from parts, so that this file does not refer outside the repository itself.
const SIBLING = "../../" + "shared/corpora/xss/";
const MACHINE = "/" + "work/wt/weft/README.md";

Deno.test("the repository refers to no path outside it", async () => {
  const root = fileURLToPath(new URL("../..", import.meta.url)).replace(/\/$/, "");
  assert.deepEqual(await findOutsideReferences(root), []);
});

Deno.test("the self-containment check reports the bad file only", async () => {
  const root = await Deno.makeTempDir();
  try {
    await Deno.mkdir(`${root}/tests`);
    await Deno.writeTextFile(
      `${root}/tests/bad_test.ts`,
      [
        "// reads a corpus next to the repository, and a file of one machine",
        `const CORPUS = new URL("${SIBLING}", import.meta.url);`,
        `const README = Deno.readTextFileSync("${MACHINE}");`,
      ].join("\n") + "\n",
    );
    await Deno.writeTextFile(
      `${root}/tests/clean_test.ts`,
      [
        'const CORPUS = new URL("../fixtures/traversal/", import.meta.url);',
        'const payload = "../../../etc/passwd"; // a traversal payload climbs, but not to a sibling',
        'const dotfile = "/home/.bashrc"; // no user directory',
        // assembled, so that greps for such paths over the repository do not match this file
        `const url = "https://example.com/${"wo"}rk/root/"; // a URL path, not a file path`,
        `import { shared } from "../${"sha"}red_cases.ts";`,
      ].join("\n") + "\n",
    );
    assert.deepEqual(await findOutsideReferences(root), [
      `tests/bad_test.ts:2: const CORPUS = new URL("${SIBLING}", import.meta.url);`,
      `tests/bad_test.ts:3: const README = Deno.readTextFileSync("${MACHINE}");`,
    ]);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("the self-containment check skips lock files and vendored corpora", async () => {
  const root = await Deno.makeTempDir();
  try {
    await Deno.mkdir(`${root}/tests/fixtures/traversal`, { recursive: true });
    await Deno.writeTextFile(`${root}/tests/fixtures/traversal/payloads.txt`, `${SIBLING}\n`);
    await Deno.writeTextFile(`${root}/deno.lock`, `{ "path": "${MACHINE}" }\n`);
    assert.deepEqual(await findOutsideReferences(root), []);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
