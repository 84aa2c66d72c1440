// Graceful shutdown of serve() on Deno under load (tests/shutdown/shutdown_cases.ts), with the
// server in a child process that a real SIGTERM reaches.
import { shutdownCases } from "./shutdown/shutdown_cases.ts";
import { denoPath, startServer } from "./fuzz/server_process.ts";

for (const [name, run] of Object.entries(shutdownCases)) {
  Deno.test(`serve() on Deno: ${name}`, () =>
    run(() =>
      startServer(denoPath(), ["run", "-A", "tests/shutdown/server_deno.ts"], {
        lifetimeMs: 60_000,
      })
    ));
}
