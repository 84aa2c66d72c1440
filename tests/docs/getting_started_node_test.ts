// docs/getting-started-node.md, replayed from an empty folder as a reader would follow it
// (tests/docs/_replay.ts), with node and npm for real: `npx -y deno@… task build:npm` is this
// Deno building the package in the clone, `npm install` installs it from there (its dependencies
// come from the npm cache or the registry, as in tests/node/smoke.test.ts), `node server.js`
// starts the server and `node --test` runs the guide's tests.
import assert from "node:assert/strict";
import { runChild } from "../_child.ts";
import { codeBlocks } from "./_markdown.ts";
import { assertBlocksAccounted, readGuide, replayGuide, type Step } from "./_replay.ts";

const GUIDE = "docs/getting-started-node.md";
const CONFIG = new URL("../../deno.json", import.meta.url).pathname;

Deno.test(`${GUIDE}: every code block is written, run or checked`, async () => {
  assertBlocksAccounted(GUIDE, await readGuide(GUIDE), ["js", "json"]);
});

// The guide says `// @ts-check` makes an editor check the files against Weft's types: each
// JavaScript file must say it, and must pass that check (deno check, with the repository's
// import map standing for the package).
Deno.test(`${GUIDE}: the JavaScript files type-check against Weft's types`, async () => {
  const files = codeBlocks(await readGuide(GUIDE)).filter((block) => block.lang === "js");
  assert.ok(files.length >= 3, `only ${files.length} JavaScript files`);
  const dir = await Deno.makeTempDir();
  try {
    for (const block of files) {
      assert.ok(block.text.startsWith("// @ts-check\n"), `${GUIDE}:${block.line}: no @ts-check`);
      await Deno.writeTextFile(`${dir}/${block.file}`, block.text);
    }
    const result = await runChild(Deno.execPath(), {
      args: ["check", "--no-lock", "--config", CONFIG, ...files.map((block) => block.file!)],
      cwd: dir,
      deadlineMs: 120_000,
    });
    const stderr = new TextDecoder().decode(result.stderr);
    assert.ok(result.success, `deno check failed:\n${stderr}`);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

function step(words: string[]): Step | undefined {
  const [program, ...args] = words;
  if (program === "npx" && args[0] === "-y" && /^deno@/.test(args[1] ?? "")) {
    const rest = args.slice(2);
    if (rest.join(" ") !== "task build:npm") return undefined;
    return { run: Deno.execPath(), args: rest, deadlineMs: 240_000 };
  }
  if (program === "npm" && args[0] === "install") {
    // Quiet and cache-first, as tests/node/smoke.test.ts installs; the packages are the same.
    const quiet = ["--prefer-offline", "--no-audit", "--no-fund"];
    return { run: "npm", args: [...args, ...quiet], deadlineMs: 180_000 };
  }
  if (program === "node" && args.length === 1 && args[0].endsWith(".js")) {
    return { server: "node", args };
  }
  if (program === "node" && args.join(" ") === "--test") {
    return { run: "node", args, deadlineMs: 60_000, check: testsPassed };
  }
  return undefined;
}

/** node --test exits 0 when it finds no test at all: the guide's tests must have run. */
function testsPassed(output: string): void {
  assert.match(output, /^# pass [1-9]/m, `node --test ran no test:\n${output}`);
  assert.match(output, /^# fail 0$/m, output);
}

Deno.test({
  name: `${GUIDE} works from an empty folder with node and npm, as written`,
  sanitizeResources: false,
  fn: () => replayGuide({ guide: GUIDE, step, minCommands: 12 }),
});
