// Instructions per request, counted by valgrind's callgrind: the same servers as the load
// benchmarks (bench/load/servers.ts on Deno, bench/node/servers.mjs on Node with --node), each
// run under callgrind with instrumentation off, warmed up with h2load over HTTP/1.1, then
// counted over three windows of the same number of requests, the first of which is left out. The count is repeatable to a few
// tenths of a per cent whatever else the machine does, so it shows a change of a hundred
// instructions that a timed load run cannot separate from noise; it leaves out the kernel's
// work and the cost of cache misses, which the load benchmarks include. Two windows that
// disagree by more than 1 % mean the JIT was still compiling: raise --warmup.
//
//   deno run -A bench/instructions.ts [--node | --static] [--kinds raw,weft] [--paths /,/user/42]
//                                     [--warmup 60000] [--requests 20000] [--processes 1]
//                                     [--baseline <checkout>]
// --static counts the static-file servers instead (bench/static/servers.ts, Deno: `mem`, the
// ceiling with every file preloaded, and Weft's staticFiles()) on a 1 KiB text file and a 1 KiB
// binary one.
// --baseline names another checkout of this repository (for --node, with its npm build and
// bench/node's dependencies installed): a kind written "base:weft" runs that checkout's server.
// Needs valgrind and h2load (Debian: valgrind, nghttp2-client); for --node, the npm build and
// bench/node's dependencies (deno task build:npm && (cd bench/node && npm ci)).
import { startServer } from "./_load.ts";
import { stop } from "./_proc.ts";
import { layerPairs } from "./_layers.ts";

const args = Deno.args;
const option = (name: string, fallback: string) => {
  const i = args.indexOf(name);
  return i === -1 ? fallback : args[i + 1];
};
const node = args.includes("--node");
const statics = args.includes("--static");
if (node && statics) throw new Error("--static counts Deno's static-file servers: drop --node");
const kinds = option(
  "--kinds",
  node ? "raw,fastify,hono,weft" : statics ? "mem,weft" : "raw,hono,weft",
).split(",");
const paths = option("--paths", statics ? "/1k.txt,/1k.bin" : "/,/user/42").split(",");
const warmup = Number(option("--warmup", "60000"));
const requests = Number(option("--requests", "20000"));
// JIT decisions differ from process to process (on Node by a few hundred instructions), so each
// kind can be started several times.
const processes = Number(option("--processes", "1"));
const serversIn = (checkout: URL) =>
  new URL(
    node ? "bench/node/servers.mjs" : statics ? "bench/static/servers.ts" : "bench/load/servers.ts",
    checkout,
  ).pathname;
// The static servers' root: a 1 KiB text file and a 1 KiB binary one.
let root = "";
if (statics) {
  root = await Deno.makeTempDir({ prefix: "weft-instructions-static-" });
  const bytes = crypto.getRandomValues(new Uint8Array(1024));
  await Deno.writeFile(`${root}/1k.bin`, bytes);
  await Deno.writeTextFile(
    `${root}/1k.txt`,
    [...bytes].map((b) => String.fromCharCode(0x20 + b % 95)).join(""),
  );
}
const here = serversIn(new URL("..", import.meta.url));
const baseline = option("--baseline", "");
// The command that starts `kind`'s server, which a "base:" prefix takes from the baseline.
function server(kind: string): string[] {
  let servers = here;
  if (kind.startsWith("base:")) {
    if (baseline === "") throw new Error(`kind ${kind} needs --baseline <checkout>`);
    servers = serversIn(new URL(`file://${baseline.replace(/\/?$/, "/")}`));
    kind = kind.slice(5);
  }
  return [...(node ? ["node", servers] : [Deno.execPath(), "run", "-A", servers]), kind];
}

async function run(command: string, ...rest: string[]): Promise<string> {
  const out = await new Deno.Command(command, { args: rest, stdout: "piped", stderr: "piped" })
    .output();
  if (!out.success) {
    throw new Error(`${command} ${rest.join(" ")} failed: ${new TextDecoder().decode(out.stderr)}`);
  }
  return new TextDecoder().decode(out.stdout);
}

async function h2load(url: string, n: number): Promise<void> {
  const out = await run("h2load", "--h1", "-n", String(n), "-c", "8", "-t", "1", url);
  if (!out.includes(`${n} succeeded`)) throw new Error(`h2load against ${url} failed:\n${out}`);
}

// Instructions per request of the last two of three windows after the warm-up of one server and
// path.
async function count(kind: string, path: string, port: number): Promise<number[]> {
  const dir = await Deno.makeTempDir({ prefix: "weft-callgrind-" });
  const child = await startServer([
    "valgrind",
    "--tool=callgrind",
    "--instr-atstart=no",
    `--callgrind-out-file=${dir}/out`,
    `--log-file=${dir}/valgrind.log`,
    ...server(kind),
    String(port),
    ...(statics ? [root] : []),
  ], 180_000);
  const pid = String(child.pid);
  try {
    const url = `http://127.0.0.1:${port}${path}`;
    await h2load(url, warmup);
    const perRequest: number[] = [];
    for (let window = 1; window <= 3; window++) {
      await run("callgrind_control", "--zero", pid);
      await run("callgrind_control", "--instr=on", pid);
      await h2load(url, requests);
      await run("callgrind_control", "--instr=off", pid);
      await run("callgrind_control", "--dump", pid);
      // each dump is a file of its own: out.1, out.2
      const dump = await Deno.readTextFile(`${dir}/out.${window}`);
      const totals = dump.match(/^totals: (\d+)/m);
      if (!totals) throw new Error(`no totals in callgrind's dump ${window} of ${kind}`);
      perRequest.push(Number(totals[1]) / requests);
    }
    // The first window after instrumentation is switched on counts work that settles by the
    // second (on Node, optimizing compilations of its own modules), so it is left out.
    return perRequest.slice(1);
  } finally {
    await stop(child);
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
}

console.log(
  `Instructions per request (callgrind), ${node ? "Node" : "Deno"}${
    statics ? ", static files" : ""
  }, HTTP/1.1, ` +
    `${requests} requests a window after ${warmup} to warm up`,
);
let port = 19_000 + Math.floor(Math.random() * 500) * 2;
for (const path of paths) {
  console.log(`\n${path}`);
  let anchor = 0;
  const counted = new Map<string, number>();
  for (const kind of kinds) {
    const means: number[] = [];
    let unsettled = "";
    for (let p = 0; p < processes; p++) {
      const [a, b] = await count(kind, path, ++port);
      means.push((a + b) / 2);
      if (Math.abs(a - b) / means[p] > 0.01) unsettled = "  (windows differ: raise --warmup)";
    }
    const mean = means.reduce((x, y) => x + y) / processes;
    counted.set(kind, mean);
    anchor ||= mean;
    console.log(
      `  ${kind.padEnd(12)} ${mean.toFixed(0).padStart(7)}  ${(mean / anchor).toFixed(3)} × ` +
        `${kinds[0]}  ${processes > 1 ? "processes" : "process"} ${
          means.map((m) => m.toFixed(0)).join(", ")
        }${unsettled}`,
    );
  }
  for (const { family, few, many, layers } of layerPairs(kinds)) {
    const one = (counted.get(many)! - counted.get(few)!) / layers;
    console.log(`  one layer of ${family}: ${one.toFixed(0)} instructions a request`);
  }
}
if (root !== "") await Deno.remove(root, { recursive: true });
