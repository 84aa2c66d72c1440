// `deno task soak`: the fuzz app (tests/fuzz/app.js) under a steady mixed load for a while, on
// Deno's serve() and on the npm build on Node, each in its own process.
//
//   deno task soak                         10 minutes per runtime
//   deno task soak --seconds 60 --runtime deno --out .ci/out/soak.json --junit .ci/out/soak.xml
//   deno task soak --calm                  without the hostile clients
//   deno task soak --control same          the control on the soaked server, sockets renewed
//   deno task soak --rate 2500             hold 2,500 req/s (half the measured maximum without)
//   deno task soak --without "ws open-echo-close"   without a kind of request (comma-separated)
//   WEFT_SOAK_SERVER_V8_FLAGS=--trace-gc deno task soak   V8 flags for the servers (traces on
//                                          stderr); WEFT_SOAK_V8_FLAGS for the load processes
//
// The load comes from --processes load processes (client.ts, 2 by default), each with its share
// of the rate and its own sockets, so that the latencies do not rest on one event loop: with
// the whole client side in one process, that process's own pauses grew over a 10-minute run
// and were counted as latency of every request due meanwhile.
//
// 1. measure: 3 s of closed-loop load with 32 clients gives the server's maximum rate;
// 2. load: the mix (load.ts) at half that rate, open loop (latency counts from when a request
//    was due), with hostile clients in the background (from this process);
// 3. settle: the load and the hostile clients stop and close; the server's RSS and open
//    descriptors are read again from /proc/<pid> 5 s later and 20 s later. The goals are judged
//    on the 20 s reading: RSS against its level after step 1 (the warmed server; growth from
//    there is what a leak would show), descriptors against the start. V8 gives back a heap sized
//    for the load only through its memory reducer, which first looks 8 s after allocation went
//    low (kLongDelayMs in V8's heap/memory-reducer.cc): at 5 s Deno's server still held a new
//    space of 52 MiB that it had dropped to 0.3 MiB by 20 s. The 5 s reading is reported too.
//    At each reading the server also reports its heap (tests/fuzz/_heap.js): the bytes in use
//    and what V8 holds for new and old objects, so that growth of RSS can be told apart: live
//    objects that grow (a leak) or space V8 sized for the load and keeps.
// 4. control: the soaked server stops and a fresh one of the same runtime takes the same load
//    from the same load processes and probe (warm-up, then the same rate, hostile clients as
//    before) for two windows. The soaked server's last window against the fresh server's second
//    (its first holds its start, as the soak's own first window does) is the drift the server
//    accounts for: clients, mix and rate are the same and the machine nearly so, minutes apart
//    where the first and the last window are ten minutes apart.
//
// Every 10 s of step 2 prints one line (and the JSON keeps it under `trace`): latencies of the
// requests that finished, the load processes' longest event-loop lag, their CPU and heap, the
// server's CPU per request and RSS, the probe's p99, and the machine: its CPU pressure and the
// time of a fixed piece of JavaScript work (client.ts machineWork(), fastest run of the stretch).
// A client that falls behind shows as lag with a flat server; a server that degrades, as CPU per
// request or RSS that climbs while the fixed work keeps its time; a machine that slows down (a
// shared or throttled host), as the fixed work and the CPU per request of client and server
// rising together. The p99 of each kind of request, first and last window, says where a drift
// is, and the fixed work's first and last window say how much of it was the machine's. The line
// ends with the CPU of the kernel's memory monitor (DAMON's kdamond threads) when one runs: on
// two-core virtual machines its work grew over a run and stalled client and server alike, and it
// was what the p99 drift of a 10-minute soak came from (docs/architecture.md, "What a soak's
// drift was"). The soak reports it and leaves the kernel's settings alone.
//
// With --pin, client and server are pinned to different cores (taskset; two cores or more): the
// client side (the load processes, and this one with the hostile clients) on CPU 0, the server on
// CPU 1, so that an open-loop client that falls behind its schedule cannot be a client starved
// by the server it loads. Without it (the default, and CI's run) they share the cores: pinned,
// a Deno server loses the second core its runtime threads and GC otherwise use, and on two
// cores its p99 then rose in the last fifth of a 60 s run (0.26 % backlog errors).
//
// Goals: errors ≤ 0.01 %; p99 of the last minute within 20 % of the first (first and last fifth
// in runs under 5 minutes) and of the fresh server's under the same load; 20 s after the load, RSS ≤ 20 MiB above the warmed server and fds
// ≤ 10 above the start. Exits 1 when errors pass the goal, the server died or stopped
// answering, or for gross leaks (fds +100, RSS +256 MiB); drift and smaller growth are reported
// only.
import { writeFileSync } from "node:fs";
import process from "node:process";
import { parseArgs } from "node:util";
import { learn, sanity } from "../fuzz/fuzz.ts";
import { ensureNodeBuild, type RuntimeName, startFuzzServer } from "../fuzz/servers.ts";
import { Hostile, type Target } from "./load.ts";
import { type DoneData, TRACE_MS } from "./client.ts";
import { LoadProcess } from "./pool.ts";
import { Window, type WindowData } from "./stats.ts";
import { cpuTicksSync, TICKS_PER_SECOND } from "../../bench/_cpu.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: {
    seconds: { type: "string", default: "600" },
    runtime: { type: "string", default: "both" },
    out: { type: "string" },
    junit: { type: "string" },
    pin: { type: "boolean", default: false },
    processes: { type: "string", default: "2" },
    // without the hostile clients, to tell their effect from the load's
    calm: { type: "boolean", default: false },
    // the control run: "fresh" (a new server) or "same" (the soaked server, sockets renewed)
    control: { type: "string", default: "fresh" },
    // the rate to hold, req/s, instead of half the measured maximum (to compare runs)
    rate: { type: "string" },
    // kinds of request left out of the mix, comma-separated: --without "ws open-echo-close"
    without: { type: "string", default: "" },
  },
});
const processes = Number(values.processes);
const fixedRate = values.rate === undefined ? undefined : Number(values.rate);
if (fixedRate !== undefined && !(fixedRate >= 10)) {
  throw new RangeError(`Cannot soak: --rate ${values.rate} is not 10 req/s or more`);
}
if (values.control !== "fresh" && values.control !== "same") {
  throw new RangeError(`Cannot soak: --control ${values.control} is not "fresh" or "same"`);
}
const without = values.without.split(",").filter((kind) => kind !== "");
if (!(processes >= 1 && processes <= 16)) {
  throw new RangeError(`Cannot soak: --processes ${values.processes} is not 1 to 16`);
}
const seconds = Number(values.seconds);
if (!(seconds >= 5)) throw new RangeError(`Cannot soak: --seconds ${values.seconds} is under 5`);
const runtimes: RuntimeName[] = values.runtime === "both"
  ? ["deno", "node"]
  : [values.runtime as RuntimeName];
if (runtimes.includes("node")) ensureNodeBuild();
const pinned = values.pin && pin(Deno.pid);

/** Pins every thread of a process to CPU 0; false where taskset or a second core is missing. */
function pin(pid: number): boolean {
  if (navigator.hardwareConcurrency < 2) return false;
  try {
    const done = new Deno.Command("taskset", {
      args: ["-a", "-p", "-c", "0", String(pid)],
      stdout: "null",
      stderr: "piped",
    }).outputSync();
    return done.success;
  } catch {
    return false; // no taskset
  }
}

const MIB = 1024 * 1024;
/** Requests in flight at most, over all load processes; one due beyond that is an error. */
const BACKLOG = 1024;
const GOALS = { errorRate: 0.0001, drift: 0.2, rssMib: 20, fds: 10 };
const GROSS = { rssMib: 256, fds: 100 };

interface Usage {
  rssMib: number | null;
  fds: number | null;
}

/** The server's own heap report (tests/fuzz/_heap.js), MiB: what RSS is made of. */
interface HeapMib {
  used: number;
  newSpace: number | null;
  oldSpace: number | null;
  /** The server's longest event-loop stall since its last report, ms (null: not reported). */
  lagMs: number | null;
}

/** One TRACE_MS stretch of the load, by when its requests finished, client and server side. */
interface TracePoint {
  /** Seconds into the load at the end of the stretch. */
  s: number;
  requests: number;
  errors: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  /** The load processes' longest event-loop stall: how late a 5 ms tick came. */
  clientLagMs: number;
  /** CPU time of the load processes over wall time, 100 = one core. */
  clientCpu: number;
  /** Heap in use, summed over the load processes. */
  clientHeapMib: number;
  serverCpu: number;
  /** Server CPU time per answered request. */
  serverUsPerRequest: number;
  serverRssMib: number | null;
  /** The server's open descriptors (its sockets, mostly) at the end of the stretch. */
  serverFds: number | null;
  /** The server's heap in use, MiB, read at most 10 s before (null: no report). */
  serverHeapMib: number | null;
  /** The server's longest event-loop stall over the 10 s before its last report. */
  serverLagMs: number | null;
  /** CPU of this process (hostile clients, trace), 100 = one core. */
  soakCpu: number;
  /** The machine's CPU time over the stretch by kind, % of all CPUs (null without /proc/stat). */
  machineCpu: MachineShare | null;
  /** Share of the last 10 s in which some task of the machine waited for a CPU (Linux PSI). */
  cpuPressure: number | null;
  /** The probe's p99 over the stretch. */
  probeP99Ms: number;
  /** The machine's speed: the fastest run of a fixed piece of work in the stretch, µs. */
  workUs: number | null;
  /** CPU of the kernel's memory monitor (kdamondPids()), 100 = one core; null: none runs. */
  kdamondCpu: number | null;
}

interface SoakResult {
  runtime: string;
  seconds: number;
  maxRps: number;
  rate: number;
  requests: number;
  errors: number;
  errorRate: number;
  errorKinds: Record<string, number>;
  p99FirstMs: number;
  p99LastMs: number;
  drift: number;
  /**
   * The probe's p99 (client.ts: one request every 50 ms from a process that does nothing else,
   * timed from when it was sent): the server's latency under the soak without the loaded
   * clients' own pauses.
   */
  probe: { p99FirstMs: number; p99LastMs: number; drift: number; requests: number };
  /**
   * The machine's speed over the same windows: the fastest run of a fixed piece of JavaScript
   * work (client.ts machineWork()) in the first and the last window, and how much slower the
   * last was (0.2: 20 %). A drift the machine shows too is not the server's.
   */
  machine: {
    workFirstUs: number;
    workLastUs: number;
    slowdown: number;
    /**
     * CPU of the kernel's memory monitor (kdamondPids()) in the first and the last window, 100 =
     * one core (mean of the trace points in each); null when none ran.
     */
    kdamond: { firstCpu: number; lastCpu: number } | null;
  };
  /**
   * A fresh server of the same runtime, started after the soak and loaded by the same processes
   * (warm-up, then the same rate, hostile clients as in the soak) for two windows: the p99 of its second
   * window and the probe's, and how much the soaked server's last window is above them. The machine is nearly the same
   * a minute apart, so this drift is the server's own (what ten minutes of load left behind),
   * where the first/last drift also holds whatever the machine did over the whole run.
   */
  control: {
    p99Ms: number;
    probeP99Ms: number;
    errors: number;
    drift: number;
    probeDrift: number;
  };
  window: string;
  processes: number;
  /** p99 of each kind of request in the first and the last window, ms. */
  kinds: Record<string, { p99FirstMs: number; p99LastMs: number }>;
  before: Usage;
  /** After the measuring phase: caches, JIT code and heap sizes at their working level. */
  warm: Usage;
  peak: Usage;
  /** 5 s after the load, reported only: V8's memory reducer has not looked yet. */
  after: Usage;
  /** 20 s after the load: the reading the goals are judged on. */
  idle: Usage;
  /** The server's heap when warmed, 5 s after the load and 20 s after (null: no report). */
  heap: { warm: HeapMib | null; after: HeapMib | null; idle: HeapMib | null };
  hostile: Record<string, number>;
  trace: TracePoint[];
  alive: boolean;
  failures: string[];
  notes: string[];
}

/** CPU time (user and system) of a process in ms, from /proc; null where it cannot be read. */
function cpuMs(pid: number | "self"): number | null {
  try {
    return cpuTicksSync(pid) * 1000 / TICKS_PER_SECOND;
  } catch {
    return null;
  }
}

/** The machine's CPU time by kind (the "cpu" line of /proc/stat), ticks; null without it. */
function machineTicks(): number[] | null {
  try {
    const line = Deno.readTextFileSync("/proc/stat").split("\n")[0];
    return line.trim().split(/ +/).slice(1).map(Number);
  } catch {
    return null;
  }
}

interface MachineShare {
  user: number;
  system: number;
  softirq: number;
  steal: number;
  idle: number;
}

/** What the machine's CPUs did between two readings of machineTicks(), % of their time. */
function machineShare(from: number[] | null, to: number[] | null): MachineShare | null {
  if (from === null || to === null) return null;
  const d = to.map((t, i) => t - from[i]);
  const total = d.reduce((a, b) => a + b, 0) || 1;
  const pct = (n: number) => round1((n / total) * 100);
  // user nice system idle iowait irq softirq steal
  return {
    user: pct(d[0] + d[1]),
    system: pct(d[2] + d[5]),
    softirq: pct(d[6]),
    steal: pct(d[7] ?? 0),
    idle: pct(d[3] + d[4]),
  };
}

/** The machine's CPU pressure, "some avg10" of /proc/pressure/cpu, in %; null without PSI. */
function cpuPressure(): number | null {
  try {
    const match = /some avg10=([\d.]+)/.exec(Deno.readTextFileSync("/proc/pressure/cpu"));
    return match === null ? null : Number(match[1]);
  } catch {
    return null;
  }
}

/**
 * The kernel's own memory monitor, DAMON (threads named kdamond.N; Linux 5.15 and later): the
 * ids of its threads, found as each trace begins. A host can run it to reclaim a virtual
 * machine's page cache; on the machines this soak was written on it did, and its work grew over
 * a run and stalled the processes it sampled (docs/architecture.md, "What a soak's drift was"),
 * so the trace times it.
 */
function kdamondPids(): number[] {
  const pids: number[] = [];
  try {
    for (const entry of Deno.readDirSync("/proc")) {
      if (!/^\d+$/.test(entry.name)) continue;
      try {
        const comm = Deno.readTextFileSync(`/proc/${entry.name}/comm`);
        if (comm.startsWith("kdamond")) pids.push(Number(entry.name));
      } catch {
        // the process ended meanwhile
      }
    }
  } catch {
    // no /proc: nothing to time
  }
  return pids;
}

/** CPU time of the kdamond threads, ms; null when there are none. */
function kdamondMs(pids: number[]): number | null {
  let sum: number | null = null;
  for (const pid of pids) {
    const ms = cpuMs(pid);
    if (ms !== null) sum = (sum ?? 0) + ms;
  }
  return sum;
}

function describeShare(m: MachineShare | null): string {
  return m === null
    ? "CPUs ?"
    : `CPUs user ${m.user} / system ${m.system} / softirq ${m.softirq} / steal ${m.steal} / ` +
      `idle ${m.idle} %`;
}

function round1(n: number): number {
  return Math.round(n * 10) / 10;
}

function mib(bytes: number | null): number | null {
  return bytes === null ? null : round1(bytes / MIB);
}

/** One reading of the clocks the trace compares: wall, the server's and this process's CPU. */
interface Reading {
  at: number;
  server: number;
  self: number;
  machine: number[] | null;
  kdamond: number | null;
}

/**
 * Every TRACE_MS of the load: the latencies of the requests that finished in it, and what client
 * and server spent meanwhile, printed as one line, so that a slowdown shows on which side it
 * began (a client that stalls or burns more CPU per request, or a server that does). A stretch
 * is closed once every load process has sent its point for it.
 */
class Tracer {
  readonly points: TracePoint[] = [];
  #pool: LoadProcess[];
  #prober: LoadProcess;
  #base: number[];
  #serverHeap: () => HeapMib | null;
  #serverPid: number;
  #serverUsage: () => Usage;
  #start = 0;
  #from: Reading = { at: 0, server: 0, self: 0, machine: null, kdamond: null };
  #kdamond = kdamondPids();

  constructor(
    pool: LoadProcess[],
    prober: LoadProcess,
    serverPid: number,
    serverUsage: () => Usage,
    serverHeap: () => HeapMib | null,
  ) {
    this.#serverHeap = serverHeap;
    this.#pool = pool;
    this.#prober = prober;
    this.#serverPid = serverPid;
    this.#serverUsage = serverUsage;
    // the processes may have sent points to an earlier tracer (the control reuses them)
    this.#base = [...pool, prober].map((p) => p.points.length);
    for (const p of [...pool, prober]) p.onPoint = () => this.#close();
  }

  begin(start: number): void {
    this.#start = start;
    this.#from = this.#now();
  }

  #now(): Reading {
    return {
      at: performance.now(),
      server: cpuMs(this.#serverPid) ?? 0,
      self: cpuMs("self") ?? 0,
      machine: machineTicks(),
      kdamond: kdamondMs(this.#kdamond),
    };
  }

  #close(): void {
    const n = this.points.length;
    const all = [...this.#pool, this.#prober];
    if (all.some((p, i) => p.points.length <= this.#base[i] + n)) return;
    const parts = all.map((p, i) => p.points[this.#base[i] + n]);
    const probe = parts.pop()!;
    const now = this.#now();
    const wall = now.at - this.#from.at;
    const w = merged(parts.map((part) => part.window));
    const usage = this.#serverUsage();
    const heap = this.#serverHeap();
    const answered = w.latency.count;
    const point: TracePoint = {
      s: Math.round((now.at - this.#start) / 1000),
      requests: w.requests,
      errors: w.errors,
      p50Ms: round1(w.latency.quantile(0.5)),
      p99Ms: round1(w.latency.quantile(0.99)),
      maxMs: round1(w.latency.max),
      clientLagMs: round1(Math.max(...parts.map((p) => p.lagMs))),
      clientCpu: Math.round((parts.reduce((sum, p) => sum + p.cpuMs, 0) / TRACE_MS) * 100),
      clientHeapMib: round1(parts.reduce((sum, p) => sum + p.heapMib, 0)),
      serverCpu: Math.round(((now.server - this.#from.server) / wall) * 100),
      soakCpu: Math.round(((now.self - this.#from.self) / wall) * 100),
      machineCpu: machineShare(this.#from.machine, now.machine),
      serverUsPerRequest: answered === 0
        ? 0
        : Math.round(((now.server - this.#from.server) * 1000) / answered),
      serverRssMib: usage.rssMib,
      serverFds: usage.fds,
      serverHeapMib: heap?.used ?? null,
      serverLagMs: heap?.lagMs ?? null,
      cpuPressure: cpuPressure(),
      probeP99Ms: round1(merged([probe.window]).latency.quantile(0.99)),
      workUs: typeof probe.workUs === "number" && Number.isFinite(probe.workUs)
        ? Math.round(probe.workUs)
        : null,
      kdamondCpu: now.kdamond === null || this.#from.kdamond === null
        ? null
        : round1(((now.kdamond - this.#from.kdamond) / wall) * 100),
    };
    this.points.push(point);
    console.log(
      `  ${point.s} s: ${point.requests} req, ${point.errors} errors, p50 ${point.p50Ms} / p99 ` +
        `${point.p99Ms} / max ${point.maxMs} ms | clients: lag ${point.clientLagMs} ms, CPU ` +
        `${point.clientCpu} %, heap ${point.clientHeapMib} MiB | server: lag ` +
        `${point.serverLagMs ?? "?"} ms, CPU ${point.serverCpu} %, ` +
        `${point.serverUsPerRequest} µs/req, ${point.serverFds ?? "?"} fds, RSS ` +
        `${point.serverRssMib} MiB, heap ` +
        `${point.serverHeapMib ?? "?"} MiB | probe: p99 ` +
        `${point.probeP99Ms} ms | machine: fixed work ${point.workUs ?? "?"} µs, CPU pressure ` +
        `${point.cpuPressure ?? "?"} %, ${describeShare(point.machineCpu)}, soak process ` +
        `${point.soakCpu} %, kdamond ${
          point.kdamondCpu === null ? "none" : `${point.kdamondCpu} %`
        }`,
    );
    this.#from = now;
    this.#close(); // a later stretch may be complete already
  }
}

function merged(parts: WindowData[]): Window {
  const w = new Window();
  for (const part of parts) w.merge(part);
  return w;
}

/** The p99 of windows from several processes, ms. */
function p99(parts: WindowData[]): number {
  return round1(merged(parts).latency.quantile(0.99));
}

/**
 * The machine in the first and the last window: its speed, from the probe's fixed work, and the
 * CPU its kernel's memory monitor took, from the trace.
 */
function machine(
  work: DoneData["work"],
  trace: TracePoint[],
  windowS: number,
): SoakResult["machine"] {
  const first = work?.firstUs ?? 0;
  const last = work?.lastUs ?? 0;
  const ok = Number.isFinite(first) && Number.isFinite(last) && first > 0;
  const mean = (points: TracePoint[]) => {
    const cpu = points.flatMap((p) => p.kdamondCpu ?? []);
    return cpu.length === 0 ? null : round1(cpu.reduce((a, b) => a + b, 0) / cpu.length);
  };
  // a window shorter than a trace stretch (a run under 50 s) takes the first and the last point
  const span = Math.max(windowS, TRACE_MS / 1000);
  const end = trace.at(-1)?.s ?? 0;
  const firstCpu = mean(trace.filter((p) => p.s <= span));
  const lastCpu = mean(trace.filter((p) => p.s > end - span));
  const kdamond = firstCpu === null || lastCpu === null ? null : { firstCpu, lastCpu };
  return ok
    ? {
      workFirstUs: Math.round(first),
      workLastUs: Math.round(last),
      slowdown: drift(first, last),
      kdamond,
    }
    : { workFirstUs: 0, workLastUs: 0, slowdown: 0, kdamond };
}

/** How much the last window's p99 is above the first's (0.2: 20 %). */
function drift(firstMs: number, lastMs: number): number {
  return firstMs === 0 ? 0 : lastMs / firstMs - 1;
}

type Server = Awaited<ReturnType<typeof startFuzzServer>>["server"];

/** What one server did under the load (drive()). */
interface Driven {
  maxRps: number;
  rate: number;
  warm: Usage;
  warmHeap: HeapMib | null;
  peak: Usage;
  done: DoneData[];
  probed: DoneData;
  trace: TracePoint[];
  hostile: Record<string, number>;
}

/**
 * One server under the soak's load, from load processes and a probe already connected to it:
 * they measure the maximum rate closed loop (which also warms the server); then the mix runs
 * open loop for `seconds` at `rate` (half the measured maximum when not given), with hostile
 * clients in the background unless --calm. Every socket to the server is closed before it
 * returns; the processes stay, to be connected to another server.
 */
async function drive(
  server: Server,
  clients: { pool: LoadProcess[]; prober: LoadProcess },
  options: { seconds: number; windowMs: number; rate?: number; usage: () => Usage },
): Promise<Driven> {
  const { seconds, windowMs } = options;
  const { pool, prober } = clients;
  const hostile = new Hostile(server.port);
  let sampler: ReturnType<typeof setInterval> | undefined;
  let heapReader: ReturnType<typeof setInterval> | undefined;
  try {
    // 1. measure the maximum rate, closed loop
    const measureMs = 3_000;
    await Promise.all(
      pool.map((p) => p.send({ measure: { ms: measureMs, clients: Math.ceil(32 / processes) } })),
    );
    // a process's first answer waits for its start-up (a few hundred ms) too
    const counts = await Promise.all(pool.map((p) => p.answer("measured", measureMs + 30_000)));
    const maxRps = counts.reduce((a, b) => a + b, 0) / (measureMs / 1000);
    const warm = options.usage();
    const warmHeap = await heapOf(server);
    const rate = options.rate ?? Math.max(10, Math.round(maxRps * 0.5));

    // 2. the load, open loop at `rate` shared by the load processes, with hostile clients
    if (!values.calm) hostile.start();
    // the server's heap every 10 s, for the trace: live objects that grow under a steady load
    let heapNow: HeapMib | null = null;
    heapReader = setInterval(async () => heapNow = await heapOf(server), TRACE_MS);
    const trace = new Tracer(pool, prober, server.pid, options.usage, () => heapNow);
    const peak: Usage = { ...warm };
    sampler = setInterval(() => {
      const now = options.usage();
      if (now.rssMib !== null && (peak.rssMib === null || now.rssMib > peak.rssMib)) {
        peak.rssMib = now.rssMib;
      }
      if (now.fds !== null && (peak.fds === null || now.fds > peak.fds)) peak.fds = now.fds;
    }, 1_000);
    trace.begin(performance.now());
    await prober.send({ probe: { seconds, windowMs, intervalMs: 50 } });
    await Promise.all(pool.map((p) =>
      p.send({
        load: {
          rate: rate / processes,
          seconds,
          windowMs,
          backlog: Math.ceil(BACKLOG / processes),
        },
      })
    ));
    // the load, then at most 15 s of draining in the load process
    const done = await Promise.all(pool.map((p) => p.answer("done", (seconds + 60) * 1000)));
    const probed = await prober.answer("done", 60_000);
    return {
      maxRps,
      rate,
      warm,
      warmHeap,
      peak,
      done,
      probed,
      trace: trace.points,
      hostile: { ...hostile.counts },
    };
  } finally {
    clearInterval(sampler);
    clearInterval(heapReader);
    hostile.stop();
    await Promise.all([...pool, prober].map(async (p) => {
      await p.send({ disconnect: true });
      await p.answer("disconnected", 10_000);
    }));
  }
}

/** Where the load processes send their requests: the server's port and an ETag it gives. */
async function targetOf(server: Server): Promise<Target> {
  const known = await learn(server.port);
  return { port: server.port, etag: known.validators["/static/hello.txt"]?.etag ?? '"none"' };
}

/** The server's own heap report, MiB; null when it gave none. */
async function heapOf(server: Server): Promise<HeapMib | null> {
  const h = await server.heap();
  return h && {
    used: mib(h.used)!,
    newSpace: mib(h.newSpace),
    oldSpace: mib(h.oldSpace),
    lagMs: h.lagMs ?? null,
  };
}

function usageOf(server: Server): () => Usage {
  return () => ({ rssMib: mib(server.rss()), fds: server.fds() });
}

/** V8 flags for the servers, to look into them (e.g. --trace-gc); their output is logged. */
const SERVER_V8_FLAGS = Deno.env.get("WEFT_SOAK_SERVER_V8_FLAGS");

function serverOptions(which: string): Parameters<typeof startFuzzServer>[2] {
  return {
    ...(pinned ? { cpu: 1 } : {}),
    ...(SERVER_V8_FLAGS
      ? {
        v8Flags: SERVER_V8_FLAGS,
        onOutput: (line: string) => {
          if (!line.startsWith("ready ") && !line.startsWith("heap ")) {
            console.error(`${which} server: ${line}`);
          }
        },
      }
      : {}),
  };
}

async function soak(runtime: RuntimeName): Promise<SoakResult> {
  const lifetimeMs = (seconds + 300) * 1000;
  const { server, stop } = await startFuzzServer(runtime, lifetimeMs, serverOptions("soaked"));
  const usage = usageOf(server);
  const windowMs = windowOf(seconds);
  const pool: LoadProcess[] = [];
  let prober: LoadProcess | undefined;
  let stopped = false;
  try {
    const before = usage();
    const target = await targetOf(server);
    for (let i = 0; i < processes; i++) {
      const p = new LoadProcess(i, target, seconds + 600, without);
      pool.push(p);
      if (pinned) pin(p.pid);
    }
    prober = new LoadProcess(processes, target, seconds + 600);
    if (pinned) pin(prober.pid);
    const clients = { pool, prober };
    const soaked = await drive(server, clients, { seconds, windowMs, usage, rate: fixedRate });

    // 3. settle: every socket of the clients is closed; the server is read again
    await new Promise((resolve) => setTimeout(resolve, 5_000));
    const after = usage();
    const afterHeap = await heapOf(server);
    await new Promise((resolve) => setTimeout(resolve, 15_000));
    const idle = usage();
    const idleHeap = await heapOf(server);
    const alive = server.alive() && (await sanity(server.port, null)) === null;
    if (!alive) {
      throw new Error(
        `the server died or stopped answering: ${server.exit() ?? ""}\n${server.output()}`,
      );
    }
    // 4. the control, loaded by the same processes at the same rate for two windows; its second
    // is compared (the first holds its start, as the soak's own does). By default a fresh
    // server; with --control same, the soaked server itself with every socket new, which tells
    // state kept per connection (gone) from state kept by the process (still there). Both come
    // after a pause of the load, with the load loops started anew, so a latency the running load
    // keeps up in itself could end there too.
    const same = values.control === "same";
    console.log(
      `  control: ${same ? "the same server, reconnected" : `a fresh ${runtime} server`}, ` +
        `${(2 * windowMs) / 1000} s at ${soaked.rate} req/s`,
    );
    if (!same) {
      stopped = true;
      await stop();
    }
    const fresh = same
      ? { server, stop: () => Promise.resolve() }
      : await startFuzzServer(runtime, lifetimeMs, serverOptions("fresh"));
    let control: Driven;
    try {
      const to = await targetOf(fresh.server);
      await Promise.all([...pool, prober].map(async (p) => {
        await p.send({ connect: to });
        await p.answer("connected", 10_000);
      }));
      control = await drive(fresh.server, clients, {
        seconds: (2 * windowMs) / 1000,
        windowMs,
        rate: soaked.rate,
        usage: usageOf(fresh.server),
      });
    } finally {
      await fresh.stop();
    }
    return report(runtime, { soaked, control, before, after, idle, afterHeap, idleHeap, alive });
  } finally {
    await Promise.all(pool.map((p) => p.stop()));
    await prober?.stop();
    if (!stopped) await stop();
  }
}

/** The first and the last window of a soak of `seconds`, ms: a minute, or a fifth of a short run. */
function windowOf(seconds: number): number {
  return seconds >= 300 ? 60_000 : (seconds * 1000) / 5;
}

/** The soak's result from what was measured: totals, p99s and drifts, usage, notes. */
function report(
  runtime: RuntimeName,
  m: {
    soaked: Driven;
    control: Driven;
    before: Usage;
    after: Usage;
    idle: Usage;
    afterHeap: HeapMib | null;
    idleHeap: HeapMib | null;
    alive: boolean;
  },
): SoakResult {
  const { soaked, control, before, after, idle, afterHeap, idleHeap, alive } = m;
  const { done, probed } = soaked;
  const total = merged([...done, probed].map((d) => d.total));
  const errorKinds: Record<string, number> = {};
  for (const d of [...done, probed]) {
    for (const [kind, n] of Object.entries(d.errorKinds)) {
      errorKinds[kind] = (errorKinds[kind] ?? 0) + n;
    }
  }
  const kinds: SoakResult["kinds"] = {};
  for (const kind of new Set(done.flatMap((d) => Object.keys(d.kinds)))) {
    const of = done.flatMap((d) => d.kinds[kind] ?? []);
    kinds[kind] = {
      p99FirstMs: p99(of.map((k) => k.first)),
      p99LastMs: p99(of.map((k) => k.last)),
    };
  }
  const p99FirstMs = p99(done.map((d) => d.first));
  const p99LastMs = p99(done.map((d) => d.last));
  const probe = { p99FirstMs: p99([probed.first]), p99LastMs: p99([probed.last]) };
  const controlP99 = {
    load: p99(control.done.map((d) => d.last)),
    probe: p99([control.probed.last]),
  };
  const controlErrors = merged([...control.done, control.probed].map((d) => d.total)).errors;
  const result: SoakResult = {
    runtime,
    seconds,
    maxRps: Math.round(soaked.maxRps),
    rate: soaked.rate,
    requests: total.requests,
    errors: total.errors,
    errorRate: total.requests === 0 ? 1 : total.errors / total.requests,
    errorKinds,
    p99FirstMs,
    p99LastMs,
    drift: drift(p99FirstMs, p99LastMs),
    probe: {
      ...probe,
      drift: drift(probe.p99FirstMs, probe.p99LastMs),
      requests: merged([probed.total]).requests,
    },
    machine: machine(probed.work, soaked.trace, windowOf(seconds) / 1000),
    control: {
      p99Ms: controlP99.load,
      probeP99Ms: controlP99.probe,
      errors: controlErrors,
      drift: drift(controlP99.load, p99LastMs),
      probeDrift: drift(controlP99.probe, probe.p99LastMs),
    },
    window: seconds >= 300 ? "first/last minute" : "first/last fifth",
    processes,
    kinds,
    before,
    warm: soaked.warm,
    peak: soaked.peak,
    after,
    idle,
    heap: { warm: soaked.warmHeap, after: afterHeap, idle: idleHeap },
    hostile: soaked.hostile,
    trace: soaked.trace,
    alive,
    failures: [],
    notes: [],
  };
  judge(result);
  return result;
}

function judge(r: SoakResult): void {
  // the trace is how a drift is told apart from the machine's own pace: it must be there
  if (r.seconds * 1000 >= 2 * TRACE_MS) {
    if (r.trace.length === 0) {
      r.failures.push("no trace point came: a load process or the probe sent none");
    } else if (r.trace.every((point) => point.workUs === null)) {
      r.failures.push("the probe never timed the machine's fixed work");
    }
  }
  if (r.errorRate > GOALS.errorRate) {
    r.failures.push(
      `error rate ${(r.errorRate * 100).toFixed(4)} % over the goal of ${GOALS.errorRate * 100} %`,
    );
  }
  if (r.control.drift > GOALS.drift) {
    r.notes.push(
      `p99 of the last window ${(r.control.drift * 100).toFixed(0)} % above a fresh server's ` +
        `under the same load (goal 20 %)`,
    );
  }
  if (r.drift > GOALS.drift) {
    r.notes.push(
      `p99 drift ${(r.drift * 100).toFixed(0)} % over the goal of 20 %; the machine's fixed ` +
        `work took ${(r.machine.slowdown * 100).toFixed(0)} % longer in the last window than in ` +
        `the first`,
    );
  }
  const kdamond = r.machine.kdamond;
  if (kdamond !== null && (r.drift > GOALS.drift || r.control.drift > GOALS.drift)) {
    r.notes.push(
      `the kernel's memory monitor (DAMON, kdamond) ran, at ${kdamond.firstCpu} → ` +
        `${kdamond.lastCpu} % of a core: on two-core virtual machines its work was what made ` +
        `the p99 drift (docs/architecture.md, "What a soak's drift was"); a run with it stopped ` +
        `tells whether it was here`,
    );
  }
  // RSS is compared with the warmed server (a leak grows with the soak's length; a heap sized
  // for full load does not), descriptors with the fresh one (the warm-up's clients hold some)
  const rssGrowth = r.idle.rssMib !== null && r.warm.rssMib !== null
    ? Math.round((r.idle.rssMib - r.warm.rssMib) * 10) / 10
    : null;
  const fdGrowth = r.idle.fds !== null && r.before.fds !== null ? r.idle.fds - r.before.fds : null;
  if (rssGrowth !== null && rssGrowth > GROSS.rssMib) {
    r.failures.push(`RSS grew ${rssGrowth} MiB (20 s after the load)`);
  } else if (rssGrowth !== null && rssGrowth > GOALS.rssMib) {
    r.notes.push(`RSS grew ${rssGrowth} MiB (20 s after the load; goal 20)`);
  }
  if (fdGrowth !== null && fdGrowth > GROSS.fds) {
    r.failures.push(`${fdGrowth} more open fds (20 s after the load)`);
  } else if (fdGrowth !== null && fdGrowth > GOALS.fds) {
    r.notes.push(`${fdGrowth} more open fds (20 s after the load; goal 10)`);
  }
}

function table(results: SoakResult[]): string {
  const rows: [string, ...string[]][] = [
    ["", ...results.map((r) => r.runtime)],
    ["client / server CPUs", ...results.map(() => (pinned ? "0 / 1 (pinned)" : "shared"))],
    ["load processes", ...results.map((r) => String(r.processes))],
    ["hostile clients", ...results.map(() => (values.calm ? "off (--calm)" : "on"))],
    ["left out of the mix", ...results.map(() => without.join(", ") || "nothing")],
    ["max rate measured (req/s)", ...results.map((r) => String(r.maxRps))],
    ["rate held (req/s)", ...results.map((r) => String(r.rate))],
    ["requests", ...results.map((r) => String(r.requests))],
    [
      "errors (goal ≤ 0.01 %)",
      ...results.map((r) => `${r.errors} (${(r.errorRate * 100).toFixed(4)} %)`),
    ],
    ["p99 first window (ms)", ...results.map((r) => r.p99FirstMs.toFixed(1))],
    ["p99 last window (ms)", ...results.map((r) => r.p99LastMs.toFixed(1))],
    [
      "p99 drift (goal ≤ 20 %)",
      ...results.map((r) => `${(r.drift * 100).toFixed(0)} % (${r.window})`),
    ],
    [
      "probe (one request every 50 ms): p99 first → last window (ms)",
      ...results.map((r) =>
        `${r.probe.p99FirstMs.toFixed(1)} → ${r.probe.p99LastMs.toFixed(1)} (${
          (r.probe.drift * 100).toFixed(0)
        } %)`
      ),
    ],
    [
      `control (${
        values.control === "same" ? "the same server, reconnected" : "a fresh server"
      }) at the same rate, its second window: p99 / probe p99 (ms)`,
      ...results.map((r) => `${r.control.p99Ms.toFixed(1)} / ${r.control.probeP99Ms.toFixed(1)}`),
    ],
    [
      "p99 drift, last window against the control (goal ≤ 20 % with a fresh server): load / probe",
      ...results.map((r) =>
        `${(r.control.drift * 100).toFixed(0)} % / ${(r.control.probeDrift * 100).toFixed(0)} %`
      ),
    ],
    [
      "machine: fixed work, fastest run, first → last window (µs)",
      ...results.map((r) =>
        `${r.machine.workFirstUs} → ${r.machine.workLastUs} (${
          (r.machine.slowdown * 100).toFixed(0)
        } %)`
      ),
    ],
    [
      "machine: the kernel's memory monitor (kdamond), CPU first → last window (% of a core)",
      ...results.map((r) =>
        r.machine.kdamond === null
          ? "none ran"
          : `${r.machine.kdamond.firstCpu} → ${r.machine.kdamond.lastCpu}`
      ),
    ],
    [
      "RSS MiB start / warmed / peak / 5 s after / 20 s after (goal: ≤ warmed + 20)",
      ...results.map((r) =>
        `${r.before.rssMib} / ${r.warm.rssMib} / ${r.peak.rssMib} / ${r.after.rssMib} / ` +
        `${r.idle.rssMib}`
      ),
    ],
    [
      "server heap MiB used / new space / old space: warmed → 5 s after → 20 s after",
      ...results.map((r) =>
        [r.heap.warm, r.heap.after, r.heap.idle].map((h) =>
          h === null ? "?" : `${h.used} / ${h.newSpace ?? "?"} / ${h.oldSpace ?? "?"}`
        ).join(" → ")
      ),
    ],
    [
      "fds before / peak / 20 s after (goal: ≤ before + 10)",
      ...results.map((r) => `${r.before.fds} / ${r.peak.fds} / ${r.idle.fds}`),
    ],
    [
      "hostile: slowloris / abandoned / oversized",
      ...results.map((r) =>
        `${r.hostile.slowloris} / ${r.hostile.abandoned} / ${r.hostile.oversized}`
      ),
    ],
    ["server alive after", ...results.map((r) => (r.alive ? "yes" : "NO"))],
    ["result", ...results.map((r) => (r.failures.length === 0 ? "pass" : "FAIL"))],
  ];
  const widths = rows[0].map((_, i) => Math.max(...rows.map((row) => row[i].length)));
  return rows.map((row) => row.map((cell, i) => cell.padEnd(widths[i])).join("  ")).join("\n");
}

function junit(results: SoakResult[]): string {
  const escape = (s: string) =>
    s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
  const cases = results.map((r) => {
    const name =
      `soak ${r.seconds} s on ${r.runtime}: errors ≤ 0.01 %, server alive, no gross leak`;
    const failure = r.failures.length === 0
      ? ""
      : `<failure message="${escape(r.failures[0].split("\n")[0])}">${
        escape(r.failures.join("\n"))
      }</failure>`;
    const out = `<system-out>${escape(JSON.stringify(r))}</system-out>`;
    return `  <testcase classname="soak" name="${
      escape(name)
    }" time="${r.seconds}">${failure}${out}</testcase>`;
  });
  const failed = results.filter((r) => r.failures.length > 0).length;
  return `<?xml version="1.0" encoding="UTF-8"?>\n<testsuites>\n <testsuite name="soak" tests="${results.length}" failures="${failed}">\n${
    cases.join("\n")
  }\n </testsuite>\n</testsuites>\n`;
}

const results: SoakResult[] = [];
for (const runtime of runtimes) {
  console.log(`soak ${runtime}: ${seconds} s …`);
  try {
    results.push(await soak(runtime));
  } catch (error) {
    results.push({
      runtime,
      seconds,
      maxRps: 0,
      rate: 0,
      requests: 0,
      errors: 0,
      errorRate: 1,
      errorKinds: {},
      p99FirstMs: 0,
      p99LastMs: 0,
      drift: 0,
      probe: { p99FirstMs: 0, p99LastMs: 0, drift: 0, requests: 0 },
      machine: { workFirstUs: 0, workLastUs: 0, slowdown: 0, kdamond: null },
      control: { p99Ms: 0, probeP99Ms: 0, errors: 0, drift: 0, probeDrift: 0 },
      window: "",
      processes,
      kinds: {},
      before: { rssMib: null, fds: null },
      warm: { rssMib: null, fds: null },
      peak: { rssMib: null, fds: null },
      after: { rssMib: null, fds: null },
      idle: { rssMib: null, fds: null },
      heap: { warm: null, after: null, idle: null },
      hostile: {},
      trace: [],
      alive: false,
      failures: [`the soak could not run: ${(error as Error).stack}`],
      notes: [],
    });
  }
}
console.log(table(results));
for (const r of results) {
  for (const [kind, count] of Object.entries(r.errorKinds)) {
    console.log(`${r.runtime} error: ${count}x ${kind}`);
  }
  for (const [kind, k] of Object.entries(r.kinds)) {
    console.log(`${r.runtime} p99 of ${kind}: ${k.p99FirstMs} → ${k.p99LastMs} ms (${r.window})`);
  }
  for (const note of r.notes) console.log(`${r.runtime} note: ${note}`);
  for (const failure of r.failures) console.log(`${r.runtime} FAIL: ${failure}`);
}
if (values.out) writeFileSync(values.out, JSON.stringify(results, null, 2));
if (values.junit) writeFileSync(values.junit, junit(results));
process.exit(results.every((r) => r.failures.length === 0) ? 0 : 1);
