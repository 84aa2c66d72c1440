// Compression benchmark: a 64 KiB JSON response gzipped on the fly by nginx (`gzip on`, the
// anchor), Weft's compress() and Hono's compress(), plus Weft without compression (`plain`),
// side by side in one run, alternating the order of servers between rounds. wrk (1 thread, 64
// connections, `Accept-Encoding: gzip`) over HTTP/1.1; the server is pinned to core 0 and wrk
// to core 1. The figure that counts is the server's CPU time per request (from /proc/<pid>/stat),
// steadier than requests/s on a shared machine; both are reported with the load average.
//
//   deno run -A bench/compress/run.ts [--seconds 5] [--warmup 2] [--rounds 3] [--level 6]
//                                     [--only nginx,weft,hono,plain]
//
// nginx (nginx-light is enough) runs with one process, compressing every response itself
// (gzip_static off) at the same level as Weft. Hono's compress() uses CompressionStream, whose
// level (zlib's default, 6) cannot be set: compare it at --level 6. Every process started here
// is stopped by PID when its turn ends, on errors and on SIGINT/SIGTERM; every wrk run is
// bounded by `timeout`, and the whole run by a deadline.
import { gunzipSync } from "node:zlib";
import { cpuTicks, loadAverage, median, stop, stopAll, TICKS_PER_SECOND } from "../_proc.ts";
import { nginx, startPinned, wrkPinned } from "../_pinned.ts";

const args = Deno.args;
const option = (name: string, fallback: number) => {
  const i = args.indexOf(name);
  return i === -1 ? fallback : Number(args[i + 1]);
};
const SECONDS = option("--seconds", 5);
const WARMUP = option("--warmup", 2);
const ROUNDS = option("--rounds", 3);
const LEVEL = option("--level", 6);
const onlyIndex = args.indexOf("--only");
const ALL_KINDS = ["nginx", "weft", "hono", "plain"] as const;
type Kind = typeof ALL_KINDS[number];
const KINDS: readonly Kind[] = onlyIndex === -1
  ? ALL_KINDS
  : ALL_KINDS.filter((k) => args[onlyIndex + 1].split(",").includes(k));
const DEADLINE = Date.now() + (ROUNDS * KINDS.length * (SECONDS + WARMUP + 40) + 60) * 1000;

// 64 KiB of JSON records, the shape of a typical list endpoint
const dir = await Deno.makeTempDir({ prefix: "weft-compress-bench-" });
const root = `${dir}/root`;
await Deno.mkdir(root);
const records = [];
for (let id = 0; JSON.stringify(records).length < 65_536 - 120; id++) {
  records.push({ id, name: `user ${id}`, email: `user${id}@example.com`, active: id % 3 === 0 });
}
const json = JSON.stringify(records);
await Deno.writeTextFile(`${root}/data.json`, json);

async function start(kind: Kind, port: number): Promise<Deno.ChildProcess> {
  const command = kind === "nginx"
    ? await nginx({
      dir,
      root,
      port,
      http: [
        "types { application/json json; }",
        "gzip on;",
        `gzip_comp_level ${LEVEL};`,
        "gzip_types application/json;",
        "gzip_min_length 1024;",
      ],
      server: [],
    })
    : [
      Deno.execPath(),
      "run",
      "-A",
      new URL("servers.ts", import.meta.url).pathname,
      kind,
      String(port),
      `${root}/data.json`,
      String(LEVEL),
    ];
  return await startPinned(command, port);
}

async function wrk(url: string, seconds: number): Promise<number> {
  const { rps, bad, text } = await wrkPinned(url, seconds, ["Accept-Encoding: gzip"], DEADLINE);
  if (bad > 0) throw new Error(`non-2xx answers:\n${text}`);
  return rps;
}

// Checks that the server compresses (or, for `plain`, does not) and that the body is the JSON.
async function check(kind: Kind, url: string): Promise<number> {
  const res = await fetch(url, { headers: { "accept-encoding": "gzip" } });
  const encoding = res.headers.get("content-encoding");
  // fetch() decodes gzip itself; the size on the wire is measured with a raw request below
  const text = await res.text();
  if (text !== json) throw new Error(`${kind} answered another body`);
  if ((encoding === "gzip") !== (kind !== "plain")) {
    throw new Error(`${kind} answered with Content-Encoding ${encoding}`);
  }
  const raw = await new Deno.Command("curl", {
    args: ["-s", "-H", "accept-encoding: gzip", url],
    stdout: "piped",
  }).output();
  if (kind !== "plain") gunzipSync(raw.stdout); // throws unless it is gzip
  return raw.stdout.byteLength;
}

const results = new Map<Kind, { rps: number[]; cpuUs: number[]; load: number[]; bytes: number }>();
let port = 18_600;
try {
  for (let round = 0; round < ROUNDS; round++) {
    const order = round % 2 === 0 ? KINDS : [...KINDS].reverse();
    for (const kind of order) {
      const server = await start(kind, ++port);
      try {
        const url = `http://127.0.0.1:${port}/data.json`;
        const bytes = await check(kind, url);
        if (WARMUP > 0) await wrk(url, WARMUP);
        const load = await loadAverage();
        const before = await cpuTicks(server.pid);
        const rps = await wrk(url, SECONDS);
        const ticks = (await cpuTicks(server.pid)) - before;
        const cell = results.get(kind) ?? { rps: [], cpuUs: [], load: [], bytes };
        results.set(kind, cell);
        cell.rps.push(rps);
        cell.cpuUs.push((ticks / TICKS_PER_SECOND) * 1e6 / (rps * SECONDS));
        cell.load.push(load, await loadAverage());
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
  `${json.length} B of JSON, gzip level ${LEVEL}, HTTP/1.1 (wrk -t1 -c64), ${ROUNDS} rounds × ` +
    `${SECONDS} s (warm-up ${WARMUP} s), medians; server on core 0, wrk on core 1`,
);
const anchor = results.get("nginx");
for (const kind of KINDS) {
  const r = results.get(kind);
  if (r === undefined) continue;
  const rps = median(r.rps), cpu = median(r.cpuUs);
  const ratio = (x: number, y: number | undefined) =>
    y === undefined ? "" : ` (${(x / y).toFixed(2)} × nginx)`;
  console.log(
    `  ${kind.padEnd(5)} ${rps.toFixed(0).padStart(7)} req/s${
      ratio(rps, anchor && median(anchor.rps))
    }  ${cpu.toFixed(1).padStart(7)} µs CPU/req${ratio(cpu, anchor && median(anchor.cpuUs))}` +
      `  ${String(r.bytes).padStart(6)} B on the wire` +
      `  load ${Math.min(...r.load).toFixed(2)}–${Math.max(...r.load).toFixed(2)}`,
  );
}
