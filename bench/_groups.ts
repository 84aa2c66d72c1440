// Benchmarks are declared once and run two ways: by `deno bench` (Deno.bench runs a group's
// cases one after the other) and by bench/interleaved.ts, which alternates a group's cases
// batch by batch, so that a drift of the machine's speed reaches every case alike.

/** One benchmark of a group. */
export interface Case {
  name: string;
  fn: () => void | Promise<void>;
  baseline: boolean;
}

/** Every group declared so far, by title, its cases in declaration order. */
export const groups: Map<string, Case[]> = new Map();

/** Declares a case of a group (the group's baseline when `baseline` is set). */
export function bench(
  group: string,
  name: string,
  fn: Case["fn"],
  baseline = false,
): void {
  let cases = groups.get(group);
  if (cases === undefined) groups.set(group, cases = []);
  cases.push({ name, fn, baseline });
  Deno.bench({ group, name, baseline, fn });
}
