// Graceful shutdown of serve() on Node under load (tests/shutdown/shutdown_cases.ts): the npm
// build in a child process (shutdown_server.mjs) that a real SIGTERM reaches.
import { test } from "vitest";
import { startServer } from "../fuzz/server_process.ts";
import { shutdownCases } from "../shutdown/shutdown_cases.ts";

for (const [name, run] of Object.entries(shutdownCases)) {
  test(
    `serve() on Node: ${name}`,
    () =>
      run(() => startServer("node", ["tests/node/shutdown_server.mjs"], { lifetimeMs: 60_000 })),
    90_000,
  );
}
