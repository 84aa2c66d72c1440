// Process measurements and bookkeeping shared by the load benchmarks (bench/_load.ts,
// bench/static). CPU times come from ./_cpu.ts, which has no side effect on import.
export { cpuTicks, TICKS_PER_SECOND } from "./_cpu.ts";

const running = new Set<Deno.ChildProcess>();

/** Ends every server still tracked; SIGINT and SIGTERM do this before the script exits. */
export function stopAll(): void {
  for (const child of running) {
    try {
      child.kill("SIGTERM");
    } catch {
      // already gone
    }
  }
}
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  Deno.addSignalListener(signal, () => {
    stopAll();
    Deno.exit(130);
  });
}

/** Tracks a server this script started, so that stopAll() ends it. */
export function track(child: Deno.ChildProcess): Deno.ChildProcess {
  running.add(child);
  return child;
}

/** Ends a tracked server: SIGTERM, then SIGKILL if it is still there after 5 s. */
export async function stop(child: Deno.ChildProcess): Promise<void> {
  try {
    child.kill("SIGTERM");
  } catch {
    // already exited
  }
  const timer = setTimeout(() => {
    try {
      child.kill("SIGKILL");
    } catch {
      // exited meanwhile
    }
  }, 5000);
  await child.status;
  clearTimeout(timer);
  running.delete(child);
}

/** The median of a non-empty list. */
export function median(values: readonly number[]): number {
  return [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
}

/** Half the range of a list relative to its median, as `±n%`: how far apart two medians must be
 * before their order means anything. */
export function spread(values: readonly number[]): string {
  const m = median(values);
  return `±${(50 * (Math.max(...values) - Math.min(...values)) / m).toFixed(0)}%`;
}

/** The one-minute load average, to report how busy the machine was while measuring. */
export async function loadAverage(): Promise<number> {
  return Number((await Deno.readTextFile("/proc/loadavg")).split(" ")[0]);
}

/**
 * Waits until a server accepts connections on `port` (20 s at most); fails early when `child`,
 * the server's process, exits first.
 */
export async function waitForPort(port: number, child?: Deno.ChildProcess): Promise<void> {
  const deadline = Date.now() + 20_000;
  let exited = false;
  child?.status.then(() => exited = true);
  while (Date.now() < deadline && !exited) {
    try {
      (await Deno.connect({ hostname: "127.0.0.1", port })).close();
      return;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
  throw new Error(`the server on port ${port} did not start`);
}
