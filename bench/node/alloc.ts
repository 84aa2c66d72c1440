// Bytes allocated per request on Node, by function: the servers of bench/node/servers.mjs, each
// warmed up with h2load over HTTP/1.1, then sampled by V8's heap profiler (every 128 bytes on
// average, objects already collected included) over a fixed number of requests. The garbage
// collector's work grows with what a request allocates, so this shows where a framework's
// share of it comes from, which instruction counts (bench/instructions.ts) only show as time
// spent in the collector. Functions that V8 inlined count under the function they were
// inlined into.
//
//   deno run -A bench/node/alloc.ts [--kinds raw,fastify-await:2,weft-await:2] [--path /user/42]
//                                   [--warmup 60000] [--requests 20000] [--top 12]
// Needs h2load (Debian: nghttp2-client), the npm build and bench/node's dependencies
// (deno task build:npm && (cd bench/node && npm ci)). Every server is stopped by PID.
import { startServer } from "../_load.ts";
import { stop } from "../_proc.ts";

const args = Deno.args;
const option = (name: string, fallback: string) => {
  const i = args.indexOf(name);
  return i === -1 ? fallback : args[i + 1];
};
const kinds = option("--kinds", "raw,fastify-await:2,weft-await:2").split(",");
const path = option("--path", "/user/42");
const warmup = Number(option("--warmup", "60000"));
const requests = Number(option("--requests", "20000"));
const top = Number(option("--top", "12"));

interface Node {
  callFrame: { functionName: string; url: string; lineNumber: number };
  selfSize: number;
  children?: Node[];
}

async function h2load(url: string, n: number): Promise<void> {
  const out = await new Deno.Command("timeout", {
    args: ["120", "h2load", "--h1", "-n", String(n), "-c", "8", "-t", "1", url],
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = new TextDecoder().decode(out.stdout);
  if (!text.includes(`${n} succeeded`)) {
    throw new Error(`h2load against ${url} failed:\n${text}`);
  }
}

async function profile(kind: string, port: number): Promise<Node> {
  const dir = await Deno.makeTempDir({ prefix: "weft-alloc-" });
  const out = `${dir}/profile.json`;
  const here = new URL(".", import.meta.url).pathname;
  Deno.env.set("WEFT_ALLOC_OUT", out);
  const child = await startServer([
    "node",
    "--import",
    `${here}_alloc_preload.mjs`,
    `${here}servers.mjs`,
    kind,
    String(port),
  ]);
  // (startServer() lets go of standard output after "ready": the profile file answers instead)
  try {
    const url = `http://127.0.0.1:${port}${path}`;
    await h2load(url, warmup);
    await signal(child, out, false);
    await h2load(url, requests);
    await signal(child, out, true);
    return JSON.parse(await Deno.readTextFile(out)).head;
  } finally {
    await stop(child);
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
}

// Sends SIGUSR2; when `written`, waits (30 s at most) for the profile file to appear.
async function signal(
  child: Deno.ChildProcess,
  out: string,
  written: boolean,
): Promise<void> {
  child.kill("SIGUSR2");
  if (!written) {
    await new Promise((resolve) => setTimeout(resolve, 500)); // the profiler starts
    return;
  }
  for (let i = 0; i < 300; i++) {
    if (await Deno.stat(out).then(() => true, () => false)) {
      await new Promise((resolve) => setTimeout(resolve, 200)); // the write ends
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error("the server wrote no heap profile");
}

function bySelf(head: Node): Map<string, number> {
  const totals = new Map<string, number>();
  const walk = (node: Node) => {
    const { functionName, url, lineNumber } = node.callFrame;
    const at = url.lastIndexOf("/node_modules/"); // a package's file, named from the package
    const file = at === -1 ? url.replace(/^file:\/\/.*\/bench\//, "bench/") : url.slice(at + 14);
    const name = `${functionName || "(anonymous)"} ${file}:${lineNumber + 1}`;
    totals.set(name, (totals.get(name) ?? 0) + node.selfSize);
    for (const child of node.children ?? []) walk(child);
  };
  walk(head);
  return totals;
}

console.log(
  `Bytes allocated per request (V8 sampling heap profiler), Node, HTTP/1.1 ${path}, ` +
    `${requests} requests after ${warmup} to warm up`,
);
let port = 19_900;
for (const kind of kinds) {
  const totals = bySelf(await profile(kind, port++));
  let all = 0;
  for (const bytes of totals.values()) all += bytes;
  console.log(`\n${kind}: ${Math.round(all / requests)} B a request`);
  const rows = [...totals].sort((a, b) => b[1] - a[1]).slice(0, top);
  for (const [name, bytes] of rows) {
    console.log(
      `  ${String(Math.round(bytes / requests)).padStart(6)} B  ${name}`,
    );
  }
}
