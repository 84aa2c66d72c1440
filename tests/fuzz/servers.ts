// Starts the fuzz app (app.js) in a child process on either runtime, over a fresh static
// fixture: Deno's serve() with mod.ts, or the npm build on Node (built first when missing).
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { spawnSync } from "node:child_process";
import { buildStaticFixture } from "../fixtures/static/fixture.ts";
import { formatReport, fuzz } from "./fuzz.ts";
import { denoPath, findH2Python, REPO, type ServerProcess, startServer } from "./server_process.ts";

/** The runtimes a server can run on. */
export type RuntimeName = "deno" | "node";

/** A started server and what removes it. */
export interface Started {
  server: ServerProcess;
  /** Stops the server and removes the fixture; resolves with how the process ended. */
  stop(): Promise<string>;
}

/** Builds the npm package and installs tests/node when the installed build is missing. */
export function ensureNodeBuild(force = false): void {
  if (!force && existsSync(join(REPO, "tests/node/node_modules/weft/package.json"))) return;
  const steps: [string, string[], string][] = [
    [denoPath(), ["task", "build:npm"], REPO],
    ["npm", ["ci", "--no-audit", "--no-fund"], join(REPO, "tests/node")],
  ];
  for (const [command, args, cwd] of steps) {
    const run = spawnSync(command, args, { cwd, stdio: "inherit", timeout: 600_000 });
    if (run.status !== 0) {
      throw new Error(`Cannot build the npm package: ${command} ${args.join(" ")} failed`);
    }
  }
}

/** Starts the fuzz app on `runtime`; the child is killed after `lifetimeMs` whatever happens. */
export async function startFuzzServer(
  runtime: RuntimeName,
  lifetimeMs: number,
  options: {
    cpu?: number;
    /** V8 flags for the server, comma-separated (`--trace-gc`); its traces go to `onOutput`. */
    v8Flags?: string;
    onOutput?: (line: string) => void;
  } = {},
): Promise<Started> {
  const fixture = buildStaticFixture();
  const flags = options.v8Flags ?? "";
  let [command, args] = runtime === "deno"
    ? [denoPath(), [
      "run",
      "-A",
      ...(flags === "" ? [] : [`--v8-flags=${flags}`]),
      "tests/fuzz/serve_deno.ts",
      fixture.root,
    ]]
    : ["node", [
      ...(flags === "" ? [] : flags.split(",")),
      "tests/node/fuzz_server.mjs",
      fixture.root,
    ]];
  // taskset execs the server, so the PID read for RSS and fds stays the server's own
  if (options.cpu !== undefined) {
    [command, args] = ["taskset", ["-c", String(options.cpu), command, ...args]];
  }
  let server: ServerProcess;
  try {
    server = await startServer(command, args, {
      lifetimeMs,
      reportsHeap: true,
      onOutput: options.onOutput,
    });
  } catch (error) {
    fixture.remove();
    throw error;
  }
  return {
    server,
    async stop() {
      try {
        return await server.stop();
      } finally {
        fixture.remove();
      }
    },
  };
}

/**
 * The short fuzz run that `deno test` (fuzz_test.ts) and vitest (tests/node/fuzz.test.ts) make:
 * 2,000 requests or 20 s against the fuzz app on `runtime`. Throws, naming the seed, when the
 * server died or a case broke the oracle; HTTP/2 is required when WEFT_REQUIRE_H2=1.
 */
export async function shortFuzz(
  runtime: RuntimeName,
  seed: number,
  failureDir: string,
  env: (name: string) => string | undefined,
): Promise<void> {
  const python = findH2Python();
  if (python === null && env("WEFT_REQUIRE_H2") === "1") {
    throw new Error(
      "Cannot fuzz HTTP/2: no python3 can import hpack and hyperframe (apt-get install python3-h2)",
    );
  }
  const { server, stop } = await startFuzzServer(runtime, 120_000);
  try {
    const report = await fuzz({
      label: runtime,
      port: server.port,
      seed,
      requests: 2_000,
      seconds: 20,
      python,
      alive: () => server.alive(),
      failureDir,
    });
    console.log(formatReport(report));
    assert.ok(report.healthy, `${report.healthDetail} (seed ${seed})\n${server.output()}`);
    assert.deepEqual(
      report.findings.map((f) => `${f.protocol} ${f.index}: ${f.reasons.join("; ")}`),
      [],
      `seed ${seed}`,
    );
  } finally {
    await stop();
  }
}
