// Child processes for Deno's tests, each under a deadline. runChild() runs a command to its end
// (Deno.Command#output() with a bound); spawnChild() starts one to talk to, wait on and stop.
// Past its deadline a child gets SIGTERM, then SIGKILL after a grace period, and the test fails
// with a message that says what it was waiting for. tests/node/_child.ts is the Node twin.
import { DeadlineError, terminate, type Termination, withDeadline } from "./_deadline.ts";

/** Options of {@linkcode runChild} and {@linkcode spawnChild}: Deno.Command's and the bounds. */
export interface ChildOptions extends Deno.CommandOptions {
  /** The child in words, for messages. @default the command line */
  what?: string;
  /** How long the child may run in all. @default 60000 */
  deadlineMs?: number;
  /** Time between SIGTERM and SIGKILL. @default 5000 */
  graceMs?: number;
}

/** Options of {@linkcode runChild}. */
export interface RunChildOptions extends ChildOptions {
  /** Written to the child's stdin, which is then closed. */
  input?: string | Uint8Array;
}

/**
 * Runs `command` to its end and returns its output, as Deno.Command#output() does. stdout and
 * stderr are piped and stdin is null unless `options` say otherwise. A child still running at
 * the deadline is stopped and the call rejects with a DeadlineError that quotes its stderr.
 */
export async function runChild(
  command: string | URL,
  options: RunChildOptions = {},
): Promise<Deno.CommandOutput> {
  const { what, deadlineMs = 60_000, graceMs = 5_000, input, ...rest } = options;
  const name = what ?? describe(command, rest.args);
  const child = new Deno.Command(command, {
    stdin: input === undefined ? "null" : "piped",
    stdout: "piped",
    stderr: "piped",
    ...rest,
  }).spawn();
  if (input !== undefined) {
    const writer = child.stdin.getWriter();
    // A child that exits without reading its input makes the write fail; its status tells.
    writer.write(typeof input === "string" ? new TextEncoder().encode(input) : input)
      .then(() => writer.close()).catch(() => {});
  }
  const output = child.output();
  try {
    return await withDeadline(output, deadlineMs, `${name} to exit`);
  } catch (error) {
    if (!(error instanceof DeadlineError)) throw error;
    const ended = await terminate(killable(child), name, { graceMs });
    const partial = await withDeadline(output, graceMs, `the output of ${name}`).catch(() => null);
    const stderr = partial && rest.stderr !== "inherit" && rest.stderr !== "null"
      ? `\n${new TextDecoder().decode(partial.stderr).slice(-2000)}`
      : "";
    throw new DeadlineError(`${error.message}; stopped it with ${ended}${stderr}`);
  }
}

/** What {@linkcode ChildHandle.stop} reports. */
export interface Stopped {
  status: Deno.CommandStatus;
  /** The last step needed: the child had exited, SIGTERM sufficed, or SIGKILL was needed. */
  ended: Termination;
}

/** A child started by {@linkcode spawnChild}. */
export interface ChildHandle {
  readonly pid: number;
  /** Everything the child has written to each piped stream so far. */
  readonly output: { stdout: string; stderr: string };
  /**
   * Resolves with the first match of `pattern` in the child's `stream`, from its start or from
   * offset `since` (`child.output.stdout.length` taken before an action), waiting up to `ms`;
   * rejects if the deadline passes or the stream ends first, quoting what it wrote.
   */
  waitForOutput(
    stream: "stdout" | "stderr",
    pattern: RegExp,
    options: { ms: number; what: string; since?: number },
  ): Promise<RegExpExecArray>;
  /**
   * Stops the child (SIGTERM, then SIGKILL after the grace period) and collects its output;
   * rejects if the child's own deadline had passed, since whatever it was doing never ended.
   * With `waitOnly`, for a child already asked to exit, no SIGTERM: SIGKILL after the grace.
   */
  stop(options?: { waitOnly?: boolean }): Promise<Stopped>;
}

/**
 * Starts `command` for a test to talk to. Piped stdout and stderr are read continuously into
 * {@linkcode ChildHandle.output} (a child never blocks on a full pipe); stdin is null unless
 * `options` say otherwise. The caller must call `stop()` in a `finally`.
 */
export function spawnChild(command: string | URL, options: ChildOptions = {}): ChildHandle {
  const { what, deadlineMs = 60_000, graceMs = 5_000, ...rest } = options;
  const name = what ?? describe(command, rest.args);
  const child = new Deno.Command(command, { stdin: "null", ...rest }).spawn();
  const output = { stdout: "", stderr: "" };
  const ended = { stdout: false, stderr: false };
  const wakers = new Set<() => void>();
  const wake = () => wakers.forEach((waker) => waker());
  const readers: ReadableStreamDefaultReader<string>[] = [];
  const pumps = (["stdout", "stderr"] as const)
    .filter((stream) => rest[stream] === "piped")
    .map(async (stream) => {
      const reader = child[stream].pipeThrough(new TextDecoderStream()).getReader();
      readers.push(reader);
      try {
        for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {
          output[stream] += chunk.value;
          wake();
        }
      } catch {
        // cancelled by stop()
      } finally {
        ended[stream] = true;
        wake();
      }
    });
  let expired: Termination | undefined;
  const timer = setTimeout(async () => {
    expired = await terminate(killable(child), name, { graceMs }).catch(() => "SIGKILL" as const);
  }, deadlineMs);

  return {
    pid: child.pid,
    output,
    async waitForOutput(stream, pattern, { ms, what: awaited, since = 0 }) {
      let waker = () => {};
      const found = new Promise<RegExpExecArray>((resolve, reject) => {
        waker = () => {
          const match = pattern.exec(output[stream].slice(since));
          if (match) resolve(match);
          else if (ended[stream]) {
            reject(new Error(`${name} closed its ${stream} before ${awaited}:\n${output[stream]}`));
          }
        };
      });
      wakers.add(waker);
      waker();
      try {
        return await withDeadline(found, ms, `${awaited} (${pattern} on the ${stream} of ${name})`);
      } catch (error) {
        if (!(error instanceof DeadlineError)) throw error;
        throw new DeadlineError(`${error.message}; it wrote:\n${output[stream].slice(-2000)}`);
      } finally {
        wakers.delete(waker);
      }
    },
    async stop({ waitOnly = false } = {}) {
      clearTimeout(timer);
      const step = await terminate(killable(child), name, { graceMs, waitOnly });
      const status = await child.status;
      // A grandchild may still hold a pipe open: read what is there, then let go.
      await withDeadline(Promise.all(pumps), graceMs, `the output of ${name}`).catch(() => {
        for (const reader of readers) reader.cancel().catch(() => {});
      });
      if (expired !== undefined) {
        throw new DeadlineError(
          `${name} was still running after ${deadlineMs} ms; stopped it with ${expired}`,
        );
      }
      return { status, ended: step };
    },
  };
}

function killable(child: Deno.ChildProcess) {
  return { kill: (signal: Deno.Signal) => child.kill(signal), exited: child.status };
}

function describe(command: string | URL, args: string[] = []): string {
  const program = String(command) === Deno.execPath() ? "deno" : String(command);
  return [program, ...args].join(" ").slice(0, 200);
}
