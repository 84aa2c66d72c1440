// CPU time of a process from /proc/<pid>/stat, for the benchmarks (through ./_proc.ts) and
// the soak (tests/soak), which must not take on _proc.ts's signal handlers.

/** Clock ticks per second of /proc/<pid>/stat's CPU times (USER_HZ on Linux). */
export const TICKS_PER_SECOND = 100;

/** The CPU time a process has used so far, in clock ticks (utime + stime). */
export async function cpuTicks(pid: number): Promise<number> {
  return ticksOf(await Deno.readTextFile(`/proc/${pid}/stat`));
}

/** {@linkcode cpuTicks}, read synchronously; `"self"` for this process. */
export function cpuTicksSync(pid: number | "self"): number {
  return ticksOf(Deno.readTextFileSync(`/proc/${pid}/stat`));
}

// The fields after the command name, which is in parentheses and may hold ") " itself.
function ticksOf(stat: string): number {
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return Number(fields[11]) + Number(fields[12]); // fields 14 and 15 of proc(5)
}
