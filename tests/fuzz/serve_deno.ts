// The fuzz app (app.js) on Deno's serve(), in its own process so that a crash, a hang or a leak
// shows in the process and not in the test runner:
//   deno run -A tests/fuzz/serve_deno.ts <static root>
// Prints "ready <port>" once it listens; on SIGTERM shuts down gracefully, then exits; on
// SIGUSR2 prints its heap (_heap.js).
import * as weft from "../../mod.ts";
import { fuzzApp } from "./app.js";
import { reportHeapOnSignal } from "./_heap.js";

reportHeapOnSignal();

let logged = 0;
const server = weft.serve(fuzzApp(weft, { root: Deno.args[0], onLog: () => void logged++ }), {
  port: 0,
  hostname: "127.0.0.1",
  onListen: (addr) => console.log(`ready ${addr.port}`),
});
Deno.addSignalListener("SIGTERM", () => {
  setTimeout(() => Deno.exit(0), 5_000); // the grace period; past it the process just exits
  server.shutdown().finally(() => {
    console.log(`logged ${logged}`);
    Deno.exit(0);
  });
});
