// Process measurements shared by the load benchmarks (bench/load, bench/static).

/** Clock ticks per second of /proc/<pid>/stat's CPU times (USER_HZ on Linux). */
export const TICKS_PER_SECOND = 100;

/** The CPU time a process has used so far, in clock ticks (utime + stime). */
export async function cpuTicks(pid: number): Promise<number> {
  const stat = await Deno.readTextFile(`/proc/${pid}/stat`);
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return Number(fields[11]) + Number(fields[12]); // fields 14 and 15 of proc(5)
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
