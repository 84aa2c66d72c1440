// Load benchmark: raw Deno.serve, Hono on Deno.serve and Weft, in one run, alternating servers
// between rounds. The server is pinned to core 0 and the load generator to core 1 (taskset);
// for each round we report requests/s and the server's CPU time per request read from
// /proc/<pid>/stat (utime + stime), steadier than requests/s on a shared 2-core machine.
//
//   deno run -A bench/load/run.ts [--seconds 5] [--rounds 3] [--h2]
// HTTP/1.1 uses wrk (64 connections); --h2 uses h2load over TLS (16 connections × 8 streams).
import { cpuTicks, median, spread, TICKS_PER_SECOND } from "../_proc.ts";
const args = Deno.args;
const option = (name: string, fallback: number) => {
  const i = args.indexOf(name);
  return i === -1 ? fallback : Number(args[i + 1]);
};
const SECONDS = option("--seconds", 5);
const ROUNDS = option("--rounds", 3);
const H2 = args.includes("--h2");
const KINDS = ["raw", "hono", "weft"] as const;
const PATHS = ["/", "/user/42"] as const;

async function start(kind: string, port: number): Promise<Deno.ChildProcess> {
  const child = new Deno.Command("taskset", {
    args: [
      "-c",
      "0",
      Deno.execPath(),
      "run",
      "-A",
      new URL("servers.ts", import.meta.url).pathname,
      kind,
      String(port),
      ...(H2 ? ["--tls"] : []),
    ],
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  const deadline = Date.now() + 20_000;
  let seen = "";
  while (!seen.includes("ready")) {
    if (Date.now() > deadline) throw new Error(`${kind} did not start`);
    const { value, done } = await reader.read();
    if (done) throw new Error(`${kind} exited`);
    seen += value;
  }
  reader.releaseLock();
  child.stdout.cancel().catch(() => {});
  return child;
}

async function load(url: string): Promise<number> {
  const cmd = H2
    ? ["h2load", "-c", "16", "-m", "8", "-t", "1", "-D", String(SECONDS), url]
    : ["wrk", "-t", "1", "-c", "64", "-d", `${SECONDS}s`, url];
  const out = await new Deno.Command("taskset", {
    args: ["-c", "1", ...cmd],
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = new TextDecoder().decode(out.stdout);
  const match = H2
    ? text.match(/finished in [\d.]+\w*, ([\d.]+) req\/s/)
    : text.match(/Requests\/sec:\s+([\d.]+)/);
  if (!match) {
    throw new Error(
      `cannot read the load generator's output:\n${text}\n${new TextDecoder().decode(out.stderr)}`,
    );
  }
  return Number(match[1]);
}

const results: Record<string, Record<string, { rps: number[]; cpuUs: number[] }>> = {};
let port = 18_000;
for (let round = 0; round < ROUNDS; round++) {
  const order = round % 2 === 0 ? KINDS : [...KINDS].reverse();
  for (const kind of order) {
    const server = await start(kind, ++port);
    try {
      const base = `${H2 ? "https" : "http"}://127.0.0.1:${port}`;
      for (const path of PATHS) {
        await load(base + path); // warm-up run, discarded
        const before = await cpuTicks(server.pid);
        const rps = await load(base + path);
        const ticks = (await cpuTicks(server.pid)) - before;
        const cpuUs = (ticks / TICKS_PER_SECOND) * 1e6 / (rps * SECONDS);
        const cell = (results[path] ??= {})[kind] ??= { rps: [], cpuUs: [] };
        cell.rps.push(rps);
        cell.cpuUs.push(cpuUs);
      }
    } finally {
      server.kill("SIGTERM");
      await server.status;
    }
  }
}

console.log(
  `${
    H2 ? "HTTP/2 over TLS (h2load)" : "HTTP/1.1 (wrk)"
  }, ${ROUNDS} rounds × ${SECONDS} s, medians ± half their range`,
);
for (const path of PATHS) {
  const raw = results[path].raw;
  console.log(`\n${path}`);
  for (const kind of KINDS) {
    const r = results[path][kind];
    const rps = median(r.rps), cpu = median(r.cpuUs);
    console.log(
      `  ${kind.padEnd(5)} ${rps.toFixed(0).padStart(8)} req/s ${spread(r.rps).padStart(4)} (${
        (rps / median(raw.rps)).toFixed(3)
      } × raw)` +
        `  ${cpu.toFixed(2).padStart(6)} µs CPU/req ${spread(r.cpuUs).padStart(4)} (${
          (cpu / median(raw.cpuUs)).toFixed(3)
        } × raw)`,
    );
  }
}
