// The micro-benchmarks of `deno task bench`, interleaved: every round runs one batch of each
// case of a group (about --batch-ms each, in an order that rotates from round to round), and a
// case's ratio to the group's baseline is taken within the round, so a drift of the machine's
// speed between rounds cancels out. Prints, per case, the median time per call, the median
// of its per-round ratios with that median's 95% confidence interval, and the range holding the
// middle 80% of the ratios.
//
// One process's figures are one sample of what the JIT decides (which calls it inlines, when
// it compiles what), and those decisions differ from process to process by more than the
// confidence interval of a run. With --processes N the groups run in N processes one after
// the other, and each case's median ratio is given as the median over the processes with
// their range.
//
//   deno run -A bench/interleaved.ts [--filter <text in a group's title>] [--rounds 150]
//                                    [--batch-ms 2] [--processes 1] [--json <file>]
//   deno run -A --v8-flags=--disallow-code-generation-from-strings bench/interleaved.ts …
//     (JSON decoding where code generation is forbidden; child processes get the flag too)
//
// --json (one process only) also writes every group's figures to <file>, for bench/report.
import { type Case, groups } from "./_groups.ts";

// Where code generation from strings is forbidden (run with
// --v8-flags=--disallow-code-generation-from-strings) only the JSON decoding that works there
// is measured: the other suites' anchors (TypeBox, fast-json-stringify) need it.
const NO_EVAL = (() => {
  try {
    new Function("return 1");
    return false;
  } catch {
    return true;
  }
})();
if (NO_EVAL) await import("./json_noeval_bench.ts");
else {
  await import("./router_bench.ts");
  await import("./json_bench.ts");
  await import("./app_bench.ts");
  await import("./template_bench.ts");
  await import("./describe_bench.ts");
}

const args = Deno.args;
const option = (name: string, fallback: string) => {
  const i = args.indexOf(name);
  return i === -1 ? fallback : args[i + 1];
};
const FILTER = option("--filter", "");
const ROUNDS = Number(option("--rounds", "150"));
const BATCH_MS = Number(option("--batch-ms", "2"));
const PROCESSES = Number(option("--processes", "1"));
// a child of --processes reports each group as one line of JSON after this mark
const REPORT = "interleaved-report ";
const CHILD = args.includes("--child");
const JSON_OUT = args.includes("--json") ? option("--json", "") : undefined;

/** A group's figures as --json writes them: per case, ratios to the baseline, round by round. */
export interface GroupResult {
  title: string;
  rounds: number;
  batchMs: number;
  cases: {
    name: string;
    baseline: boolean;
    /** The median time per call, ms. */
    medianMs: number;
    /** The median per-round ratio to the baseline, its 95% CI and middle 80%; 1 for it. */
    ratio: number;
    ciLow: number;
    ciHigh: number;
    p10: number;
    p90: number;
  }[];
}
const written: GroupResult[] = [];

/** Runs `fn` `n` times and returns the milliseconds it took. */
async function batch(fn: Case["fn"], n: number, async: boolean): Promise<number> {
  const start = performance.now();
  if (async) { for (let i = 0; i < n; i++) await fn(); }
  else for (let i = 0; i < n; i++) fn();
  return performance.now() - start;
}

const quantile = (sorted: number[], q: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];

function time(ms: number): string {
  const ns = ms * 1e6;
  return ns < 1e3
    ? `${ns.toFixed(1)} ns`
    : ns < 1e6
    ? `${(ns / 1e3).toFixed(2)} µs`
    : `${(ns / 1e6).toFixed(2)} ms`;
}

async function run(title: string, cases: Case[]): Promise<void> {
  const base = cases.findIndex((c) => c.baseline);
  // warm every case up (the JIT sees them all before anything is timed) and size its batch
  const sizes: number[] = [], async: boolean[] = [];
  for (const c of cases) {
    const first = c.fn();
    async.push(first instanceof Promise);
    await first;
  }
  for (let pass = 0; pass < 2; pass++) {
    for (const [i, c] of cases.entries()) {
      let n = 1, ms = 0;
      while ((ms = await batch(c.fn, n, async[i])) < 20) n *= 2;
      sizes[i] = Math.max(1, Math.round(n * BATCH_MS / ms));
    }
  }
  const perCall: number[][] = cases.map(() => []);
  for (let round = 0; round < ROUNDS; round++) {
    for (let k = 0; k < cases.length; k++) {
      const i = (k + round) % cases.length;
      perCall[i].push(await batch(cases[i].fn, sizes[i], async[i]) / sizes[i]);
    }
  }
  const mids = perCall.map((times) => quantile([...times].sort((a, b) => a - b), 0.5));
  const ratiosOf = (i: number) =>
    perCall[i].map((t, r) => t / perCall[base][r]).sort((a, b) => a - b);
  if (CHILD) {
    const ratios = cases.map((_, i) => base === -1 || i === base ? 0 : quantile(ratiosOf(i), 0.5));
    const report: Report = { title, names: cases.map((c) => c.name), base, mids, ratios };
    console.log(REPORT + JSON.stringify(report));
    return;
  }
  console.log(
    `\n${title}: ${ROUNDS} rounds, batches of ~${BATCH_MS} ms, ratios to ${cases[base]?.name}`,
  );
  const group: GroupResult = { title, rounds: ROUNDS, batchMs: BATCH_MS, cases: [] };
  written.push(group);
  for (const [i, c] of cases.entries()) {
    let line = `  ${c.name.padEnd(48)} ${time(mids[i]).padStart(10)}`;
    const figures = { name: c.name, baseline: i === base, medianMs: mids[i] };
    if (base === -1 || i === base) {
      group.cases.push({ ...figures, ratio: 1, ciLow: 1, ciHigh: 1, p10: 1, p90: 1 });
    }
    if (base !== -1 && i !== base) {
      const ratios = ratiosOf(i);
      // the 95% confidence interval of the median, from the order statistics of the rounds
      const half = 0.98 * Math.sqrt(ratios.length);
      const lo = ratios[Math.max(0, Math.floor(ratios.length / 2 - half))];
      const hi = ratios[Math.min(ratios.length - 1, Math.ceil(ratios.length / 2 + half))];
      group.cases.push({
        ...figures,
        ratio: quantile(ratios, 0.5),
        ciLow: lo,
        ciHigh: hi,
        p10: quantile(ratios, 0.1),
        p90: quantile(ratios, 0.9),
      });
      line += `  ${quantile(ratios, 0.5).toFixed(3)} × (95% CI ${lo.toFixed(3)}–${hi.toFixed(3)};` +
        ` middle 80% ${quantile(ratios, 0.1).toFixed(3)}–${quantile(ratios, 0.9).toFixed(3)})`;
    } else if (i === base) line += "  (baseline)";
    console.log(line);
  }
}

/** A group's figures from one process: per case, its median time and median ratio to `base`. */
interface Report {
  title: string;
  names: string[];
  base: number;
  mids: number[];
  ratios: number[];
}

/** Runs the groups in `PROCESSES` processes in turn and prints each case over the processes. */
async function acrossProcesses(): Promise<void> {
  const reports = new Map<string, Report[]>();
  const child = args.filter((a, i) => a !== "--processes" && args[i - 1] !== "--processes");
  for (let p = 0; p < PROCESSES; p++) {
    const output = await new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "-A",
        ...(NO_EVAL ? ["--v8-flags=--disallow-code-generation-from-strings"] : []),
        new URL(import.meta.url).pathname,
        ...child,
        "--child",
      ],
      stderr: "inherit",
    }).output();
    if (!output.success) throw new Error(`process ${p + 1} of ${PROCESSES} failed`);
    for (const line of new TextDecoder().decode(output.stdout).split("\n")) {
      if (!line.startsWith(REPORT)) continue;
      const report: Report = JSON.parse(line.slice(REPORT.length));
      reports.set(report.title, [...reports.get(report.title) ?? [], report]);
    }
  }
  for (const [title, runs] of reports) {
    console.log(`\n${title}: ${PROCESSES} processes of ${ROUNDS} rounds, medians over processes`);
    for (const [i, name] of runs[0].names.entries()) {
      const mid = quantile(runs.map((r) => r.mids[i]).sort((a, b) => a - b), 0.5);
      let line = `  ${name.padEnd(48)} ${time(mid).padStart(10)}`;
      const base = runs[0].base;
      if (base !== -1 && i !== base) {
        const ratios = runs.map((r) => r.ratios[i]).sort((a, b) => a - b);
        line += `  ${quantile(ratios, 0.5).toFixed(3)} × (processes ${
          ratios.map((r) => r.toFixed(3)).join(" ")
        })`;
      } else if (i === base) line += "  (baseline)";
      console.log(line);
    }
  }
}

if (PROCESSES > 1 && !CHILD) await acrossProcesses();
else {
  for (const [title, cases] of groups) {
    if (title.includes(FILTER)) await run(title, cases);
  }
}
if (JSON_OUT !== undefined && !CHILD) {
  if (PROCESSES > 1) throw new Error("--json takes one process: leave --processes out");
  await Deno.writeTextFile(JSON_OUT, JSON.stringify(written, null, 2));
}
