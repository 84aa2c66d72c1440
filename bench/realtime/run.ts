// Real-time benchmark: fan-out of one topic to 1 → 1,000 WebSocket subscribers, in process and
// through Redis, for Weft on Deno and on Node (npm build) next to the same fan-out written by
// hand with ws + ioredis and Socket.IO with its Redis adapter; then the memory an idle event
// stream and an idle WebSocket cost a server (RSS growth / connections).
//
//   deno task build:npm && (cd bench/realtime && npm ci)
//   deno run -A bench/realtime/run.ts [--subscribers 1,10,100,1000] [--messages 500]
//                                     [--kinds weft-deno-inprocess,…] [--memory 10000]
//                                     [--rounds 5] [--baseline <checkout>]
//
// With --rounds N every kind runs N times at each subscriber count, the kinds in alternating
// order round by round, and a summary gives each kind's median messages/s and p99 and the median
// of its ratios to the ws-ioredis and socketio-redis runs of the same rounds (a run next to its
// anchor sees the same load from other work on the machine). --baseline names another checkout
// of this repository (with its own `deno task build:npm` and `npm ci` in bench/realtime): a kind
// written "base:weft-node-redis" runs that checkout's server in the same rounds.
//
// Every figure comes from one publisher sending as fast as it can (bursts of 20 messages), so
// latency includes queueing. Clients run in one Node process (bench/realtime/clients.mjs).
// "weft-*-redis" delivers every message through Redis, to local clients too; Socket.IO
// delivers to its own clients directly and publishes to Redis for the other nodes.
import { runChild, spawnChild } from "../../tests/_child.ts";
import { freePort, startRedis } from "../../tests/realtime/_redis_server.ts";

const ALL_KINDS = [
  "weft-deno-inprocess",
  "weft-node-inprocess",
  "weft-deno-redis",
  "weft-node-redis",
  "ws-ioredis",
  "socketio-redis",
];

function option(name: string, fallback: string): string {
  const at = Deno.args.indexOf(`--${name}`);
  return at === -1 ? fallback : Deno.args[at + 1];
}

const subscriberCounts = option("subscribers", "1,10,100,1000").split(",").map(
  Number,
);
const messages = Number(option("messages", "500"));
const kinds = option("kinds", ALL_KINDS.join(",")).split(",");
const memory = Number(option("memory", "0"));
const rounds = Number(option("rounds", "1"));
const baseline = option("baseline", "");
const here = new URL(".", import.meta.url).pathname;

// This directory, or for a "base:" kind the baseline checkout's, and the kind without "base:".
function checkoutOf(kind: string): [string, string] {
  if (!kind.startsWith("base:")) return [here, kind];
  if (baseline === "") {
    throw new Error(`kind ${kind} needs --baseline <checkout>`);
  }
  return [`${baseline.replace(/\/$/, "")}/bench/realtime/`, kind.slice(5)];
}

function serverCommand(
  kind: string,
  port: number,
  redisUrl: string,
): [string, string[]] {
  const [dir, own] = checkoutOf(kind);
  if (own.startsWith("weft-deno-")) {
    const mode = own.slice("weft-deno-".length);
    return [Deno.execPath(), [
      "run",
      "-A",
      // this directory's package.json (for the Node side) would otherwise scope the imports
      "--config",
      `${dir}../../deno.json`,
      `${dir}server_deno.ts`,
      mode,
      String(port),
      redisUrl,
    ]];
  }
  const nodeKind = own.startsWith("weft-node-") ? `weft-${own.slice(10)}` : own;
  return ["node", [`${dir}servers.mjs`, nodeKind, String(port), redisUrl]];
}

async function withServer<T>(
  kind: string,
  redisUrl: string,
  fn: (port: number, pid: number) => Promise<T>,
): Promise<T> {
  const port = freePort();
  const [command, args] = serverCommand(kind, port, redisUrl);
  const server = spawnChild(command, {
    args,
    cwd: checkoutOf(kind)[0],
    stdout: "piped",
    stderr: "piped",
    deadlineMs: 600_000,
  });
  try {
    await server.waitForOutput("stdout", /listening/, {
      ms: 30_000,
      what: `${kind} to listen`,
    });
    return await fn(port, server.pid);
  } finally {
    await server.stop();
  }
}

function rssKiB(pid: number): number {
  const status = Deno.readTextFileSync(`/proc/${pid}/status`);
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? NaN);
}

/** What clients.mjs reports for one run. */
interface FanOut {
  messagesPerSecond: number;
  deliveriesPerSecond: number;
  p50: number;
  p99: number;
  delivered: number;
  expected: number;
}

const runs: (FanOut & { kind: string; subscribers: number; round: number })[] = [];

function fanOut(kind: string, subscribers: number): Promise<FanOut> {
  return withServer(kind, redis.url, async (port) => {
    const protocol = checkoutOf(kind)[1] === "socketio-redis" ? "sio" : "ws";
    const out = await runChild("node", {
      args: [
        `${here}clients.mjs`,
        protocol,
        String(port),
        String(subscribers),
        String(messages),
      ],
      cwd: here,
      deadlineMs: 120_000,
    });
    const text = new TextDecoder().decode(out.stdout).trim();
    if (!out.success) {
      throw new Error(`${kind}: ${new TextDecoder().decode(out.stderr)}`);
    }
    return JSON.parse(text.split("\n").at(-1)!);
  });
}

function median(values: number[]): number {
  const sorted = values.toSorted((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

// The median over the rounds of `kind`'s messages/s divided by `anchor`'s in the same round.
function pairedRatio(
  kind: string,
  anchor: string,
  subscribers: number,
): string {
  const ratios: number[] = [];
  for (const run of runs) {
    if (run.kind !== kind || run.subscribers !== subscribers) continue;
    const other = runs.find((a) =>
      a.kind === anchor && a.subscribers === subscribers &&
      a.round === run.round
    );
    if (other !== undefined) {
      ratios.push(run.messagesPerSecond / other.messagesPerSecond);
    }
  }
  if (ratios.length === 0) return "-";
  return `${median(ratios).toFixed(2)} (${Math.min(...ratios).toFixed(2)}-${
    Math.max(...ratios).toFixed(2)
  })`;
}

function summarize(): void {
  console.log(
    `\nmedians of ${rounds} rounds; ratios: median of the paired ratios of messages/s (min-max)`,
  );
  console.log(
    "kind                      subscribers  messages/s  p99 ms  / ws-ioredis        / socketio-redis",
  );
  for (const subscribers of subscriberCounts) {
    for (const kind of kinds) {
      const own = runs.filter((run) => run.kind === kind && run.subscribers === subscribers);
      console.log(
        `${kind.padEnd(26)}${String(subscribers).padStart(11)}  ${
          String(Math.round(median(own.map((run) => run.messagesPerSecond))))
            .padStart(10)
        }  ${median(own.map((run) => run.p99)).toFixed(0).padStart(6)}  ${
          pairedRatio(kind, "ws-ioredis", subscribers).padEnd(18)
        } ${pairedRatio(kind, "socketio-redis", subscribers)}`,
      );
    }
  }
}

// Redis lives as long as the whole run, which many rounds make long.
const redis = await startRedis(24 * 3_600_000);
try {
  console.log(
    `fan-out: ${messages} messages per run, publisher sending as fast as it can`,
  );
  console.log(
    "kind                      subscribers  messages/s  deliveries/s  p50 ms  p99 ms  delivered",
  );
  for (let round = 0; round < rounds; round++) {
    for (const subscribers of subscriberCounts) {
      for (const kind of round % 2 === 0 ? kinds : kinds.toReversed()) {
        const result = await fanOut(kind, subscribers);
        runs.push({ kind, subscribers, round, ...result });
        console.log(
          `${kind.padEnd(26)}${String(subscribers).padStart(11)}  ${
            String(result.messagesPerSecond).padStart(10)
          }  ${String(result.deliveriesPerSecond).padStart(12)}  ${
            String(result.p50).padStart(6)
          }  ${String(result.p99).padStart(6)}  ${result.delivered}/${result.expected}`,
        );
      }
    }
  }
  if (rounds > 1) summarize();
  if (memory > 0) {
    console.log(`\nmemory: server RSS growth with ${memory} idle connections`);
    for (
      const kind of ["weft-deno-inprocess", "weft-node-inprocess", "ws-ioredis"]
    ) {
      for (const connection of kind === "ws-ioredis" ? ["ws"] : ["ws", "sse"]) {
        const perConnection = await withServer(
          kind,
          redis.url,
          async (port, pid) => {
            const settle = () => new Promise((resolve) => setTimeout(resolve, 1_000));
            // One connection first, so that code paths are loaded before the baseline.
            const warm = spawnChild("node", {
              args: [`${here}idle_clients.mjs`, connection, String(port), "1"],
              cwd: here,
              stdout: "piped",
              stderr: "piped",
            });
            await warm.waitForOutput("stdout", /open/, {
              ms: 30_000,
              what: "a warm-up connection",
            });
            await settle();
            const before = rssKiB(pid);
            const clients = spawnChild("node", {
              args: [
                `${here}idle_clients.mjs`,
                connection,
                String(port),
                String(memory),
              ],
              cwd: here,
              stdout: "piped",
              stderr: "piped",
              deadlineMs: 300_000,
            });
            try {
              await clients.waitForOutput("stdout", /open/, {
                ms: 240_000,
                what: `${memory} idle connections`,
              });
              await settle();
              return (rssKiB(pid) - before) / memory;
            } finally {
              await clients.stop();
              await warm.stop();
            }
          },
        );
        console.log(
          `${kind.padEnd(22)} ${connection.padEnd(4)} ${
            perConnection.toFixed(1)
          } KiB per idle connection`,
        );
      }
    }
  }
} finally {
  await redis.stop();
}
