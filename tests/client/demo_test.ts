// The typed client against the demo app over a real socket on Deno: serve() on a loopback
// port, the client on Deno's fetch (tests/client/demo_round_trip.ts).
import assert from "node:assert/strict";
import { serve } from "../../mod.ts";
import { client } from "../../lib/client/mod.ts";
import { app } from "../../examples/app.ts";
import { withDeadline } from "../_deadline.ts";
import { DEMO_STEPS, demoRoundTrip } from "./demo_round_trip.ts";

Deno.test("the typed client round-trips the demo app over a socket on Deno", async () => {
  const server = serve(app, { hostname: "127.0.0.1", port: 0, onListen: () => {} });
  try {
    const steps = await withDeadline(
      demoRoundTrip(client, `http://127.0.0.1:${server.addr.port}`),
      30_000,
      "the demo round trip",
    );
    assert.deepEqual(steps, DEMO_STEPS);
  } finally {
    await withDeadline(server.shutdown(), 10_000, "the demo server to shut down");
  }
});
