// The app and the signal handling of the graceful-shutdown test, in plain JavaScript so that
// Node runs it without a TypeScript step (server_deno.ts and tests/node/shutdown_server.mjs
// start it). serve() has no grace period and no second-signal behaviour of its own, so
// `onSignals` adds them the way an app would:
//
//   first SIGTERM   stop the event streams, call shutdown(), release the latch 300 ms later;
//                   exit 0 once shutdown() resolves, or exit 1 when GRACE_MS passes first
//   second SIGTERM  exit 2 at once, whatever is still running
//
// It prints "ready <port>" once the signal handlers are in place, "inflight <n>" as latched
// handlers start, "stuck" as the handler that never returns starts, "sse ended <kind>" as
// sse() streams end (nothing in the app ends them: the server's shutdown does), "drained <ms>"
// and "exiting <code>".

/** How long shutdown() may take before the process exits anyway. */
export const GRACE_MS = 5_000;

/**
 * Builds the app and the function that wires the signals to a server.
 *
 * @param {typeof import("../../mod.ts")} weft The module under test.
 * @param {(line: string) => void} print Writes a line to stdout.
 */
export function shutdownApp(weft, print) {
  const { get, router, sse, websocket } = weft;
  let release;
  const latch = new Promise((resolve) => release = resolve);
  let inflight = 0;
  let stopping = false;
  const app = router([
    get("/", () => new Response("up")),
    get("/latched", async () => {
      print(`inflight ${++inflight}`);
      await latch;
      return new Response("released");
    }),
    get("/stuck", () => {
      print("stuck");
      return new Promise(() => {});
    }),
    get("/events", () => {
      let n = 0;
      let timer;
      return new Response(
        new ReadableStream({
          start(controller) {
            timer = setInterval(() => {
              if (stopping) {
                clearInterval(timer);
                controller.enqueue(new TextEncoder().encode("event: bye\ndata: bye\n\n"));
                controller.close();
              } else controller.enqueue(new TextEncoder().encode(`data: ${n++}\n\n`));
            }, 50);
          },
          cancel() {
            clearInterval(timer);
          },
        }),
        { headers: { "content-type": "text/event-stream" } },
      );
    }),
    get("/sse", (ctx) =>
      sse(ctx, async (stream) => {
        stream.send({ id: "1", data: "open" });
        await stream.closed;
        print(`sse ended ${stream.signal.reason.kind}`);
      })),
    get(
      "/ws",
      websocket({ onMessage: (socket, frame) => frame.type === "text" && socket.send(frame.text) }),
    ),
  ]);

  /**
   * @param {{ shutdown(): Promise<void> }} server
   * @param {(signal: string, listener: () => void) => void} onSignal
   * @param {(code: number) => void} exit
   */
  function onSignals(server, onSignal, realExit) {
    // The exit code goes to stdout too: Deno's node:child_process reports a child that exits
    // on its own after a SIGTERM as killed by the signal.
    const exit = (code) => {
      print(`exiting ${code}`);
      realExit(code);
    };
    let signals = 0;
    onSignal("SIGTERM", () => {
      if (++signals > 1) return exit(2);
      const started = Date.now();
      stopping = true;
      setTimeout(release, 300);
      setTimeout(() => exit(1), GRACE_MS);
      server.shutdown().then(() => {
        print(`drained ${Date.now() - started}`);
        exit(0);
      });
    });
  }
  return { app, onSignals };
}
