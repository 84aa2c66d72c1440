// Child processes for the Node tests, each under a deadline: tests/_child.ts's runChild() on
// node:child_process. Past its deadline a child gets SIGTERM, then SIGKILL after a grace
// period, and the call rejects with what it was running and what it had written to stderr.
// Deadlines stay below vitest's own timeouts, which fail a test but leave its child running.
import { spawn } from "node:child_process";
import { DeadlineError, terminate, withDeadline } from "../_deadline.ts";

/** Options of {@linkcode runChild}. */
export interface RunChildOptions {
  args?: string[];
  cwd?: string;
  /** The child in words, for messages. @default the command line */
  what?: string;
  /** How long the child may run. @default 60000 */
  deadlineMs?: number;
  /** Time between SIGTERM and SIGKILL. @default 5000 */
  graceMs?: number;
}

/** What {@linkcode runChild} returns, as Deno.Command#output() does. */
export interface ChildOutput {
  code: number | null;
  signal: NodeJS.Signals | null;
  success: boolean;
  stdout: Uint8Array;
  stderr: Uint8Array;
}

/** Runs `command` to its end, stdin closed, stdout and stderr collected, within the deadline. */
export async function runChild(
  command: string,
  options: RunChildOptions = {},
): Promise<ChildOutput> {
  const { args = [], cwd, deadlineMs = 60_000, graceMs = 5_000 } = options;
  const name = options.what ?? [command, ...args].join(" ").slice(0, 200);
  const child = spawn(command, args, { cwd, stdio: ["ignore", "pipe", "pipe"] });
  const stdout: Uint8Array[] = [];
  const stderr: Uint8Array[] = [];
  child.stdout.on("data", (chunk: Uint8Array) => stdout.push(chunk));
  child.stderr.on("data", (chunk: Uint8Array) => stderr.push(chunk));
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  // "close" comes after "exit", once the pipes are drained.
  const closed = new Promise<ChildOutput>((resolve, reject) => {
    child.once("error", reject);
    child.once("close", (code, signal) =>
      resolve({
        code,
        signal,
        success: code === 0,
        stdout: Buffer.concat(stdout),
        stderr: Buffer.concat(stderr),
      }));
  });
  try {
    return await withDeadline(closed, deadlineMs, `${name} to exit`);
  } catch (error) {
    if (!(error instanceof DeadlineError)) throw error;
    const ended = await terminate({ kill: (signal) => child.kill(signal), exited }, name, {
      graceMs,
    });
    const written = Buffer.concat(stderr).toString("utf8").slice(-2000);
    throw new DeadlineError(`${error.message}; stopped it with ${ended}\n${written}`);
  }
}
