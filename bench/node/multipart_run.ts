// Multipart upload benchmark on Node: a file of --mib MiB (256 by default) uploaded with
// curl -F to Weft's npm build (weft/multipart) and to Fastify with @fastify/multipart, each
// streaming the file to disk, in alternating rounds. Reported per server: throughput (MiB/s,
// median over rounds), the server's CPU time per MiB (/proc/<pid>/stat) and its peak RSS
// (VmHWM). The server is pinned to core 0 and curl to core 1.
//
//   deno task build:npm && (cd bench/node && npm ci)
//   deno run -A bench/node/multipart_run.ts [--mib 256] [--rounds 3]
import { cpuTicks, median, stop, stopAll, TICKS_PER_SECOND, track, waitForPort } from "../_proc.ts";

const args = Deno.args;
const option = (name: string, fallback: number) => {
  const i = args.indexOf(name);
  return i === -1 ? fallback : Number(args[i + 1]);
};
const MIB = option("--mib", 256);
const ROUNDS = option("--rounds", 3);
const KINDS = ["weft", "fastify"] as const;
const servers = new URL("multipart_servers.mjs", import.meta.url).pathname;

const dir = await Deno.makeTempDir({ prefix: "weft-multipart-bench-" });
const file = `${dir}/upload.bin`;
{
  const out = await Deno.open(file, { write: true, create: true });
  const chunk = new Uint8Array(1024 * 1024);
  for (let i = 0; i < MIB; i++) {
    crypto.getRandomValues(chunk.subarray(0, 65_536));
    await out.write(chunk);
  }
  out.close();
}
await Deno.mkdir(`${dir}/out`);

async function peakRss(pid: number): Promise<number> {
  const status = await Deno.readTextFile(`/proc/${pid}/status`);
  return Number(status.match(/VmHWM:\s+(\d+) kB/)![1]) / 1024;
}

const results = new Map<string, { mibps: number[]; cpuMsPerMib: number[]; rss: number[] }>();
let port = 18_800;
try {
  for (let round = 0; round < ROUNDS; round++) {
    for (const kind of round % 2 === 0 ? KINDS : [...KINDS].reverse()) {
      const child = track(
        new Deno.Command("taskset", {
          args: ["-c", "0", "node", servers, kind, String(++port), `${dir}/out`],
          stdout: "null",
          stderr: "inherit",
        }).spawn(),
      );
      try {
        await waitForPort(port);
        const before = await cpuTicks(child.pid);
        const started = performance.now();
        const out = await new Deno.Command("timeout", {
          args: [
            "600",
            "taskset",
            "-c",
            "1",
            "curl",
            "-s",
            "-S",
            "-F",
            `file=@${file}`,
            `http://127.0.0.1:${port}/upload`,
          ],
          stdout: "piped",
          stderr: "piped",
        }).output();
        const seconds = (performance.now() - started) / 1000;
        const ticks = (await cpuTicks(child.pid)) - before;
        const reply = new TextDecoder().decode(out.stdout);
        if (!reply.includes(`"bytes":${MIB * 1024 * 1024}`)) {
          throw new Error(`${kind} answered ${reply} ${new TextDecoder().decode(out.stderr)}`);
        }
        const cell = results.get(kind) ?? { mibps: [], cpuMsPerMib: [], rss: [] };
        results.set(kind, cell);
        cell.mibps.push(MIB / seconds);
        cell.cpuMsPerMib.push((ticks / TICKS_PER_SECOND) * 1000 / MIB);
        cell.rss.push(await peakRss(child.pid));
      } finally {
        await stop(child);
      }
    }
  }
} finally {
  stopAll();
  await Deno.remove(dir, { recursive: true }).catch(() => {});
}

const load = (await Deno.readTextFile("/proc/loadavg")).split(" ")[0];
console.log(`${MIB} MiB upload (curl -F), ${ROUNDS} rounds, medians; load average ${load}`);
for (const [kind, r] of results) {
  console.log(
    `  ${kind.padEnd(8)} ${median(r.mibps).toFixed(0).padStart(5)} MiB/s  ` +
      `${median(r.cpuMsPerMib).toFixed(2).padStart(6)} ms CPU/MiB  peak RSS ${
        Math.max(...r.rss).toFixed(0)
      } MiB`,
  );
}
