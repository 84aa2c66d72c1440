// The load-benchmark driver shared by bench/load (Deno) and bench/node (Node): the servers run
// pinned to core 0 and the load generator to core 1 (taskset); wrk drives HTTP/1.1 (1 thread,
// 64 connections), h2load HTTP/2 over TLS (16 connections × 8 streams).
//
// Paired rounds: each round starts every server (idle ones use no CPU), warms each of them up
// on each path, then measures the kinds back to back on one path, a second apart, in an order
// that changes from round to round (six rounds give every order of three kinds), before going
// on to the next path. A kind's ratio to the anchor (the first kind) is taken within the round,
// from measurements seconds apart, so a drift of the machine's speed between rounds cancels
// out; the report gives the median of those per-round ratios and their range, next to each
// kind's own medians. CPU time per request comes from /proc/<pid>/stat (utime + stime of all
// the server's threads), which moves less than requests/s on a shared machine.
import { cpuTicks, median, spread, stop, TICKS_PER_SECOND, track } from "./_proc.ts";
import { layerPairs } from "./_layers.ts";

/** What one run compares. */
export interface LoadPlan {
  /** The first line of the report. */
  title: string;
  /** The servers, the anchor first and the subject (compared with each of the others) last. */
  kinds: readonly string[];
  paths: readonly string[];
  /** HTTP/2 over TLS with h2load instead of HTTP/1.1 with wrk. */
  h2: boolean;
  /** The command line that starts a server of `kind` on `port`; it prints "ready" once up. */
  command(kind: string, port: number): string[];
}

// The options every load script takes: --seconds, --warmup, --rounds, --together.
function timing(
  args: readonly string[],
): { seconds: number; warmup: number; rounds: number; together: boolean } {
  const option = (name: string, fallback: number) => {
    const i = args.indexOf(name);
    return i === -1 ? fallback : Number(args[i + 1]);
  };
  return {
    seconds: option("--seconds", 5),
    warmup: option("--warmup", 2),
    rounds: option("--rounds", 6),
    together: args.includes("--together"),
  };
}

/**
 * Starts a server and resolves once it printed "ready" (it is ended after `timeoutMs` without).
 * The child's pid is the server's when the command execs it (taskset, valgrind).
 */
export async function startServer(
  command: string[],
  timeoutMs = 20_000,
): Promise<Deno.ChildProcess> {
  const child = track(
    new Deno.Command(command[0], {
      args: command.slice(1),
      stdout: "piped",
      stderr: "inherit",
    }).spawn(),
  );
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  const timer = setTimeout(() => child.kill("SIGTERM"), timeoutMs);
  let seen = "";
  try {
    while (!seen.includes("ready")) {
      const { value, done } = await reader.read();
      if (done) throw new Error(`${command.join(" ")} exited before it was ready`);
      seen += value;
    }
  } finally {
    clearTimeout(timer);
  }
  reader.releaseLock();
  child.stdout.cancel().catch(() => {});
  return child;
}

async function load(url: string, seconds: number, h2: boolean): Promise<number> {
  const cmd = h2
    ? ["h2load", "-c", "16", "-m", "8", "-t", "1", "-D", String(seconds), url]
    : ["wrk", "-t", "1", "-c", "64", "-d", `${seconds}s`, url];
  const out = await new Deno.Command("timeout", {
    args: [String(seconds + 30), "taskset", "-c", "1", ...cmd],
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = new TextDecoder().decode(out.stdout);
  const match = h2
    ? text.match(/finished in [\d.]+\w*, ([\d.]+) req\/s/)
    : text.match(/Requests\/sec:\s+([\d.]+)/);
  if (!match) {
    throw new Error(
      `cannot read the load generator's output:\n${text}\n${new TextDecoder().decode(out.stderr)}`,
    );
  }
  return Number(match[1]);
}

const SETTLE_MS = 1_000;

interface Measured {
  rps: number;
  cpuUs: number;
}

// µs of server CPU per request, from clock ticks over a load of `seconds`
const perRequest = (ticks: number, rps: number, seconds: number) =>
  (ticks / TICKS_PER_SECOND) * 1e6 / (rps * seconds);

// --together: every server is loaded at once, each by its own load generator (all of them on
// core 1), while the servers share core 0. Whatever slows the machine down in that window
// slows every server alike, so the ratios of CPU time per request are paired in time, not
// only seconds apart. (The servers also evict each other's code from the core's caches, which
// alternating runs do not: a harsher setting, reported as such.)
async function measureTogether(
  servers: { child: Deno.ChildProcess; base: string }[],
  path: string,
  seconds: number,
  h2: boolean,
): Promise<Measured[]> {
  await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
  const before = await Promise.all(servers.map(({ child }) => cpuTicks(child.pid)));
  const rps = await Promise.all(servers.map(({ base }) => load(base + path, seconds, h2)));
  const after = await Promise.all(servers.map(({ child }) => cpuTicks(child.pid)));
  return servers.map((_, k) => ({
    rps: rps[k],
    cpuUs: perRequest(after[k] - before[k], rps[k], seconds),
  }));
}

interface Cell {
  rps: number[];
  cpuUs: number[];
}

const range = (xs: number[], digits = 3) =>
  `${Math.min(...xs).toFixed(digits)}–${Math.max(...xs).toFixed(digits)}`.padEnd(11);

/** What runLoad() measured: per path and kind, one value per round. */
export interface LoadResult {
  title: string;
  h2: boolean;
  together: boolean;
  seconds: number;
  warmup: number;
  rounds: number;
  kinds: string[];
  paths: string[];
  /** `cells[path][kind]`: requests/s and µs of server CPU per request, round by round. */
  cells: Record<string, Record<string, { rps: number[]; cpuUs: number[] }>>;
}

/**
 * Runs the plan, prints its report and returns the measurements; with `--json <file>` in
 * `args` it also writes them there (for bench/report).
 */
export async function runLoad(plan: LoadPlan, args: readonly string[]): Promise<LoadResult> {
  const { seconds, warmup, rounds, together } = timing(args);
  const { kinds, paths, h2 } = plan;
  const cells = new Map<string, Cell>();
  const cell = (path: string, kind: string) => {
    const key = `${path} ${kind}`;
    if (!cells.has(key)) cells.set(key, { rps: [], cpuUs: [] });
    return cells.get(key)!;
  };
  const record = (path: string, kind: string, result: Measured) => {
    cell(path, kind).rps.push(result.rps);
    cell(path, kind).cpuUs.push(result.cpuUs);
  };
  let port = 18_000 + Math.floor(Math.random() * 1_000) * 10;
  for (let round = 0; round < rounds; round++) {
    const servers = new Map<string, { child: Deno.ChildProcess; base: string }>();
    try {
      for (const kind of kinds) {
        const child = await startServer(["taskset", "-c", "0", ...plan.command(kind, ++port)]);
        servers.set(kind, { child, base: `${h2 ? "https" : "http"}://127.0.0.1:${port}` });
      }
      for (const path of paths) {
        for (const kind of kinds) await load(servers.get(kind)!.base + path, warmup, h2);
      }
      // rotated each round and reversed every other round, so that over 2 × kinds.length
      // rounds (all orders, for three kinds) each kind follows each other one equally often
      const rotated = kinds.map((_, k) => kinds[(k + round) % kinds.length]);
      const order = round % 2 === 0 ? rotated : rotated.reverse();
      for (const path of paths) {
        if (together) {
          const all = order.map((kind) => servers.get(kind)!);
          const results = await measureTogether(all, path, seconds, h2);
          results.forEach((result, k) => record(path, order[k], result));
          continue;
        }
        for (const kind of order) {
          const { child, base } = servers.get(kind)!;
          // whatever the previous server still does on the same core (closing connections,
          // collecting garbage) ends before the next one is measured
          await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
          const before = await cpuTicks(child.pid);
          const rps = await load(base + path, seconds, h2);
          const ticks = (await cpuTicks(child.pid)) - before;
          record(path, kind, { rps, cpuUs: perRequest(ticks, rps, seconds) });
        }
      }
    } finally {
      for (const { child } of servers.values()) await stop(child);
    }
  }

  console.log(
    `${plan.title}, ${rounds} paired rounds × ${seconds} s (after ${warmup} s warm-up)` +
      (together ? ", the servers loaded at the same time, sharing core 0" : ""),
  );
  console.log(
    "medians ± half their range; ratios to the anchor taken within each round: median [min–max]",
  );
  const anchor = kinds[0], subject = kinds[kinds.length - 1];
  // a kind against another, round by round
  const compare = (path: string, kind: string, to: string) => {
    const own = cell(path, kind), base = cell(path, to);
    const rps = own.rps.map((x, r) => x / base.rps[r]);
    const cpu = own.cpuUs.map((x, r) => x / base.cpuUs[r]);
    return `req/s ${median(rps).toFixed(3)} × ${to} [${range(rps)}]` +
      `  CPU/req ${median(cpu).toFixed(3)} × ${to} [${range(cpu)}]`;
  };
  for (const path of paths) {
    console.log(`\n${path}`);
    for (const kind of kinds) {
      const own = cell(path, kind);
      let line = `  ${kind.padEnd(8)} ${median(own.rps).toFixed(0).padStart(7)} req/s ${
        spread(own.rps).padStart(4)
      }  ${median(own.cpuUs).toFixed(2).padStart(6)} µs CPU/req ${spread(own.cpuUs).padStart(4)}`;
      if (kind !== anchor) line += `   ${compare(path, kind, anchor)}`;
      console.log(line);
    }
    // the subject (the last kind) against each other contender, round by round
    for (const other of kinds.slice(1, -1)) {
      console.log(`  ${subject} against ${other}: ${compare(path, subject, other)}`);
    }
    // one layer: the difference between a family's most and fewest layers, round by round
    for (const { family, few, many, layers } of layerPairs(kinds)) {
      const more = cell(path, many).cpuUs, less = cell(path, few).cpuUs;
      const one = more.map((x, r) => (x - less[r]) * 1000 / layers);
      console.log(
        `  one layer of ${family}: ${median(one).toFixed(0)} ns CPU a request [${
          range(one, 0).trim()
        }]`,
      );
    }
  }
  const result: LoadResult = {
    title: plan.title,
    h2,
    together,
    seconds,
    warmup,
    rounds,
    kinds: [...kinds],
    paths: [...paths],
    cells: Object.fromEntries(
      paths.map((
        path,
      ) => [path, Object.fromEntries(kinds.map((kind) => [kind, cell(path, kind)]))]),
    ),
  };
  const jsonAt = args.indexOf("--json");
  if (jsonAt !== -1) await Deno.writeTextFile(args[jsonAt + 1], JSON.stringify(result, null, 2));
  return result;
}
