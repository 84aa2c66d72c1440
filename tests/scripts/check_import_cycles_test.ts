import assert from "node:assert/strict";
import { checkCycles, findCycles } from "../../scripts/check_import_cycles.ts";

async function withTree(files: Record<string, string>, fn: (root: string) => Promise<void>) {
  const root = await Deno.makeTempDir();
  try {
    for (const [path, text] of Object.entries(files)) {
      await Deno.mkdir(`${root}/${path.split("/").slice(0, -1).join("/")}`, { recursive: true });
      await Deno.writeTextFile(`${root}/${path}`, text);
    }
    await fn(root);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
}

Deno.test("lib/ and wsgi/ have no import cycle beyond the known ones", async () => {
  const root = new URL("../..", import.meta.url).pathname.replace(/\/$/, "");
  assert.deepEqual(await checkCycles(root), { cycles: [], stale: [] });
});

Deno.test("the cycle check reports a cycle made of type imports and re-exports", async () => {
  await withTree({
    "lib/a.ts": 'import type { B } from "./sub/b.ts";\nexport type A = B;\n',
    "lib/sub/b.ts": 'export type { C as B } from "../c.ts";\n',
    "lib/c.ts": 'import {\n  type A,\n} from "./a.ts";\nexport type C = string | A[];\n',
  }, async (root) => {
    assert.deepEqual(await findCycles(root), [[
      "lib/a.ts",
      "lib/sub/b.ts",
      "lib/c.ts",
      "lib/a.ts",
    ]]);
  });
});

Deno.test("the cycle check follows import() and ignores imports in comments", async () => {
  await withTree({
    "lib/a.ts":
      '/**\n * import { b } from "./b.ts";\n */\n// import "./b.ts";\nexport const a = 1;\n',
    "lib/b.ts": 'import { a } from "./a.ts";\nexport const b = () => import("./c.ts");\n',
    "lib/c.ts": 'export const c = import("./b.ts");\n',
  }, async (root) => {
    assert.deepEqual(await findCycles(root), [["lib/b.ts", "lib/c.ts", "lib/b.ts"]]);
  });
});

Deno.test("the cycle check fails on a known cycle that is gone", async () => {
  await withTree({ "lib/a.ts": "export const a = 1;\n" }, async (root) => {
    assert.deepEqual(await checkCycles(root, [["lib/a.ts", "lib/b.ts"]]), {
      cycles: [],
      stale: [["lib/a.ts", "lib/b.ts"]],
    });
  });
});
