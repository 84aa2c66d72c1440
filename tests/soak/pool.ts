// The soak's side of its load processes (client.ts): starts them, sends them commands, and
// waits for their answers with a deadline; past it, or when one dies, the soak fails with what
// it waited for rather than hanging.
import { type Command, type DoneData, lines, type PointData } from "./client.ts";
import type { Target } from "./load.ts";

type Message =
  | { measured: number }
  | { point: PointData }
  | { done: DoneData }
  | { disconnected: true }
  | { connected: true }
  | { closed: true };

const CLIENT = new URL("./client.ts", import.meta.url).pathname;
/** V8 flags for the load processes, to look into them (e.g. --trace-gc); their output is logged. */
const V8_FLAGS = Deno.env.get("WEFT_SOAK_V8_FLAGS");

export class LoadProcess {
  readonly index: number;
  readonly pid: number;
  /** Trace points in the order they came. */
  readonly points: PointData[] = [];
  #child: Deno.ChildProcess;
  #writer: WritableStreamDefaultWriter<Uint8Array>;
  #messages: Message[] = [];
  #wake: (() => void) | undefined;
  #ended = false;
  /** Called on every trace point, after it is stored. */
  onPoint: () => void = () => {};

  constructor(index: number, target: Target, deadlineSeconds: number, without: string[] = []) {
    this.index = index;
    this.#child = new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "-A",
        ...(V8_FLAGS ? [`--v8-flags=${V8_FLAGS}`] : []),
        CLIENT,
        "--port",
        String(target.port),
        "--etag",
        target.etag,
        "--index",
        String(index),
        "--without",
        without.join(","),
        "--deadline",
        String(deadlineSeconds),
      ],
      stdin: "piped",
      stdout: "piped",
      stderr: "inherit",
    }).spawn();
    this.pid = this.#child.pid;
    this.#writer = this.#child.stdin.getWriter();
    this.#read();
    this.#child.status.then(() => {
      this.#ended = true;
      this.#wake?.();
    });
  }

  async #read(): Promise<void> {
    try {
      for await (const line of lines(this.#child.stdout)) {
        if (line === "") continue;
        if (!line.startsWith("{")) {
          // not the protocol: V8's own traces (--v8-flags in WEFT_SOAK_V8_FLAGS)
          console.error(`load process ${this.index}: ${line}`);
          continue;
        }
        const message = JSON.parse(line) as Message;
        if ("point" in message) {
          this.points.push(message.point);
          this.onPoint();
        } else {
          this.#messages.push(message);
          this.#wake?.();
        }
      }
    } catch {
      // the process died; #ended says so to whoever waits
    }
  }

  async send(command: Command): Promise<void> {
    await this.#writer.write(new TextEncoder().encode(JSON.stringify(command) + "\n"));
  }

  /** The next answer of this process, or an error naming `what` past `ms` or if it died. */
  async answer<K extends "measured" | "done" | "disconnected" | "connected" | "closed">(
    key: K,
    ms: number,
  ): Promise<Extract<Message, Record<K, unknown>>[K]> {
    const deadline = performance.now() + ms;
    while (true) {
      const i = this.#messages.findIndex((m) => key in m);
      if (i >= 0) {
        const [message] = this.#messages.splice(i, 1);
        return (message as Record<K, unknown>)[key] as Extract<Message, Record<K, unknown>>[K];
      }
      const left = deadline - performance.now();
      if (this.#ended || left <= 0) {
        throw new Error(
          `load process ${this.index} (pid ${this.pid}) ${
            this.#ended ? "exited" : `did not answer in ${ms} ms`
          } while the soak waited for "${key}"`,
        );
      }
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.min(left, 1_000));
        this.#wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
  }

  /** Ends the process: asks it to close its sockets, then SIGTERM and SIGKILL if it lingers. */
  async stop(): Promise<void> {
    if (this.#ended) return;
    try {
      await this.send({ close: true });
      await this.answer("closed", 5_000);
    } catch {
      // it will be killed below
    }
    for (const signal of ["SIGTERM", "SIGKILL"] as const) {
      if (this.#ended) break;
      try {
        this.#child.kill(signal);
      } catch {
        break; // already gone
      }
      await Promise.race([this.#child.status, new Promise((r) => setTimeout(r, 2_000))]);
    }
    await this.#writer.close().catch(() => {});
    await this.#child.status;
  }
}
