// docs/getting-started.md, replayed from an empty folder as a reader would follow it
// (tests/docs/_replay.ts): `deno` is this Deno, `deno run` starts the guide's server and
// `deno test` runs the guide's tests.
import { assertBlocksAccounted, readGuide, replayGuide, type Step } from "./_replay.ts";

const GUIDE = "docs/getting-started.md";

Deno.test(`${GUIDE}: every code block is written, run or checked`, async () => {
  assertBlocksAccounted(GUIDE, await readGuide(GUIDE), ["ts", "json"]);
});

function step([program, ...args]: string[]): Step | undefined {
  if (program !== "deno") return undefined;
  if (args[0] === "run") return { server: Deno.execPath(), args };
  if (args[0] === "test") return { run: Deno.execPath(), args, deadlineMs: 120_000 };
  return undefined;
}

Deno.test({
  name: `${GUIDE} works from an empty folder, as written`,
  sanitizeResources: false,
  fn: () => replayGuide({ guide: GUIDE, step, minCommands: 10 }),
});
