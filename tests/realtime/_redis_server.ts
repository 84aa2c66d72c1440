// A redis-server of the test's own on a free loopback port, without persistence, stopped by
// PID. restart() stops it and starts it again on the same port, as a crashed server that comes
// back would; pause() freezes it (SIGSTOP) as a stalled host would, resume() thaws it. Without
// redis-server installed the tests that need it fail and say how to get it.
import { type ChildHandle, spawnChild } from "../_child.ts";

/** The binary the tests start. */
export const REDIS_SERVER: string = Deno.env.get("WEFT_REDIS_SERVER") ??
  "redis-server";

/** A running redis-server. */
export interface RedisServer {
  readonly port: number;
  readonly url: string;
  /** The PID of the current process (changes with restart()). */
  readonly pid: number;
  /** Stops it (SIGTERM, then SIGKILL), waiting for the exit. */
  stop(): Promise<void>;
  /** Starts it again on the same port (after stop()). */
  start(): Promise<void>;
  /**
   * Freezes it (SIGSTOP): its connections stay open and it answers nothing, as a stalled host
   * would. stop() thaws it first.
   */
  pause(): void;
  /** Lets it run again (SIGCONT) after pause(). */
  resume(): void;
}

/** A port that was free a moment ago. */
export function freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  return port;
}

function launch(port: number, deadlineMs: number): ChildHandle {
  try {
    return spawnChild(REDIS_SERVER, {
      what: `redis-server on port ${port}`,
      args: [
        "--port",
        String(port),
        "--bind",
        "127.0.0.1",
        "--save",
        "",
        "--appendonly",
        "no",
        "--daemonize",
        "no",
      ],
      stdout: "piped",
      stderr: "piped",
      deadlineMs,
    });
  } catch (error) {
    throw new Error(
      `Cannot start ${REDIS_SERVER} (install it with "apt-get install redis-server"): ${error}`,
    );
  }
}

/**
 * Starts a redis-server on a free port; the caller stops it in a `finally`. Past `deadlineMs`
 * (10 minutes unless said; a benchmark of many rounds needs more) it is stopped.
 */
export async function startRedis(deadlineMs = 600_000): Promise<RedisServer> {
  const port = freePort();
  let child: ChildHandle | undefined;
  let paused = false;
  async function start(): Promise<void> {
    child = launch(port, deadlineMs);
    await child.waitForOutput("stdout", /Ready to accept connections/, {
      ms: 15_000,
      what: "redis-server to accept connections",
    });
  }
  function resume(): void {
    if (child && paused) Deno.kill(child.pid, "SIGCONT");
    paused = false;
  }
  async function stop(): Promise<void> {
    // A stopped process keeps SIGTERM pending until it runs again.
    resume();
    const running = child;
    child = undefined;
    await running?.stop();
  }
  await start();
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    get pid() {
      return child?.pid ?? -1;
    },
    stop,
    start,
    pause() {
      if (!child) throw new Error("redis-server is not running");
      Deno.kill(child.pid, "SIGSTOP");
      paused = true;
    },
    resume,
  };
}
