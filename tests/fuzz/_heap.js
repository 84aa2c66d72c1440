// The fuzz servers' heap report, for the soak: on SIGUSR2 the server prints one line
// `heap {"rss":…,"used":…,"newSpace":…,"oldSpace":…,"lagMs":…}` (bytes, and ms) on stdout. RSS
// alone cannot tell a leak (live objects that grow) from a heap whose capacity V8 sized for the
// load.
// The line also gives the server's longest event-loop stall since the last report (`lagMs`: how
// late a 5 ms tick came, as the soak's load processes measure their own), so that latency the
// clients see can be told apart: a server that stalls, or a client that does.
// Plain JavaScript on node: APIs, so the Deno and the Node server share it.
import process from "node:process";
import { setTimeout } from "node:timers";
import v8 from "node:v8";

let lagMs = 0;

/** Measures the event loop's stalls from now on (a 5 ms tick that does not keep it alive). */
function watchLag() {
  let at = performance.now();
  const tick = () => {
    const now = performance.now();
    lagMs = Math.max(lagMs, now - at - 5);
    at = now;
    setTimeout(tick, 5).unref();
  };
  setTimeout(tick, 5).unref();
}

/** Installs the SIGUSR2 handler that prints the heap line. */
export function reportHeapOnSignal() {
  watchLag();
  process.on("SIGUSR2", () => {
    const space = (name) =>
      v8.getHeapSpaceStatistics().find((s) => s.space_name === name)?.space_size ?? null;
    const { rss, heapUsed } = process.memoryUsage();
    const line = {
      rss,
      used: heapUsed,
      newSpace: space("new_space"),
      oldSpace: space("old_space"),
      lagMs: Math.round(lagMs * 10) / 10,
    };
    lagMs = 0;
    console.log(`heap ${JSON.stringify(line)}`);
  });
}
