/**
 * `logger()`: one line per request with method, path, status and duration.
 *
 * @module
 */
import { escapeLog } from "../http/_log_escape.ts";
import { env, stderrIsTerminal, writeStderr } from "../server/deno.ts";
import type { Middleware } from "../types.ts";
import { REQUEST_ID_KEY } from "../security/_keys.ts";

/** What the logger records about a request; never bodies, query strings or headers. */
export interface LogRecord {
  /** When the request arrived, as an ISO 8601 UTC timestamp. */
  time: string;
  /** The request method, with control characters escaped as `\xHH` or `\uHHHH`. */
  method: string;
  /**
   * The request path as sent, without the query string, with control characters (C0, DEL, C1,
   * U+2028, U+2029) and the bidirectional embeddings, overrides and isolates (U+202A–U+202E,
   * U+2066–U+2069) escaped as `\xHH` or `\uHHHH`, so that no request can forge a log line or
   * reorder how one displays.
   */
  path: string;
  /** The response status (500 when the chain threw, 101 for a WebSocket upgrade). */
  status: number;
  /** Milliseconds until the response (its headers) was ready, to 0.01 ms. */
  ms: number;
  /**
   * The request id set by `requestId()` (which must come after `logger()` in the chain),
   * escaped like `path`; absent when there is none.
   */
  requestId?: string;
}

/** Options of {@linkcode logger}. */
export interface LoggerOptions {
  /**
   * `"text"`: a human-readable line (`2025-01-01T12:00:00.000Z GET /users/7 200 1.25ms`).
   * `"json"`: one JSON object per line with the keys `time`, `method`, `path`, `status`, `ms`,
   * and `requestId` when `requestId()` gave the request one (the text line then ends with
   * `id=…`).
   *
   * @default {"text"}
   */
  format?: "text" | "json";
  /**
   * Receives each formatted line (without a newline, never coloured) and its record. When
   * absent, lines go to standard error, coloured only when it is a terminal and `NO_COLOR`
   * is not set. A sink that throws, or returns a promise that rejects (an `async` sink), is
   * ignored: logging never fails a request. Its promise is not waited for.
   *
   * @default {undefined}
   */
  sink?: (line: string, record: LogRecord) => void;
}

const RESET = "\x1b[0m";
const DIM = "\x1b[2m";
const BOLD = "\x1b[1m";

function statusColor(status: number): string {
  if (status >= 500) return "\x1b[31m"; // red
  if (status >= 400) return "\x1b[33m"; // yellow
  if (status >= 300) return "\x1b[36m"; // cyan
  return "\x1b[32m"; // green
}

/** Formats a record as the logger's text line, with ANSI colours when `color` is true. */
function formatText(record: LogRecord, color: boolean): string {
  const { time, method, path, status, ms, requestId } = record;
  const id = requestId === undefined ? "" : ` id=${requestId}`;
  if (!color) return `${time} ${method} ${path} ${status} ${ms}ms${id}`;
  return `${DIM}${time}${RESET} ${BOLD}${method}${RESET} ${path} ` +
    `${statusColor(status)}${status}${RESET} ${DIM}${ms}ms${id}${RESET}`;
}

// Colour only on a terminal, and not when NO_COLOR is set (https://no-color.org).
function useColor(): boolean {
  try {
    return env("NO_COLOR") === undefined && stderrIsTerminal();
  } catch {
    return false;
  }
}

/**
 * Logs every request that passes through it, once its response is ready: the method, the path
 * without the query string, the status and the duration. Responses from later middleware that
 * answered early, errors (logged with the 500 they became) and WebSocket upgrades (101) are
 * logged too. Bodies, query strings and headers (so `Authorization` and cookies) are never
 * logged. Put it first in the chain so that it times everything.
 *
 * @param options The line format and where lines go.
 * @returns The middleware.
 *
 * @example JSON lines to a custom sink
 * ```ts
 * import { chain, get, router } from "../../mod.ts";
 * import { logger } from "./logger.ts";
 * import assert from "node:assert/strict";
 *
 * const lines: string[] = [];
 * const app = chain(
 *   [logger({ format: "json", sink: (line) => lines.push(line) })],
 *   router([get("/users/:id", (ctx) => ctx.json({ id: ctx.params.id }))]),
 * );
 * await app.fetch(new Request("http://localhost/users/7?token=secret"));
 * const record = JSON.parse(lines[0]);
 * assert.deepEqual(Object.keys(record), ["time", "method", "path", "status", "ms"]);
 * assert.equal(record.path, "/users/7");
 * assert.equal(record.status, 200);
 * ```
 */
export function logger(options?: LoggerOptions): Middleware;
export function logger(options: LoggerOptions = {}): Middleware {
  const json = options.format === "json";
  if (options.format !== undefined && !json && options.format !== "text") {
    throw new TypeError(
      `Cannot create logger(): format "${options.format}" is not "text" or "json"`,
    );
  }
  const sink = options.sink;
  if (sink !== undefined && typeof sink !== "function") {
    throw new TypeError("Cannot create logger(): sink must be a function");
  }
  const color = sink === undefined && !json && useColor();

  function emit(record: LogRecord): void {
    try {
      if (sink !== undefined) {
        const pending: unknown = sink(
          json ? JSON.stringify(record) : formatText(record, false),
          record,
        );
        // An async sink's failure must not go unhandled: it would end the process.
        if (pending instanceof Promise) pending.catch(() => {});
      } else {
        writeStderr((json ? JSON.stringify(record) : formatText(record, color)) + "\n");
      }
    } catch {
      // Logging must never fail the request it describes.
    }
  }

  return async function logger(ctx, next) {
    // Read before next(): later middleware may replace ctx.req.
    const start = performance.now();
    const time = new Date().toISOString();
    // Escaped here, so that sinks which format the record themselves get safe text too.
    const method = escapeLog(ctx.req.method);
    const path = escapeLog(ctx.path);
    let status = 500;
    try {
      const res = await next();
      status = res.status;
      return res;
    } finally {
      const record: LogRecord = {
        time,
        method,
        path,
        status,
        ms: Math.round((performance.now() - start) * 100) / 100,
      };
      const id = (ctx.var as { [REQUEST_ID_KEY]?: unknown })[REQUEST_ID_KEY];
      if (typeof id === "string") record.requestId = escapeLog(id);
      emit(record);
    }
  };
}
