import assert from "node:assert/strict";
import { findViolations } from "../../scripts/check_runtime_isolation.ts";

Deno.test("only the runtime adapters touch Deno.* in lib/ and wsgi/", async () => {
  const root = new URL("../..", import.meta.url).pathname.replace(/\/$/, "");
  assert.deepEqual(await findViolations(root), []);
});

Deno.test("the isolation check reports a module that touches Deno.*", async () => {
  const root = await Deno.makeTempDir();
  try {
    await Deno.mkdir(`${root}/lib/server`, { recursive: true });
    await Deno.writeTextFile(`${root}/lib/server/deno.ts`, "Deno.serve(() => new Response());\n");
    await Deno.writeTextFile(
      `${root}/lib/bad.ts`,
      "// Deno.exit in a comment is fine\nDeno.exit(1);\n",
    );
    assert.deepEqual(await findViolations(root), ["lib/bad.ts:2: Deno.exit(1);"]);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
