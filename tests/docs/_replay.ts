// A guide replayed as a reader would follow it, from an empty folder next to the repository
// (here a link to it, standing for the clone): every block with `file=` is written to that file,
// every shell command is run in order, and every output the guide shows after a command (`# …`)
// must be what the command printed. `mkdir`, `cd` and `curl` mean the same in every guide; each
// guide's test says how to run its other commands (servers on a free port instead of 8000). A
// command the replay does not know fails the test, so that nothing a guide tells a reader to do
// goes untested.
import assert from "node:assert/strict";
import { resolve } from "node:path";
import { type ChildHandle, runChild, spawnChild } from "../_child.ts";
import { freePort } from "../realtime/_redis_server.ts";
import { codeBlocks, shellCommands } from "./_markdown.ts";

const ROOT = new URL("../..", import.meta.url);

/** How the replay runs a command that is not `mkdir`, `cd` or `curl`. */
export type Step =
  /** A server: started with `PORT` set to a free port, ready once its stderr says "Listening on". */
  | { server: string; args: string[] }
  /** A command that must succeed within `deadlineMs`; `check` looks at what it printed. */
  | { run: string; args: string[]; deadlineMs: number; check?: (output: string) => void };

/** What a guide's test tells {@linkcode replayGuide}. */
export interface Replay {
  /** The guide, relative to the repository. */
  guide: string;
  /** The step for a command's words, or undefined for a command the replay does not know. */
  step(words: string[]): Step | undefined;
  /** Fewer commands than this means the guide lost its commands. */
  minCommands: number;
}

/** The text of the guide at `path`, relative to the repository. */
export function readGuide(path: string): Promise<string> {
  return Deno.readTextFile(new URL(path, ROOT));
}

/**
 * Fails unless every code block of the guide is a drawing, commands (replayed), or in one of
 * `langs`; a block that `deno test --doc` does not run (ignored, or not TypeScript) must name
 * the file the replay writes it to.
 */
export function assertBlocksAccounted(guide: string, text: string, langs: string[]): void {
  for (const block of codeBlocks(text)) {
    const where = `${guide}:${block.line}`;
    if (block.lang === "" || block.lang === "sh") continue;
    assert.ok(langs.includes(block.lang), `${where}: a ${block.lang} block`);
    if (block.attributes.includes("ignore") || block.lang !== "ts") {
      assert.ok(block.file !== undefined, `${where}: a block the replay cannot reach, no file=`);
    }
  }
}

/** Replays the guide from an empty temporary folder, which it removes at the end. */
export async function replayGuide({ guide, step, minCommands }: Replay): Promise<void> {
  const text = await readGuide(guide);
  const work = await Deno.makeTempDir();
  await Deno.symlink(ROOT.pathname.replace(/\/$/, ""), `${work}/weft`);
  const state: ReplayState = { work, cwd: work, server: undefined, port: 0 };
  let ran = 0;
  try {
    for (const block of codeBlocks(text)) {
      if (block.file !== undefined) {
        await Deno.writeTextFile(`${state.cwd}/${block.file}`, block.text);
        continue;
      }
      if (block.lang !== "sh") continue;
      for (const command of shellCommands(block.text)) {
        const what = `"${command.source}" (${guide}:${block.line})`;
        for (const words of splitAtAnd(command.words)) {
          ran++;
          await runCommand(state, words, { what, env: command.env, output: command.output, step });
        }
      }
    }
    assert.ok(ran >= minCommands, `only ${ran} commands ran`);
  } finally {
    await state.server?.stop();
    await Deno.remove(work, { recursive: true });
  }
}

interface ReplayState {
  work: string;
  cwd: string;
  server: ChildHandle | undefined;
  port: number;
}

interface CommandContext {
  what: string;
  env: Record<string, string>;
  output: string | undefined;
  step: Replay["step"];
}

/** `a && b && c` as three commands (each must succeed, as `&&` means). */
function splitAtAnd(words: string[]): string[][] {
  const parts: string[][] = [[]];
  for (const word of words) {
    if (word === "&&") parts.push([]);
    else parts.at(-1)!.push(word);
  }
  return parts;
}

async function runCommand(state: ReplayState, words: string[], context: CommandContext) {
  const [program, ...args] = words;
  if (program === "mkdir" && args.length === 1) {
    await Deno.mkdir(resolve(state.cwd, args[0]));
  } else if (program === "cd" && args.length === 1) {
    state.cwd = resolve(state.cwd, args[0]);
    assert.ok(state.cwd.startsWith(state.work), `${context.what} leaves the work folder`);
  } else if (program === "curl") {
    await curl(state, args, context);
  } else {
    const step = context.step(words);
    if (step === undefined) throw new Error(`The replay does not know the command ${context.what}`);
    if ("server" in step) await startServer(state, step, context);
    else await runToEnd(state, step, context);
  }
}

async function startServer(
  state: ReplayState,
  step: { server: string; args: string[] },
  { what, env }: CommandContext,
) {
  await state.server?.stop();
  state.port = freePort();
  state.server = spawnChild(step.server, {
    what,
    args: step.args,
    cwd: state.cwd,
    env: { ...env, PORT: String(state.port) },
    stdout: "piped",
    stderr: "piped",
    deadlineMs: 300_000,
  });
  await state.server.waitForOutput("stderr", /Listening on/, { ms: 60_000, what });
}

async function runToEnd(
  state: ReplayState,
  step: { run: string; args: string[]; deadlineMs: number; check?: (output: string) => void },
  { what, env }: CommandContext,
) {
  const result = await runChild(step.run, {
    what,
    args: step.args,
    cwd: state.cwd,
    env,
    deadlineMs: step.deadlineMs,
  });
  const output = new TextDecoder().decode(new Uint8Array([...result.stdout, ...result.stderr]));
  assert.ok(result.success, `${what} failed:\n${output}`);
  step.check?.(output);
}

async function curl(state: ReplayState, args: string[], { what, output }: CommandContext) {
  const local = args.map((arg) => arg.replace("localhost:8000", `127.0.0.1:${state.port}`));
  const result = await runChild("curl", {
    what,
    args: ["--max-time", "10", ...local],
    cwd: state.cwd,
    deadlineMs: 20_000,
  });
  const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
  assert.ok(result.success, `${what} failed: ${text(result.stderr)}`);
  assert.equal(text(result.stdout).trimEnd(), output, what);
}
