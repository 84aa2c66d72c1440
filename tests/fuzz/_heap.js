// The fuzz servers' heap report, for the soak: on SIGUSR2 the server prints one line
// `heap {"rss":…,"used":…,"newSpace":…,"oldSpace":…}` (bytes) on stdout. RSS alone cannot tell
// a leak (live objects that grow) from a heap whose capacity V8 sized for the load.
// Plain JavaScript on node: APIs, so the Deno and the Node server share it.
import process from "node:process";
import v8 from "node:v8";

/** Installs the SIGUSR2 handler that prints the heap line. */
export function reportHeapOnSignal() {
  process.on("SIGUSR2", () => {
    const space = (name) =>
      v8.getHeapSpaceStatistics().find((s) => s.space_name === name)?.space_size ?? null;
    const { rss, heapUsed } = process.memoryUsage();
    const line = {
      rss,
      used: heapUsed,
      newSpace: space("new_space"),
      oldSpace: space("old_space"),
    };
    console.log(`heap ${JSON.stringify(line)}`);
  });
}
