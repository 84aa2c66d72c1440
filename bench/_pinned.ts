// The pinned runs of the static-file and compression benchmarks: the server on core 0, wrk on
// core 1 (taskset), and nginx, their anchor, as one process from a config in a temp dir.
import { stop, track, waitForPort } from "./_proc.ts";

/** Starts `command` on core 0, tracked for stopAll(), once it listens on `port`. */
export async function startPinned(command: string[], port: number): Promise<Deno.ChildProcess> {
  const child = track(
    new Deno.Command("taskset", {
      args: ["-c", "0", ...command],
      stdout: "null",
      stderr: "inherit",
    }).spawn(),
  );
  try {
    await waitForPort(port, child);
  } catch (error) {
    await stop(child);
    throw error;
  }
  return child;
}

/** What one wrk run measured. */
export interface WrkResult {
  rps: number;
  /** Responses that were not 2xx or 3xx. */
  bad: number;
  /** wrk's "Socket errors" line, or "". */
  errors: string;
  /** wrk's whole report. */
  text: string;
}

/**
 * Runs wrk on core 1 (1 thread, 64 connections) against `url` for `seconds`, with extra request
 * headers, bounded by `timeout`; refuses to start a run that would end past `deadline`.
 */
export async function wrkPinned(
  url: string,
  seconds: number,
  headers: readonly string[],
  deadline: number,
): Promise<WrkResult> {
  if (Date.now() + seconds * 1000 > deadline) throw new Error("the benchmark ran out of time");
  const out = await new Deno.Command("timeout", {
    args: [
      String(seconds + 30),
      ...["taskset", "-c", "1", "wrk", "-t", "1", "-c", "64", "-d", `${seconds}s`],
      ...headers.flatMap((h) => ["-H", h]),
      url,
    ],
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = new TextDecoder().decode(out.stdout);
  const match = text.match(/Requests\/sec:\s+([\d.]+)/);
  if (!match) {
    throw new Error(`cannot read wrk's output:\n${text}\n${new TextDecoder().decode(out.stderr)}`);
  }
  return {
    rps: Number(match[1]),
    bad: Number(text.match(/Non-2xx or 3xx responses:\s+(\d+)/)?.[1] ?? 0),
    errors: text.match(/Socket errors:.*/)?.[0] ?? "",
    text,
  };
}

/**
 * Writes an nginx config to `dir` (one process, master_process off, so that its PID is the one
 * doing the work; no access log; temp files in `dir`) serving `root` on `port`, with `http`
 * and `server` directives of the benchmark's own, and returns the command that runs it.
 */
export async function nginx(
  { dir, root, port, http, server }: {
    dir: string;
    root: string;
    port: number;
    http: string[];
    server: string[];
  },
): Promise<string[]> {
  await Deno.mkdir(`${dir}/tmp`, { recursive: true });
  const temp = ["client_body", "proxy", "fastcgi", "uwsgi", "scgi"]
    .map((kind) => `  ${kind}_temp_path ${dir}/tmp;`);
  await Deno.writeTextFile(
    `${dir}/nginx.conf`,
    [
      "worker_processes 1;",
      "master_process off;",
      "daemon off;",
      `pid ${dir}/nginx.pid;`,
      `error_log ${dir}/nginx-error.log;`,
      "events { worker_connections 1024; }",
      "http {",
      "  access_log off;",
      "  keepalive_requests 1000000;",
      ...http.map((line) => `  ${line}`),
      ...temp,
      "  server {",
      `    listen 127.0.0.1:${port};`,
      `    root ${root};`,
      ...server.map((line) => `    ${line}`),
      "  }",
      "}",
      "",
    ].join("\n"),
  );
  return ["nginx", "-c", `${dir}/nginx.conf`, "-p", dir];
}
