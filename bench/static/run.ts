// Static-file benchmark: nginx (the anchor), Hono's serveStatic on Deno, a minimal raw
// Deno.serve + Deno.stat + Deno.open().readable handler, Deno's ceiling (`mem`: every file
// preloaded, nothing checked per request) and Weft's staticFiles(), side by side in one run,
// alternating the order of servers between rounds. Cases: 1 KiB, 64 KiB and 4 MiB files of
// random bytes and a 304 revalidation of the 1 KiB file, over HTTP/1.1 with wrk (1 thread, 64
// connections). The server is pinned to core 0 and wrk to core 1 (taskset); for each case we
// report requests/s and the server's CPU time per request from /proc/<pid>/stat (utime +
// stime), steadier than requests/s on a shared machine, and the load average while measuring.
//
//   deno run -A bench/static/run.ts [--seconds 5] [--warmup 2] [--rounds 3] [--only weft,nginx]
//                                   [--text] [--cases "1 KiB,1 KiB text,304"] [--json <file>]
// --text fills the files with ASCII text instead of random bytes (text assets: Weft keeps a
// cached UTF-8 file as a string, which Deno sends without copying it per response). The
// "1 KiB text" case is a UTF-8 text file in every run, so that one run compares a text file
// with nginx and a binary one with `mem`, Deno's ceiling; --cases runs only the cases named.
// `--only …,memh,…` adds `memh`, the ceiling with staticFiles()'s header list (servers.ts).
//
// nginx runs with one process (master_process off, so its PID is the one doing the work),
// sendfile on, access_log off, from a config written to a temp dir. Every process started
// here is stopped by PID when its turn ends, on errors and on SIGINT/SIGTERM; every wrk run is
// bounded by `timeout`, and the whole run by a deadline.
import { cpuTicks, loadAverage, median, stop, stopAll, TICKS_PER_SECOND } from "../_proc.ts";
import { nginx, startPinned, wrkPinned, type WrkResult } from "../_pinned.ts";
const args = Deno.args;
const option = (name: string, fallback: number) => {
  const i = args.indexOf(name);
  return i === -1 ? fallback : Number(args[i + 1]);
};
const SECONDS = option("--seconds", 5);
const WARMUP = option("--warmup", 2);
const ROUNDS = option("--rounds", 3);
const TEXT = args.includes("--text");
const onlyIndex = args.indexOf("--only");
// memh (mem with staticFiles()'s header list) runs only when --only names it.
const ALL_KINDS = ["nginx", "hono", "raw", "mem", "memh", "weft"] as const;
type Kind = typeof ALL_KINDS[number];
const KINDS: readonly Kind[] = onlyIndex === -1
  ? ALL_KINDS.filter((k) => k !== "memh")
  : ALL_KINDS.filter((k) => args[onlyIndex + 1].split(",").includes(k));
const ALL_CASES = [
  { name: "1 KiB", file: "1k.bin", size: 1024 },
  { name: "1 KiB text", file: "1k.txt", size: 1024, text: true },
  { name: "64 KiB", file: "64k.bin", size: 65_536 },
  { name: "4 MiB", file: "4m.bin", size: 4_194_304 },
  { name: "304", file: "1k.bin", size: 1024, revalidate: true },
] as const;
const casesIndex = args.indexOf("--cases");
const CASES = casesIndex === -1
  ? ALL_CASES
  : ALL_CASES.filter((c) => args[casesIndex + 1].split(",").includes(c.name));
// each case: warm-up + measurement + slack, per server, per round; plus start-up
const DEADLINE = Date.now() +
  (ROUNDS * KINDS.length * (CASES.length * (SECONDS + WARMUP + 10) + 30) + 60) * 1000;

const dir = await Deno.makeTempDir({ prefix: "weft-static-bench-" });
const root = `${dir}/root`;
await Deno.mkdir(root);
for (const c of ALL_CASES) {
  const { file, size } = c;
  const bytes = new Uint8Array(size);
  for (let i = 0; i < size; i += 65_536) crypto.getRandomValues(bytes.subarray(i, i + 65_536));
  if (TEXT || "text" in c) { for (let i = 0; i < size; i++) bytes[i] = 0x20 + (bytes[i] % 95); }
  await Deno.writeFile(`${root}/${file}`, bytes);
}

async function start(kind: Kind, port: number): Promise<Deno.ChildProcess> {
  const command = kind === "nginx"
    ? await nginx({
      dir,
      root,
      port,
      http: ["sendfile on;", "tcp_nopush on;", "default_type application/octet-stream;"],
      server: ["etag on;"],
    })
    : [
      Deno.execPath(),
      "run",
      "-A",
      new URL("servers.ts", import.meta.url).pathname,
      kind,
      String(port),
      root,
    ];
  return await startPinned(command, port);
}

function wrk(url: string, seconds: number, headers: string[]): Promise<WrkResult> {
  return wrkPinned(url, seconds, headers, DEADLINE);
}

// The path and request headers of a case on a server; checks the server answers as expected.
async function prepare(
  kind: Kind,
  base: string,
  c: typeof CASES[number],
): Promise<{ url: string; headers: string[] }> {
  const path = kind === "hono" && "revalidate" in c ? `/etag/${c.file}` : `/${c.file}`;
  const first = await fetch(base + path);
  const body = await first.arrayBuffer();
  if (first.status !== 200 || body.byteLength !== c.size) {
    throw new Error(`${kind} ${path}: ${first.status}, ${body.byteLength} bytes`);
  }
  if (!("revalidate" in c)) return { url: base + path, headers: [] };
  const tag = first.headers.get("etag");
  if (tag === null) throw new Error(`${kind} sent no ETag for ${path}`);
  const again = await fetch(base + path, { headers: { "if-none-match": tag } });
  await again.body?.cancel();
  if (again.status !== 304) throw new Error(`${kind} answered ${again.status}, not 304`);
  return { url: base + path, headers: [`If-None-Match: ${tag}`] };
}

interface Cell {
  rps: number[];
  cpuUs: number[];
  load: number[];
  notes: Set<string>;
}
const results = new Map<string, Map<Kind, Cell>>();
let port = 18_400;

try {
  for (let round = 0; round < ROUNDS; round++) {
    const order = round % 2 === 0 ? KINDS : [...KINDS].reverse();
    for (const kind of order) {
      const server = await start(kind, ++port);
      try {
        const base = `http://127.0.0.1:${port}`;
        for (const c of CASES) {
          const { url, headers } = await prepare(kind, base, c);
          if (WARMUP > 0) await wrk(url, WARMUP, headers); // discarded
          const load = await loadAverage();
          const before = await cpuTicks(server.pid);
          const result = await wrk(url, SECONDS, headers);
          const ticks = (await cpuTicks(server.pid)) - before;
          const cell = results.get(c.name)?.get(kind) ??
            { rps: [], cpuUs: [], load: [], notes: new Set<string>() };
          if (!results.has(c.name)) results.set(c.name, new Map());
          results.get(c.name)!.set(kind, cell);
          cell.rps.push(result.rps);
          cell.cpuUs.push((ticks / TICKS_PER_SECOND) * 1e6 / (result.rps * SECONDS));
          cell.load.push(load, await loadAverage());
          if (result.bad > 0) cell.notes.add(`${result.bad} non-2xx/3xx`);
          if (result.errors !== "") cell.notes.add(result.errors);
        }
      } finally {
        await stop(server);
      }
    }
  }
} finally {
  stopAll();
  await Deno.remove(dir, { recursive: true }).catch(() => {});
}

console.log(
  `HTTP/1.1 (wrk -t1 -c64), ${TEXT ? "ASCII text" : "random bytes"}, ${ROUNDS} rounds × ` +
    `${SECONDS} s (warm-up ${WARMUP} s), medians; server on core 0, wrk on core 1`,
);
for (const [name, byKind] of results) {
  const anchor = byKind.get("nginx");
  console.log(`\n${name}`);
  for (const kind of KINDS) {
    const r = byKind.get(kind);
    if (r === undefined) continue;
    const rps = median(r.rps), cpu = median(r.cpuUs);
    const ratio = (x: number, y: number | undefined) =>
      y === undefined ? "" : ` (${(x / y).toFixed(2)} × nginx)`;
    console.log(
      `  ${kind.padEnd(5)} ${rps.toFixed(0).padStart(8)} req/s${
        ratio(rps, anchor && median(anchor.rps))
      }  ${cpu.toFixed(1).padStart(7)} µs CPU/req${ratio(cpu, anchor && median(anchor.cpuUs))}` +
        `  load ${Math.min(...r.load).toFixed(2)}–${Math.max(...r.load).toFixed(2)}` +
        (r.notes.size > 0 ? `  [${[...r.notes].join("; ")}]` : ""),
    );
  }
}

// --json <file>: the same figures, round by round, for bench/report
const jsonAt = args.indexOf("--json");
if (jsonAt !== -1) {
  const cases: Record<string, Record<string, { rps: number[]; cpuUs: number[] }>> = {};
  for (const [name, byKind] of results) {
    cases[name] = {};
    for (const [kind, r] of byKind) cases[name][kind] = { rps: r.rps, cpuUs: r.cpuUs };
  }
  const out = { rounds: ROUNDS, seconds: SECONDS, warmup: WARMUP, text: TEXT, kinds: KINDS, cases };
  await Deno.writeTextFile(args[jsonAt + 1], JSON.stringify(out, null, 2));
}
