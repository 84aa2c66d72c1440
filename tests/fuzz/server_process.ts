// Starts a server in a child process with a deadline, and reads its memory and descriptors from
// /proc. Written with node: APIs so that Deno tests, Deno scripts and vitest share it.
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import process from "node:process";
import { createInterface } from "node:readline";

/** A server child process that printed "ready <port>". */
export interface ServerProcess {
  readonly pid: number;
  readonly port: number;
  /** Whether the process is still running. */
  alive(): boolean;
  /** Exit code or signal once it ended. */
  exit(): string | null;
  /** The last few KiB it wrote to stdout and stderr. */
  output(): string;
  /** Resident memory in bytes (VmRSS), or null when /proc cannot tell. */
  rss(): number | null;
  /**
   * The heap the server reports on SIGUSR2 (servers started with `reportsHeap`, see
   * tests/fuzz/_heap.js), or null without such a report within `ms`.
   */
  heap(ms?: number): Promise<Heap | null>;
  /** Open file descriptors, or null when /proc cannot tell. */
  fds(): number | null;
  /** Sends a signal to the process. */
  signal(name: NodeJS.Signals): void;
  /** Resolves with how the process ended, or null when it still runs after `ms`. */
  waitExit(ms: number): Promise<string | null>;
  /** SIGTERM, then SIGKILL past `graceMs`; resolves with how it ended. */
  stop(graceMs?: number): Promise<string>;
}

/** A server's heap report, in bytes (null where the runtime does not tell). */
export interface Heap {
  rss: number;
  /** Live objects and garbage not yet collected. */
  used: number;
  /** What V8 holds for new and old objects, used or not. */
  newSpace: number | null;
  oldSpace: number | null;
  /** The longest event-loop stall since the last report, ms. */
  lagMs?: number;
}

/** Where the repository is (the working directory of every child). */
export const REPO = new URL("../../", import.meta.url).pathname;

/** The Deno executable running this code, or "deno" under Node. */
export function denoPath(): string {
  // deno-lint-ignore no-explicit-any
  const deno = (globalThis as any).Deno;
  return deno?.execPath?.() ?? "deno";
}

/**
 * Spawns `command args` in the repository and waits for "ready <port>" on stdout. The child is
 * killed with SIGKILL when `lifetimeMs` passes, whatever happens to the caller.
 */
export function startServer(
  command: string,
  args: string[],
  options: {
    lifetimeMs: number;
    readyMs?: number;
    env?: Record<string, string>;
    /** The child prints its heap on SIGUSR2 (without a handler, SIGUSR2 would end it). */
    reportsHeap?: boolean;
    /** Gets every line the child writes to stdout (V8's traces, with --trace-gc). */
    onOutput?: (line: string) => void;
  },
): Promise<ServerProcess> {
  const child: ChildProcess = spawn(command, args, {
    cwd: REPO,
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, NO_COLOR: "1", ...options.env },
  });
  let out = "";
  let ended: string | null = null;
  const exited = new Promise<string>((resolve) => {
    child.once("exit", (code, signal) => resolve(ended = signal ?? `exit ${code}`));
  });
  const hardStop = setTimeout(() => child.kill("SIGKILL"), options.lifetimeMs);
  exited.then(() => clearTimeout(hardStop));
  const keep = (chunk: Buffer) => {
    out = (out + chunk.toString()).slice(-8192);
  };
  // heap lines on stdout, for the one heap() call waiting (reports are asked one at a time)
  let heapText = "";
  let onHeap: ((heap: Heap) => void) | undefined;
  child.stdout!.on("data", (chunk: Buffer) => {
    if (onHeap === undefined) return;
    heapText += chunk.toString();
    const match = /^heap (\{.*\})$/m.exec(heapText);
    if (match !== null) onHeap(JSON.parse(match[1]));
  });
  child.stderr!.on("data", keep);
  if (options.onOutput !== undefined) {
    createInterface({ input: child.stdout! }).on("line", options.onOutput);
  }
  return new Promise((resolve, reject) => {
    const readyTimer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(
        new Error(`Cannot start ${command} ${args.join(" ")}: no "ready" line in time:\n${out}`),
      );
    }, options.readyMs ?? 60_000);
    let buffered = "";
    child.stdout!.on("data", (chunk: Buffer) => {
      keep(chunk);
      buffered += chunk.toString();
      const match = /ready (\d+)/.exec(buffered);
      if (match === null || buffered === "") return;
      buffered = "";
      clearTimeout(readyTimer);
      const pid = child.pid!;
      resolve({
        pid,
        port: Number(match[1]),
        alive: () => ended === null,
        exit: () => ended,
        output: () => out,
        rss: () => procStatus(pid, "VmRSS"),
        heap(ms = 2_000) {
          if (!options.reportsHeap || ended !== null || onHeap !== undefined) {
            return Promise.resolve(null);
          }
          heapText = "";
          let timer: ReturnType<typeof setTimeout> | undefined;
          return new Promise<Heap | null>((resolve) => {
            onHeap = resolve;
            timer = setTimeout(() => resolve(null), ms);
            process.kill(pid, "SIGUSR2");
          }).finally(() => {
            clearTimeout(timer);
            onHeap = undefined;
          });
        },
        fds: () => {
          try {
            return readdirSync(`/proc/${pid}/fd`).length;
          } catch {
            return null;
          }
        },
        // process.kill, not child.kill: Deno's child.kill() sends a given signal only once
        signal: (name) => void process.kill(pid, name),
        waitExit(ms) {
          let timer: ReturnType<typeof setTimeout> | undefined;
          const late = new Promise<null>((r) => timer = setTimeout(() => r(null), ms));
          return Promise.race([exited, late]).finally(() => clearTimeout(timer));
        },
        async stop(graceMs = 5_000) {
          if (ended !== null) return ended;
          child.kill("SIGTERM");
          const timer = setTimeout(() => child.kill("SIGKILL"), graceMs);
          const how = await exited;
          clearTimeout(timer);
          return how;
        },
      });
    });
    child.once("exit", () => {
      clearTimeout(readyTimer);
      reject(new Error(`${command} ${args.join(" ")} exited before it was ready:\n${out}`));
    });
  });
}

function procStatus(pid: number, field: string): number | null {
  try {
    const match = new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(
      readFileSync(`/proc/${pid}/status`, "utf8"),
    );
    return match ? Number(match[1]) * 1024 : null;
  } catch {
    return null;
  }
}

/** A python3 that can import the h2 stack (hpack, hyperframe), or null. */
export function findH2Python(): string | null {
  for (const candidate of ["python3", "/usr/bin/python3"]) {
    const probe = spawnSync(candidate, ["-c", "import hpack, hyperframe"], {
      timeout: 10_000,
      stdio: "ignore",
    });
    if (probe.status === 0) return candidate;
  }
  return null;
}
