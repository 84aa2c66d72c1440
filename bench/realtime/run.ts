// Real-time benchmark: fan-out of one topic to 1 → 1,000 WebSocket subscribers, in process and
// through Redis, for Weft on Deno and on Node (npm build) next to the same fan-out written by
// hand with ws + ioredis and Socket.IO with its Redis adapter; then the memory an idle event
// stream and an idle WebSocket cost a server (RSS growth / connections).
//
//   deno task build:npm && (cd bench/realtime && npm ci)
//   deno run -A bench/realtime/run.ts [--subscribers 1,10,100,1000] [--messages 500]
//                                     [--kinds weft-deno-inprocess,…] [--memory 10000]
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
const here = new URL(".", import.meta.url).pathname;

function serverCommand(
  kind: string,
  port: number,
  redisUrl: string,
): [string, string[]] {
  if (kind.startsWith("weft-deno-")) {
    const mode = kind.slice("weft-deno-".length);
    return [Deno.execPath(), [
      "run",
      "-A",
      // this directory's package.json (for the Node side) would otherwise scope the imports
      "--config",
      `${here}../../deno.json`,
      `${here}server_deno.ts`,
      mode,
      String(port),
      redisUrl,
    ]];
  }
  const nodeKind = kind.startsWith("weft-node-") ? `weft-${kind.slice(10)}` : kind;
  return ["node", [`${here}servers.mjs`, nodeKind, String(port), redisUrl]];
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
    cwd: here,
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

const redis = await startRedis();
try {
  console.log(
    `fan-out: ${messages} messages per run, publisher sending as fast as it can`,
  );
  console.log(
    "kind                  subscribers  messages/s  deliveries/s  p50 ms  p99 ms  delivered",
  );
  for (const kind of kinds) {
    for (const subscribers of subscriberCounts) {
      const result = await withServer(kind, redis.url, async (port) => {
        const protocol = kind === "socketio-redis" ? "sio" : "ws";
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
      console.log(
        `${kind.padEnd(22)}${String(subscribers).padStart(11)}  ${
          String(result.messagesPerSecond).padStart(10)
        }  ${String(result.deliveriesPerSecond).padStart(12)}  ${String(result.p50).padStart(6)}  ${
          String(result.p99).padStart(6)
        }  ${result.delivered}/${result.expected}`,
      );
    }
  }
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
