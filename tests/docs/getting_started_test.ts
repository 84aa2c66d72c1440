// docs/getting-started.md, replayed as a reader would follow it: from an empty folder next to
// the repository (here a link to it, standing for the clone), every block with `file=` is written
// to that file, every shell command is run in order (`deno` being this Deno, servers on a free
// port instead of 8000), and every output the guide shows after a command (`# …`) must be what
// the command printed. A command the replay does not know fails the test, so that nothing the
// guide tells a reader to do goes untested.
import assert from "node:assert/strict";
import { type ChildHandle, runChild, spawnChild } from "../_child.ts";
import { freePort } from "../realtime/_redis_server.ts";
import { codeBlocks, shellCommands } from "./_markdown.ts";

const ROOT = new URL("../..", import.meta.url);
const GUIDE = await Deno.readTextFile(new URL("docs/getting-started.md", ROOT));

Deno.test("docs/getting-started.md: every code block is written, run or checked", () => {
  for (const block of codeBlocks(GUIDE)) {
    const where = `docs/getting-started.md:${block.line}`;
    if (block.lang === "" || block.lang === "sh") continue; // a drawing; commands (replayed)
    assert.ok(["ts", "json"].includes(block.lang), `${where}: a ${block.lang} block`);
    // An ignored block is not run by deno test --doc: the replay must write it.
    if (block.attributes.includes("ignore") || block.lang === "json") {
      assert.ok(block.file !== undefined, `${where}: an ignored block without file=`);
    }
  }
});

Deno.test({
  name: "docs/getting-started.md works from an empty folder, as written",
  sanitizeResources: false,
  async fn() {
    const work = await Deno.makeTempDir();
    await Deno.symlink(ROOT.pathname.replace(/\/$/, ""), `${work}/weft`);
    let cwd = work;
    let server: ChildHandle | undefined;
    let port = 0;
    let ran = 0;
    try {
      for (const block of codeBlocks(GUIDE)) {
        if (block.file !== undefined) {
          await Deno.writeTextFile(`${cwd}/${block.file}`, block.text);
          continue;
        }
        if (block.lang !== "sh") continue;
        for (const command of shellCommands(block.text)) {
          const [program, ...args] = command.words;
          const what = `"${command.source}" (docs/getting-started.md:${block.line})`;
          ran++;
          if (program === "mkdir" && args[1] === "&&" && args[2] === "cd") {
            assert.equal(args[0], args[3], what);
            await Deno.mkdir(`${cwd}/${args[0]}`);
            cwd = `${cwd}/${args[0]}`;
          } else if (program === "deno" && args[0] === "run") {
            await server?.stop();
            port = freePort();
            server = spawnChild(Deno.execPath(), {
              what,
              args,
              cwd,
              env: { PORT: String(port) },
              stdout: "piped",
              stderr: "piped",
              deadlineMs: 300_000,
            });
            await server.waitForOutput("stderr", /Listening on/, { ms: 60_000, what });
          } else if (program === "deno" && args[0] === "test") {
            const result = await runChild(Deno.execPath(), {
              what,
              args,
              cwd,
              deadlineMs: 120_000,
            });
            const output = new TextDecoder().decode(
              new Uint8Array([...result.stdout, ...result.stderr]),
            );
            assert.ok(result.success, `${what} failed:\n${output}`);
          } else if (program === "curl") {
            const local = args.map((arg) => arg.replace("localhost:8000", `127.0.0.1:${port}`));
            const result = await runChild("curl", {
              what,
              args: ["--max-time", "10", ...local],
              cwd,
              deadlineMs: 20_000,
            });
            const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
            assert.ok(result.success, `${what} failed: ${text(result.stderr)}`);
            assert.equal(text(result.stdout).trimEnd(), command.output, what);
          } else {
            throw new Error(`The replay does not know the command ${what}`);
          }
        }
      }
      assert.ok(ran >= 10, `only ${ran} commands ran`);
    } finally {
      await server?.stop();
      await Deno.remove(work, { recursive: true });
    }
  },
});
