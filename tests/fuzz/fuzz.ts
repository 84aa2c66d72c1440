// The fuzz runner: sends generated HTTP/1.1 cases over raw TCP and HTTP/2 cases through
// h2_peer.py to a running server, checks every answer against the oracle, and reports. Written
// with node: APIs only, so that the Deno test, the `deno task fuzz` script and vitest share it.
//
// Oracle: every response is well-formed (http1_response.ts; for HTTP/2, frames and HPACK that
// decode), its status is 2xx-5xx (101 only for a valid WebSocket handshake, with the right
// Sec-WebSocket-Accept), a Content-Length matches the body, no 5xx outside THROWING_PATHS, no
// byte of a file outside the static root or of a dotfile, and a complete request gets an answer
// (or the connection closes). After the run the server must be alive and answer a sanity request.
import { Buffer } from "node:buffer";
import { type ChildProcess, spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdirSync, writeFileSync } from "node:fs";
import * as net from "node:net";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { caseSeed } from "./_random.ts";
import { THROWING_PATHS } from "./app.js";
import { type Http1Case, http1Case, type Known } from "./http1_cases.ts";
import { parseResponses, type ParseResult } from "./http1_response.ts";
import { type H2Case, h2Case } from "./h2_cases.ts";
import { CANARY, DOT_CANARY } from "../fixtures/static/fixture.ts";

/** What a run does. */
export interface FuzzOptions {
  /** Name of the server under test, for reports and failure files ("deno", "node"). */
  label: string;
  port: number;
  seed: number;
  /** Stop after this many requests… */
  requests: number;
  /** …or after this many seconds, whichever comes first. */
  seconds: number;
  /** Connections at a time (HTTP/1.1; HTTP/2 cases run one at a time). */
  concurrency?: number;
  /** A python3 with hpack and hyperframe; null leaves HTTP/2 out. */
  python: string | null;
  /** Whether the server process still runs. */
  alive(): boolean;
  /** Where failure files go; none are written when absent. */
  failureDir?: string;
}

/** One oracle violation, with what replays it. */
export interface Finding {
  protocol: "http/1.1" | "h2";
  index: number;
  caseSeed: number;
  reasons: string[];
  notes: string[];
  /** The exact bytes sent, base64. */
  bytes: string;
  file?: string;
}

/** The outcome of a run. */
export interface FuzzReport {
  label: string;
  seed: number;
  cases: number;
  requests: number;
  /** Responses (or their absence) by class: 1xx-5xx, "closed", "reset", "timeout". */
  byClass: Record<string, number>;
  worstMs: number;
  worstCase: string;
  seconds: number;
  h2: boolean;
  findings: Finding[];
  /** Matches of KNOWN_ISSUES, by id. */
  known: Record<string, number>;
  /** Whether the server answered the sanity requests after the run and is still alive. */
  healthy: boolean;
  healthDetail: string;
}

const CASE_TIMEOUT_MS = 2_000;
const CANARIES = [CANARY, DOT_CANARY];

/** Runs one HTTP/1.1 case and returns what came back. */
export function sendHttp1(
  port: number,
  c: Pick<Http1Case, "chunks" | "requests">,
  timeoutMs = CASE_TIMEOUT_MS,
): Promise<
  {
    parse: ParseResult;
    closed: boolean;
    /** Whether the connection ended with a reset (ECONNRESET) rather than the server's FIN. */
    reset: boolean;
    timedOut: boolean;
    ms: number;
    bytes: Uint8Array;
  }
> {
  return new Promise((resolve) => {
    const started = performance.now();
    const received: Buffer[] = [];
    let closed = false;
    let reset = false;
    let settled = false;
    let answered = 0; // responses complete so far, and when the last one completed
    let answeredMs = 0;
    const socket = net.connect(port, "127.0.0.1");
    const finish = (timedOut: boolean) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      const bytes = new Uint8Array(Buffer.concat(received));
      socket.destroy();
      const parse = parseResponses(bytes, c.requests, closed);
      if (parse.responses.length > answered) answeredMs = performance.now() - started;
      resolve({ parse, closed, reset, timedOut, ms: answeredMs, bytes });
    };
    const timer = setTimeout(() => finish(true), timeoutMs);
    socket.on("connect", async () => {
      for (const [i, chunk] of c.chunks.entries()) {
        if (i > 0) await new Promise((r) => setTimeout(r, 3));
        if (socket.destroyed) return;
        socket.write(chunk);
      }
    });
    socket.on("data", (chunk: Buffer) => {
      received.push(chunk);
      const parse = parseResponses(new Uint8Array(Buffer.concat(received)), c.requests, false);
      if (parse.responses.length > answered) {
        answered = parse.responses.length;
        answeredMs = performance.now() - started;
      }
      if (
        parse.error || parse.upgraded ||
        (!parse.partial && parse.responses.length === c.requests.length)
      ) {
        finish(false);
      }
    });
    socket.on("error", (error: Error & { code?: string }) => {
      closed = true;
      reset = error.code === "ECONNRESET";
      finish(false);
    });
    socket.on("end", () => {
      closed = true;
      finish(false);
    });
    socket.on("close", () => {
      closed = true;
      finish(false);
    });
  });
}

/**
 * Findings in lib/ that are reported and not yet fixed, by id: a case that matches one counts
 * here instead of failing the run. Each must go once lib/ is fixed.
 */
export const KNOWN_ISSUES: Record<string, string> = {
  "reset-unread": "on Deno, a pipelined request whose head is over Deno.serve's 64 KiB limit " +
    "gets 400 and a close with its bytes unread, so the kernel resets the connection; the " +
    "reset discards what the client had not read yet of the responses before it (no lingering " +
    "close in Deno.serve; the Node adapter lingers)",
  "websocket-http10": "on Deno, a WebSocket handshake sent as HTTP/1.0 is upgraded (101); " +
    "RFC 9110 §7.8 says to ignore Upgrade in an HTTP/1.0 request and RFC 6455 §4.1 requires " +
    "HTTP/1.1, but Deno's Request does not show the version, so Weft cannot check it there " +
    "(the Node adapter ignores the Upgrade: tests/node/node_adapter.test.ts)",
};

/** Counts of known-issue matches in this process, by id. */
export const knownCounts: Record<string, number> = {};

// The heads of the requests in `text`, in order: each head up to its blank line (CRLF or bare
// LF, RFC 9112 §2.2), its body skipped by Content-Length or chunked framing.
function requestHeads(text: string): string[] {
  const heads: string[] = [];
  let pos = 0;
  while (pos < text.length && heads.length < 64) {
    const blank = /\r?\n\r?\n/g;
    blank.lastIndex = pos;
    const end = blank.exec(text);
    if (end === null) break;
    const head = text.slice(pos, end.index);
    heads.push(head);
    pos = end.index + end[0].length;
    const fields = head.split(/\r?\n/).slice(1);
    const value = (name: string) =>
      fields.find((f) => f.toLowerCase().startsWith(name + ":"))?.slice(name.length + 1).trim();
    if (/chunked/i.test(value("transfer-encoding") ?? "")) {
      for (;;) {
        const line = text.indexOf("\n", pos);
        if (line === -1) return heads;
        const size = parseInt(text.slice(pos, line), 16);
        pos = line + 1;
        if (!(size > 0)) {
          const trailer = text.indexOf("\n", pos);
          pos = trailer === -1 ? text.length : trailer + 1;
          break;
        }
        pos += size + 2;
      }
    } else {
      const length = Number(value("content-length") ?? 0);
      pos += Number.isSafeInteger(length) && length > 0 ? length : 0;
    }
  }
  return heads;
}

// The Sec-WebSocket-Key of request `index` in the bytes sent, when that request is a valid
// RFC 6455 §4.1 handshake (GET, Upgrade: websocket, Connection: upgrade, version 13, a key of
// 16 bytes); undefined otherwise.
function handshakeKey(c: Http1Case, index: number): string | undefined {
  const head = requestHeads(Buffer.concat(c.chunks).toString("latin1"))[index];
  if (head === undefined) return undefined;
  const [line, ...fields] = head.split(/\r?\n/);
  if (!/^GET \S+ HTTP\/1\.1$/.test(line)) return undefined;
  const headers = new Map<string, string[]>();
  for (const field of fields) {
    const colon = field.indexOf(":");
    if (colon <= 0 || !/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(field.slice(0, colon))) {
      return undefined; // a malformed field line: no server should upgrade
    }
    const name = field.slice(0, colon).toLowerCase();
    headers.set(name, [...headers.get(name) ?? [], field.slice(colon + 1).trim()]);
  }
  const one = (name: string) => headers.get(name)?.length === 1 ? headers.get(name)![0] : null;
  const tokens = (name: string) =>
    (headers.get(name) ?? []).join(",").toLowerCase().split(",").map((t) => t.trim());
  const key = one("sec-websocket-key");
  if (
    !tokens("upgrade").includes("websocket") || !tokens("connection").includes("upgrade") ||
    one("sec-websocket-version") !== "13" || key === null ||
    Buffer.from(key, "base64").byteLength !== 16
  ) return undefined;
  return key;
}

function acceptKey(key: string): string {
  return createHash("sha1").update(key + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11").digest("base64");
}

function statusClass(status: number): string {
  return `${Math.floor(status / 100)}xx`;
}

// A response cut short by a reset, in a case where a later request brings more than 64 KiB (over
// Deno.serve's head limit): the server answered that request and closed with bytes unread, and
// the client's kernel dropped what was still unread of the earlier answers. A cut ended by the
// server's FIN, or with no such request after it, is still a finding.
function isResetUnread(c: Http1Case, r: Awaited<ReturnType<typeof sendHttp1>>): boolean {
  if (!r.reset || !/^connection closed (after|inside)/.test(r.parse.error ?? "")) return false;
  const cut = r.parse.responses.length; // the request whose answer was cut
  if (cut >= c.requests.length - 1) return false;
  const text = Buffer.concat(c.chunks).toString("latin1");
  const heads = requestHeads(text);
  const before = heads.slice(0, cut + 1).reduce((n, head) => n + head.length, 0);
  return text.length - before > 65_536;
}

/** Judges an HTTP/1.1 case; returns the reasons it fails and counts its classes. */
export function judgeHttp1(
  c: Http1Case,
  r: Awaited<ReturnType<typeof sendHttp1>>,
  byClass: Record<string, number>,
): string[] {
  const reasons: string[] = [];
  const { parse } = r;
  if (parse.error && isResetUnread(c, r)) {
    knownCounts["reset-unread"] = (knownCounts["reset-unread"] ?? 0) + 1;
  } else if (parse.error) reasons.push(parse.error);
  if (parse.extra > 0 && !parse.upgraded) {
    // A mangled request can hold more requests than the generator meant: their answers must
    // be well-formed too.
    const rest = r.bytes.subarray(r.bytes.length - parse.extra);
    const more = parseResponses(rest, Array(32).fill({ method: "GET", path: "" }), r.closed);
    if (more.error || more.extra > 0 || c.complete) {
      reasons.push(
        `${parse.extra} bytes after the last response${more.error ? `: ${more.error}` : ""}`,
      );
    }
    for (const res of more.responses) {
      if (res.status >= 500) reasons.push(`${res.status} for a request the bytes held`);
    }
  }
  parse.responses.forEach((res, i) => {
    byClass[statusClass(res.status)] = (byClass[statusClass(res.status)] ?? 0) + 1;
    const path = c.requests[i]?.path ?? "";
    if (res.status >= 500 && !THROWING_PATHS.includes(path)) {
      reasons.push(`${res.status} for ${path}`);
    }
    if (res.status === 101) {
      const key = c.requests[i]?.upgradeKey;
      // the request line of the request this response answers (pipelined cases hold several)
      const head = requestHeads(Buffer.concat(c.chunks).toString("latin1"))[i] ?? "";
      const line = head.split(/\r?\n/)[0];
      if (/ HTTP\/1\.0$/.test(line)) {
        knownCounts["websocket-http10"] = (knownCounts["websocket-http10"] ?? 0) + 1;
      } else {
        // A mutation may leave the handshake intact: judge the bytes that were sent.
        const sent = key ?? handshakeKey(c, i);
        const accept = res.headers.find(([n]) => n === "sec-websocket-accept")?.[1];
        if (sent === undefined) reasons.push("101 for a request that is not a valid handshake");
        else if (accept !== acceptKey(sent)) {
          reasons.push(`101 with Sec-WebSocket-Accept ${accept}`);
        }
      }
    }
    const body = Buffer.from(res.body).toString("latin1");
    for (const canary of CANARIES) {
      if (body.includes(canary)) reasons.push(`served ${canary} for ${path}`);
    }
  });
  const missing = c.requests.length - parse.responses.length;
  if (missing > 0 && !parse.upgraded) {
    const why = r.timedOut ? "timeout" : "closed";
    byClass[why] = (byClass[why] ?? 0) + missing;
    if (r.timedOut && c.complete) {
      reasons.push(`no answer within ${CASE_TIMEOUT_MS} ms to a complete request`);
    }
  }
  return reasons;
}

interface H2Result {
  closed: boolean;
  timed_out: boolean;
  goaway: number | null;
  error: string | null;
  connect_error?: string;
  ms: number;
  streams: Record<string, {
    statuses: number[];
    content_length: string | null;
    data: number;
    ended: boolean;
    rst: number | null;
    canary: boolean;
  }>;
}

/** Judges an HTTP/2 case. */
export function judgeH2(c: H2Case, r: H2Result, byClass: Record<string, number>): string[] {
  const reasons: string[] = [];
  if (r.error) reasons.push(`invalid HTTP/2 from the server: ${r.error}`);
  if (r.connect_error) reasons.push(`cannot connect: ${r.connect_error}`);
  for (const [id, req] of Object.entries(c.streams)) {
    const s = r.streams[id];
    const final = s?.statuses.find((status) => status >= 200);
    if (final === undefined) {
      const why = s?.rst != null ? "reset" : r.timed_out ? "timeout" : "closed";
      byClass[why] = (byClass[why] ?? 0) + 1;
      if (c.complete && r.timed_out && r.goaway === null && s?.rst == null) {
        reasons.push(`stream ${id}: no answer within ${CASE_TIMEOUT_MS} ms to a complete request`);
      }
      continue;
    }
    byClass[statusClass(final)] = (byClass[statusClass(final)] ?? 0) + 1;
    for (const status of s.statuses) {
      if (status < 100 || status > 599 || status === 101) {
        reasons.push(`stream ${id}: status ${status}`);
      }
    }
    if (final >= 500 && !THROWING_PATHS.includes(req.path)) {
      reasons.push(`stream ${id}: ${final} for ${req.path}`);
    }
    if (s.canary) reasons.push(`stream ${id}: served a canary for ${req.path}`);
    const bodyless = req.method === "HEAD" || final === 204 || final === 304;
    if (
      s.ended && s.rst === null && s.content_length !== null && !bodyless &&
      Number(s.content_length) !== s.data
    ) {
      reasons.push(`stream ${id}: content-length ${s.content_length} but ${s.data} data bytes`);
    }
  }
  return reasons;
}

/** A python h2_peer.py process that answers one case per line. */
export class H2Peer {
  #child: ChildProcess;
  #waiting: ((line: string) => void)[] = [];
  #timer: ReturnType<typeof setTimeout>;

  constructor(python: string, lifetimeMs: number) {
    const script = new URL("./h2_peer.py", import.meta.url).pathname;
    this.#child = spawn(python, [script], { stdio: ["pipe", "pipe", "inherit"] });
    this.#timer = setTimeout(() => this.#child.kill("SIGKILL"), lifetimeMs);
    createInterface({ input: this.#child.stdout! }).on(
      "line",
      (line) => this.#waiting.shift()?.(line),
    );
    this.#child.once("exit", () => {
      for (const wake of this.#waiting.splice(0)) wake("null");
    });
  }

  /** Sends `bytes` on a new connection and decodes the answer for `streams`. */
  run(
    port: number,
    bytes: Uint8Array,
    streams: number[],
    timeoutMs = CASE_TIMEOUT_MS,
  ): Promise<H2Result | null> {
    return new Promise((resolve) => {
      const giveUp = setTimeout(() => resolve(null), timeoutMs + 5_000);
      this.#waiting.push((line) => {
        clearTimeout(giveUp);
        resolve(JSON.parse(line));
      });
      this.#child.stdin!.write(
        JSON.stringify({
          port,
          bytes: Buffer.from(bytes).toString("hex"),
          streams,
          timeout: timeoutMs / 1000,
          canaries: CANARIES,
        }) + "\n",
      );
    });
  }

  /** Ends the process (SIGTERM, then SIGKILL after a second). */
  async close(): Promise<void> {
    clearTimeout(this.#timer);
    if (this.#child.exitCode !== null || this.#child.signalCode !== null) return;
    const exited = new Promise((r) => this.#child.once("exit", r));
    this.#child.stdin!.end();
    const term = setTimeout(() => this.#child.kill("SIGTERM"), 1_000);
    const kill = setTimeout(() => this.#child.kill("SIGKILL"), 2_000);
    await exited;
    clearTimeout(term);
    clearTimeout(kill);
  }
}

const STATIC_PROBES = ["/static/hello.txt", "/static/big.bin", "/static/app.js", "/static/one.bin"];

/** Learns the validators of a few static files, so that 304 and If-Range paths are reached. */
export async function learn(port: number): Promise<Known> {
  const validators: Known["validators"] = {};
  for (const path of STATIC_PROBES) {
    const r = await sendHttp1(port, {
      chunks: [Buffer.from(`HEAD ${path} HTTP/1.1\r\nHost: x\r\n\r\n`)],
      requests: [{ method: "HEAD", path }],
    });
    const headers = r.parse.responses[0]?.headers ?? [];
    const etag = headers.find(([n]) => n === "etag")?.[1];
    const lastModified = headers.find(([n]) => n === "last-modified")?.[1];
    if (etag && lastModified) validators[path] = { etag, lastModified };
  }
  return { validators };
}

/** The sanity check: GET / over HTTP/1.1 (and h2c when a peer is given) answers 200. */
export async function sanity(port: number, peer: H2Peer | null): Promise<string | null> {
  const r = await sendHttp1(port, {
    chunks: [Buffer.from("GET / HTTP/1.1\r\nHost: x\r\n\r\n")],
    requests: [{ method: "GET", path: "/" }],
  }, 5_000);
  const res = r.parse.responses[0];
  if (res?.status !== 200 || Buffer.from(res.body).toString() !== "weft fuzz") {
    return `GET / over HTTP/1.1: ${
      res ? res.status : r.parse.error ?? (r.timedOut ? "timeout" : "closed")
    }`;
  }
  if (peer !== null) {
    // a fixed, valid request: SETTINGS and GET / on stream 1
    const hello = Buffer.concat([
      Buffer.from("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"),
      Buffer.from([0, 0, 0, 4, 0, 0, 0, 0, 0]),
      Buffer.from([
        0,
        0,
        14,
        1,
        5,
        0,
        0,
        0,
        1,
        0x82,
        0x84,
        0x86,
        0x41,
        0x09,
        ...Buffer.from("127.0.0.1"),
      ]),
    ]);
    const h2 = await peer.run(port, hello, [1], 5_000);
    const status = h2?.streams["1"]?.statuses.at(-1);
    if (status !== 200) return `GET / over h2c: ${status ?? h2?.error ?? "no answer"}`;
  }
  return null;
}

/** Runs the fuzzer against a server on `options.port`. */
export async function fuzz(options: FuzzOptions): Promise<FuzzReport> {
  const started = performance.now();
  const deadline = started + options.seconds * 1000;
  const byClass: Record<string, number> = {};
  const findings: Finding[] = [];
  let requests = 0;
  let cases = 0;
  let worstMs = 0;
  let worstCase = "";
  const known = await learn(options.port);
  const knownBefore = { ...knownCounts };
  const peer = options.python ? new H2Peer(options.python, options.seconds * 1000 + 120_000) : null;
  const more = () => requests < options.requests && performance.now() < deadline && options.alive();

  const record = (finding: Omit<Finding, "file">) => {
    const full: Finding = { ...finding };
    if (options.failureDir) {
      mkdirSync(options.failureDir, { recursive: true });
      full.file = join(
        options.failureDir,
        `${options.label}-${
          finding.protocol === "h2" ? "h2" : "http1"
        }-seed${options.seed}-case${finding.index}.json`,
      );
      writeFileSync(
        full.file,
        JSON.stringify(
          {
            runtime: options.label,
            seed: options.seed,
            ...finding,
            text: Buffer.from(finding.bytes, "base64").toString("latin1").slice(0, 4096),
          },
          null,
          2,
        ),
      );
    }
    findings.push(full);
  };
  const latency = (ms: number, what: string) => {
    if (ms > worstMs) {
      worstMs = ms;
      worstCase = what;
    }
  };

  let h1Next = 0;
  const h1Worker = async () => {
    while (more()) {
      const index = h1Next++;
      const seed = caseSeed(options.seed, 2 * index);
      const c = http1Case(seed, known);
      requests += c.requests.length;
      cases++;
      const r = await sendHttp1(options.port, c);
      // a slow answer to an incomplete request is the server waiting for bytes, not latency
      if (r.parse.responses.length > 0) latency(r.ms, `http/1.1 case ${index}`);
      const reasons = judgeHttp1(c, r, byClass);
      if (reasons.length > 0) {
        record({
          protocol: "http/1.1",
          index,
          caseSeed: seed,
          reasons,
          notes: c.notes,
          bytes: Buffer.concat(c.chunks).toString("base64"),
        });
      }
    }
  };
  let h2Next = 0;
  const h2Worker = async () => {
    while (peer !== null && more()) {
      const index = h2Next++;
      const seed = caseSeed(options.seed, 2 * index + 1);
      const c = h2Case(seed);
      const ids = Object.keys(c.streams).map(Number);
      requests += ids.length;
      cases++;
      const r = await peer.run(options.port, c.bytes, ids);
      if (r === null) {
        record({
          protocol: "h2",
          index,
          caseSeed: seed,
          reasons: ["the h2 peer did not answer"],
          notes: c.notes,
          bytes: Buffer.from(c.bytes).toString("base64"),
        });
        break;
      }
      if (!r.timed_out && Object.values(r.streams).some((s) => s.statuses.length > 0)) {
        latency(r.ms, `h2 case ${index}`);
      }
      const reasons = judgeH2(c, r, byClass);
      if (reasons.length > 0) {
        record({
          protocol: "h2",
          index,
          caseSeed: seed,
          reasons,
          notes: c.notes,
          bytes: Buffer.from(c.bytes).toString("base64"),
        });
      }
    }
  };
  const workers = [h2Worker()];
  for (let i = 0; i < (options.concurrency ?? 8); i++) workers.push(h1Worker());
  await Promise.all(workers);

  let healthDetail = options.alive() ? "" : "the server process died";
  if (healthDetail === "") healthDetail = (await sanity(options.port, peer)) ?? "";
  if (healthDetail === "" && !options.alive()) healthDetail = "the server process died";
  await peer?.close();
  return {
    label: options.label,
    seed: options.seed,
    cases,
    requests,
    byClass,
    worstMs,
    worstCase,
    seconds: (performance.now() - started) / 1000,
    h2: peer !== null,
    findings,
    known: Object.fromEntries(
      Object.entries(knownCounts)
        .map(([k, v]): [string, number] => [k, v - (knownBefore[k] ?? 0)])
        .filter(([, v]) => v > 0),
    ),
    healthy: healthDetail === "",
    healthDetail,
  };
}

/** The report as the lines a run prints. */
export function formatReport(r: FuzzReport): string {
  const classes = Object.entries(r.byClass).sort(([a], [b]) => a.localeCompare(b)).map(([k, v]) =>
    `${k} ${v}`
  ).join(", ");
  const lines = [
    `fuzz ${r.label}: seed ${r.seed}, ${r.requests} requests in ${r.cases} cases (${
      r.seconds.toFixed(1)
    } s${r.h2 ? "" : ", HTTP/2 left out: no python3 with h2"})`,
    `  responses: ${classes}`,
    `  worst latency: ${r.worstMs.toFixed(1)} ms (${r.worstCase})`,
    `  server: ${r.healthy ? "alive, answers the sanity request" : r.healthDetail}`,
    `  findings: ${r.findings.length}`,
  ];
  for (const [id, count] of Object.entries(r.known)) {
    lines.push(`  known issue ${id} (not a failure until fixed): ${count}x: ${KNOWN_ISSUES[id]}`);
  }
  for (const f of r.findings.slice(0, 20)) {
    lines.push(
      `    ${f.protocol} case ${f.index} (case seed ${f.caseSeed}): ${f.reasons.join("; ")} [${
        f.notes.join("; ")
      }]${f.file ? ` -> ${f.file}` : ""}`,
    );
  }
  return lines.join("\n");
}
