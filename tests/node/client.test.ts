// The typed client of the npm build (weft/client) under Node, on Node's own fetch, against the
// demo app (examples/app.ts) served by Deno in a child process over a loopback socket: the
// round trip of tests/client/demo_round_trip.ts, which Deno and Chromium run too.
import { execFileSync } from "node:child_process";
import { expect, test } from "vitest";
import { client } from "weft/client";
import { startServer } from "../fuzz/server_process.ts";
import { DEMO_STEPS, demoRoundTrip } from "../client/demo_round_trip.ts";

// The Deno executable itself (not npx, whose child would outlive a kill of its PID): WEFT_DENO,
// or the one `npx -y deno@2.9.6` (the version CI runs) resolves to.
function deno(): string {
  if (process.env.WEFT_DENO) return process.env.WEFT_DENO;
  return execFileSync("npx", ["-y", "deno@2.9.6", "eval", "console.log(Deno.execPath())"], {
    encoding: "utf8",
    timeout: 120_000,
  }).trim();
}

test("weft/client round-trips the demo app (Deno) on Node's fetch", async () => {
  const server = await startServer(
    deno(),
    ["run", "--allow-net", "--allow-read", "--allow-env", "tests/fixtures/demo_server.ts"],
    { lifetimeMs: 100_000 },
  );
  try {
    const steps = await demoRoundTrip(
      client as unknown as Parameters<typeof demoRoundTrip>[0],
      `http://127.0.0.1:${server.port}`,
    );
    expect(steps).toEqual(DEMO_STEPS);
  } finally {
    await server.stop();
  }
}, 120_000);
