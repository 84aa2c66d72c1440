// One load process of the soak (started by main.ts, several at once): its share of the mixed
// load, with its own HTTP/1.1 agent, h2c session and WebSockets, so that no single event loop
// carries the whole client side and one process's pauses cannot set the latency of every
// request. It takes commands as JSON lines on stdin and answers with JSON lines on stdout:
//
//   {"measure": {"ms": 3000, "clients": 16}}   → {"measured": <requests answered>}
//   {"load": {"rate": 2500, "seconds": 600, "windowMs": 60000, "backlog": 512}}
//        → {"point": …} every 10 s of the load, then {"done": …}
//   {"probe": {"seconds": 600, "windowMs": 60000, "intervalMs": 50}}
//        → {"done": …}: one request at a time, one every intervalMs, over a connection of its
//          own; its latency counts from when the request was sent. A process that only probes
//          is idle between requests, so what it measures is the server's latency under the
//          soak, with next to no pause of its own. Once a second, between two requests, it
//          also times a fixed piece of JavaScript work (machineWork()): the machine's own speed,
//          which the trace and the drift are read against. It sends {"point": …} every 10 s too.
//   {"disconnect": true}                       → closes every socket, {"disconnected": true}
//   {"connect": {"port": 8001, "etag": "…"}}   → new sockets, to another server: {"connected": true}
//   {"close": true}                            → closes every socket, {"closed": true}, exits
//
// It exits by itself when stdin closes (the soak died) or after --deadline seconds.
import * as http from "node:http";
import { parseArgs } from "node:util";
import { H2Client, http1Shots, schedule, type Target, WsClients } from "./load.ts";
import { Phases, type PhasesData, Window, type WindowData } from "./stats.ts";
import { cpuTicksSync, TICKS_PER_SECOND } from "../../bench/_cpu.ts";

export const TRACE_MS = 10_000;

/** Every TRACE_MS of the load: what this process saw and spent. */
export interface PointData {
  window: WindowData;
  /** The longest event-loop stall of the stretch: how late the load loop's 5 ms tick came. */
  lagMs: number;
  cpuMs: number;
  heapMib: number;
  /** The probe only: the fastest run of machineWork() in the stretch, µs. */
  workUs?: number;
}

/** The end of the load: the whole run, its first and last windows, errors and kinds. */
export interface DoneData extends PhasesData {
  errorKinds: Record<string, number>;
  /** The same by kind of request, to show which kind a drift is in. */
  kinds: Record<string, PhasesData>;
  /** The probe only: the fastest run of machineWork() in the first and the last window, µs. */
  work?: { firstUs: number; lastUs: number };
}

const WORK = { id: 7, item: "soak", tags: ["a", "b"], at: 1.5, nested: { ok: true } };

/**
 * Times a fixed piece of JavaScript work (JSON round trips, as a server does), in µs. Its
 * fastest run over a stretch is the machine's speed then, apart from this run's load: on a
 * shared or throttled host the same work takes longer at some times than at others (up to 15 %
 * between the minutes of a 10-minute run on a 2-core VM). The fastest of many runs leaves out
 * the runs that waited for a core.
 */
export function machineWork(): number {
  const start = performance.now();
  let tags = 0;
  for (let i = 0; i < 1_000; i++) tags += JSON.parse(JSON.stringify(WORK)).tags.length;
  const us = (performance.now() - start) * 1000;
  if (tags !== 2_000) throw new Error("machineWork() did not do its work");
  return us;
}

export type Command =
  | { measure: { ms: number; clients: number } }
  | { load: { rate: number; seconds: number; windowMs: number; backlog: number } }
  | { probe: { seconds: number; windowMs: number; intervalMs: number } }
  | { disconnect: true }
  | { connect: Target }
  | { close: true };

/** The error of a request due while `backlog` requests are in flight. */
function overflow(backlog: number, stalled: boolean): string {
  return stalled
    ? `client backlog over ${backlog} right after the client's own loop stalled`
    : `client backlog over ${backlog} (client on schedule, answers late)`;
}

function cpuMs(): number {
  try {
    return cpuTicksSync("self") * 1000 / TICKS_PER_SECOND;
  } catch {
    return 0;
  }
}

// Each message is a line of its own even when V8's traces (--trace-gc) share stdout and leave a
// line unfinished: it starts with a newline, and one write cannot be split by another.
function send(message: unknown): void {
  Deno.stdout.writeSync(new TextEncoder().encode(`\n${JSON.stringify(message)}\n`));
}

/** The lines of a stream of text, without their newlines. */
export async function* lines(stream: ReadableStream<Uint8Array>): AsyncGenerator<string> {
  let buffer = "";
  for await (const chunk of stream.pipeThrough(new TextDecoderStream())) {
    buffer += chunk;
    for (let i = buffer.indexOf("\n"); i >= 0; i = buffer.indexOf("\n")) {
      yield buffer.slice(0, i);
      buffer = buffer.slice(i + 1);
    }
  }
}

if (import.meta.main) {
  const { values } = parseArgs({
    args: Deno.args,
    options: {
      port: { type: "string" },
      etag: { type: "string", default: '"none"' },
      index: { type: "string", default: "0" },
      // kinds of request left out of the mix, comma-separated ("ws open-echo-close")
      without: { type: "string", default: "" },
      deadline: { type: "string", default: "3600" },
    },
  });
  const without = new Set(values.without!.split(",").filter((kind) => kind !== ""));
  /** Sockets to one server: an HTTP/1.1 agent, an h2c session and WebSockets, and the mix. */
  const connect = (to: Target) => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 32 });
    const h2 = new H2Client(to.port);
    const ws = new WsClients(to.port);
    const mix = [...http1Shots(agent), ...h2.shots(), ...ws.shots()];
    for (const kind of without) {
      if (!mix.some(([name]) => name === kind)) {
        throw new RangeError(`Cannot leave "${kind}" out of the soak: no such kind of request`);
      }
    }
    return {
      next: schedule(mix.filter(([name]) => !without.has(name)), Number(values.index)),
      close() {
        ws.close();
        h2.close();
        agent.destroy();
      },
    };
  };
  let target: Target = { port: Number(values.port), etag: values.etag! };
  let sockets = connect(target);
  const next = () => sockets.next();
  const deadline = setTimeout(() => Deno.exit(3), Number(values.deadline) * 1000);
  Deno.unrefTimer(deadline);

  const measure = async ({ ms, clients }: { ms: number; clients: number }) => {
    let done = 0;
    const end = performance.now() + ms;
    await Promise.all(Array.from({ length: clients }, async () => {
      while (performance.now() < end) {
        await next()[1](target).catch(() => "error");
        done++;
      }
    }));
    send({ measured: done });
  };

  const load = async (
    { rate, seconds, windowMs, backlog }: {
      rate: number;
      seconds: number;
      windowMs: number;
      backlog: number;
    },
  ) => {
    const run = new Phases(windowMs, seconds * 1000);
    let stretch = new Window();
    let lag = 0;
    const errorKinds: Record<string, number> = {};
    const kinds: Record<string, Phases> = {};
    const record = (kind: string, at: number, ms: number, ok: boolean, problem?: string) => {
      run.record(at, ms, ok);
      (kinds[kind] ??= new Phases(windowMs, seconds * 1000)).record(at, ms, ok);
      stretch.record(ms, ok);
      if (problem !== undefined) errorKinds[problem] = (errorKinds[problem] ?? 0) + 1;
    };
    let cpuFrom = cpuMs();
    const tracer = setInterval(() => {
      const cpu = cpuMs();
      const point: PointData = {
        window: stretch.data(),
        lagMs: lag,
        cpuMs: cpu - cpuFrom,
        heapMib: Deno.memoryUsage().heapUsed / (1024 * 1024),
      };
      send({ point });
      stretch = new Window();
      lag = 0;
      cpuFrom = cpu;
    }, TRACE_MS);
    const inflight = new Set<Promise<void>>();
    const start = performance.now();
    const end = start + seconds * 1000;
    // A backlog that overflows right after the load loop woke up late is this process's own
    // stall (the requests due meanwhile go out at once), not a slow server: both count as
    // errors, under names that say which it was.
    const stallMs = (backlog / 2 / rate) * 1000;
    let issued = 0;
    let lateMs = 0;
    while (performance.now() < end) {
      const due = Math.floor(((performance.now() - start) / 1000) * rate);
      for (; issued < due; issued++) {
        const at = start + (issued / rate) * 1000;
        const [kind, shot] = next();
        if (inflight.size >= backlog) {
          record(kind, at - start, 0, false, overflow(backlog, lateMs >= stallMs));
          continue;
        }
        const p: Promise<void> = shot(target).catch((error: Error) => `${error.message}`).then(
          (problem) => {
            const ms = performance.now() - at;
            if (problem === null) record(kind, at - start, ms, true);
            else record(kind, at - start, ms, false, `${kind}: ${problem}`);
          },
        ).finally(() => inflight.delete(p));
        inflight.add(p);
      }
      const tick = performance.now();
      await new Promise((resolve) => setTimeout(resolve, 5));
      lateMs = performance.now() - tick - 5;
      if (lateMs > lag) lag = lateMs;
    }
    clearInterval(tracer);
    const drain = performance.now() + 15_000;
    while (inflight.size > 0 && performance.now() < drain) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    for (let i = inflight.size; i > 0; i--) {
      record("unfinished", seconds * 1000, 15_000, false, "unfinished 15 s after the load");
    }
    const done: DoneData = {
      ...run.data(),
      errorKinds,
      kinds: Object.fromEntries(Object.entries(kinds).map(([k, phases]) => [k, phases.data()])),
    };
    send({ done });
  };

  const probe = async (
    { seconds, windowMs, intervalMs }: { seconds: number; windowMs: number; intervalMs: number },
  ) => {
    const own = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const [, , shot] = http1Shots(own)[0]; // "h1 json"
    const run = new Phases(windowMs, seconds * 1000);
    const errorKinds: Record<string, number> = {};
    for (let i = 0; i < 20; i++) machineWork(); // compiled before it is timed
    let stretch = new Window();
    let stretchWork = Infinity;
    const work = { firstUs: Infinity, lastUs: Infinity };
    const start = performance.now();
    const end = start + seconds * 1000;
    let nextWork = start;
    let nextPoint = start + TRACE_MS;
    for (let due = start; due < end; due += intervalMs) {
      const wait = due - performance.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      const sent = performance.now();
      const problem = await shot(target).catch((error: Error) => error.message);
      const now = performance.now();
      run.record(sent - start, now - sent, !problem);
      stretch.record(now - sent, !problem);
      if (problem) {
        const name = `probe: ${problem}`;
        errorKinds[name] = (errorKinds[name] ?? 0) + 1;
      }
      if (now >= nextWork) {
        // between two requests, well before the next is due (about 1 ms of a 50 ms gap)
        nextWork += 1_000;
        const us = machineWork();
        stretchWork = Math.min(stretchWork, us);
        if (now - start < windowMs) work.firstUs = Math.min(work.firstUs, us);
        if (now - start >= seconds * 1000 - windowMs) work.lastUs = Math.min(work.lastUs, us);
      }
      if (now >= nextPoint) {
        nextPoint += TRACE_MS;
        const point: PointData = {
          window: stretch.data(),
          lagMs: 0,
          cpuMs: 0,
          heapMib: 0,
          workUs: stretchWork,
        };
        send({ point });
        stretch = new Window();
        stretchWork = Infinity;
      }
    }
    own.destroy();
    const done: DoneData = { ...run.data(), errorKinds, kinds: {}, work };
    send({ done });
  };

  for await (const line of lines(Deno.stdin.readable)) {
    const command = JSON.parse(line) as Command;
    if ("measure" in command) await measure(command.measure);
    else if ("load" in command) await load(command.load);
    else if ("probe" in command) await probe(command.probe);
    else if ("disconnect" in command) {
      sockets.close();
      send({ disconnected: true });
    } else if ("connect" in command) {
      target = command.connect;
      sockets = connect(target);
      send({ connected: true });
    } else break;
  }
  sockets.close();
  send({ closed: true });
  Deno.exit(0);
}
