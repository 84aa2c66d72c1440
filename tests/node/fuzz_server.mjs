// The fuzz app (tests/fuzz/app.js) on Node, served by the npm build installed by its package
// name, in its own process:
//   node tests/node/fuzz_server.mjs <static root>
// Prints "ready <port>" once it listens; on SIGTERM shuts down gracefully, then exits; on
// SIGUSR2 prints its heap (../fuzz/_heap.js).
import process from "node:process";
import * as weft from "weft";
import { fuzzApp } from "../fuzz/app.js";
import { reportHeapOnSignal } from "../fuzz/_heap.js";

reportHeapOnSignal();

let logged = 0;
const server = weft.serve(fuzzApp(weft, { root: process.argv[2], onLog: () => void logged++ }), {
  port: 0,
  hostname: "127.0.0.1",
  onListen: (addr) => console.log(`ready ${addr.port}`),
});
process.on("SIGTERM", () => {
  setTimeout(() => process.exit(0), 5_000).unref(); // the grace period
  server.shutdown().finally(() => {
    console.log(`logged ${logged}`);
    process.exit(0);
  });
});
