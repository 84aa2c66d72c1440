// Load benchmark of Weft's npm build on Node, in one run with its anchors: raw node:http,
// Fastify, Hono on @hono/node-server and Weft, alternating servers between rounds. As in
// bench/load/run.ts, the server is pinned to core 0 and the load generator to core 1
// (taskset); each round reports requests/s and the server's CPU time per request, read from
// /proc/<pid>/stat (utime + stime). --h2 compares Weft with raw node:http2 over TLS (h2load).
//
//   deno task build:npm && (cd bench/node && npm ci) && node bench/node/run.mjs [--h2]
//     [--seconds 5] [--rounds 3] [--kinds raw,weft]
//
// On a shared machine the requests/s of one round swing with the load of others; the CPU time
// per request moves much less, so compare those ratios, over several rounds. Each figure is the
// median of the rounds, followed by half their range (max − min) relative to it.
import { execFile, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

const args = process.argv.slice(2);
const option = (name, fallback) => {
  const i = args.indexOf(name);
  return i === -1 ? fallback : Number(args[i + 1]);
};
const SECONDS = option("--seconds", 5);
const ROUNDS = option("--rounds", 3);
const H2 = args.includes("--h2");
const kindsArg = args.indexOf("--kinds");
const KINDS = kindsArg !== -1
  ? args[kindsArg + 1].split(",")
  : H2
  ? ["raw", "weft"]
  : ["raw", "fastify", "hono", "weft"];
const PATHS = ["/", "/user/42"];
const TICKS = 100; // USER_HZ on Linux
const SERVERS = fileURLToPath(new URL("servers.mjs", import.meta.url));

function cpuTicks(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return Number(fields[11]) + Number(fields[12]); // utime + stime (fields 14 and 15)
}

function start(kind, port) {
  const child = spawn("taskset", [
    "-c",
    "0",
    process.execPath,
    SERVERS,
    kind,
    String(port),
    ...(H2 ? ["--tls"] : []),
  ], { stdio: ["ignore", "pipe", "inherit"] });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`${kind} did not start`)),
      20_000,
    );
    let seen = "";
    child.stdout.on("data", (chunk) => {
      seen += chunk;
      if (seen.includes("ready")) {
        clearTimeout(timer);
        // The node process is the child of taskset, which execs it: same pid.
        resolve(child);
      }
    });
    child.once("exit", () => reject(new Error(`${kind} exited`)));
  });
}

function load(url) {
  const cmd = H2
    ? ["h2load", "-c", "16", "-m", "8", "-t", "1", "-D", String(SECONDS), url]
    : ["wrk", "-t", "1", "-c", "64", "-d", `${SECONDS}s`, url];
  return new Promise((resolve, reject) => {
    execFile("taskset", ["-c", "1", ...cmd], (error, stdout, stderr) => {
      const match = H2
        ? stdout.match(/finished in [\d.]+\w*, ([\d.]+) req\/s/)
        : stdout.match(/Requests\/sec:\s+([\d.]+)/);
      if (error || !match) {
        reject(
          new Error(
            `cannot read the load generator's output:\n${stdout}\n${stderr}`,
          ),
        );
      } else resolve(Number(match[1]));
    });
  });
}

const results = {};
let port = 19_000;
for (let round = 0; round < ROUNDS; round++) {
  const order = round % 2 === 0 ? KINDS : [...KINDS].reverse();
  for (const kind of order) {
    const server = await start(kind, ++port);
    try {
      const base = `${H2 ? "https" : "http"}://127.0.0.1:${port}`;
      for (const path of PATHS) {
        await load(base + path); // warm-up run, discarded
        const before = cpuTicks(server.pid);
        const rps = await load(base + path);
        const ticks = cpuTicks(server.pid) - before;
        const cpuUs = (ticks / TICKS) * 1e6 / (rps * SECONDS);
        const cell = (results[path] ??= {})[kind] ??= { rps: [], cpuUs: [] };
        cell.rps.push(rps);
        cell.cpuUs.push(cpuUs);
      }
    } finally {
      server.kill("SIGTERM");
      await new Promise((resolve) => server.once("exit", resolve));
    }
  }
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
// The spread of the rounds around their median, in percent: how far apart two kinds must be
// before their order means anything on this machine.
const spread = (xs) => {
  const m = median(xs);
  return `±${(50 * (Math.max(...xs) - Math.min(...xs)) / m).toFixed(0)}%`;
};
const protocol = H2 ? "HTTP/2 over TLS (h2load)" : "HTTP/1.1 (wrk)";
console.log(
  `Node ${process.version}, ${protocol}, ${ROUNDS} rounds × ${SECONDS} s, medians`,
);
for (const path of PATHS) {
  const raw = results[path].raw;
  console.log(`\n${path}`);
  for (const kind of KINDS) {
    const r = results[path][kind];
    const rps = median(r.rps), cpu = median(r.cpuUs);
    console.log(
      `  ${kind.padEnd(8)} ${rps.toFixed(0).padStart(8)} req/s ${spread(r.rps).padStart(4)} (${
        (rps / median(raw.rps)).toFixed(3)
      } × raw)  ${cpu.toFixed(2).padStart(6)} µs CPU/req ${spread(r.cpuUs).padStart(4)} (${
        (cpu / median(raw.cpuUs)).toFixed(3)
      } × raw)`,
    );
  }
}
