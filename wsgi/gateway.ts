/**
 * `toFetchHandler`: runs a WSGI application (PEP 3333) for fetch `Request`s, so it can be
 * served by Weft's `serve()`, `Deno.serve` or any other fetch-style server.
 *
 * @module
 */
import { endedBody } from "../lib/http/_ended_body.ts";
import { HttpError } from "../lib/http/http_error.ts";
import { problem } from "../lib/http/problem.ts";
import { concat, readLimited } from "../lib/http/read_limited.ts";
import { writeStderr } from "../lib/server/deno.ts";
import { type ConnInfo, intendedCut } from "../lib/server/types.ts";
import { FileChunks } from "./_file_chunks.ts";
import { BytesInput, LineErrors } from "./_input.ts";
import type {
  Environ,
  FileWrapper,
  StartResponse,
  WsgiApp,
  WsgiErrors,
  WsgiIterable,
} from "./types.ts";

/** Options of {@linkcode toFetchHandler}. */
export interface GatewayOptions {
  /**
   * The largest request body, in bytes, that is buffered into `wsgi.input`; a larger one is
   * answered with 413 before the application runs (docs/architecture.md, decision 10).
   * @default {1048576}
   */
  maxBodyBytes?: number;
  /**
   * The `wsgi.errors` stream, which also receives the errors the gateway catches.
   * @default {a stream that writes lines to standard error}
   */
  errors?: WsgiErrors;
  /**
   * Whether to offer `wsgi.file_wrapper`.
   * @default {true}
   */
  fileWrapper?: boolean;
}

/**
 * A fetch handler running a WSGI application; the optional second argument (the connection
 * info that `serve()` and `Deno.serve` pass) supplies `REMOTE_ADDR` and `REMOTE_PORT`.
 */
export type WsgiFetchHandler = (
  request: Request,
  info?: { remoteAddr?: { hostname: string; port: number } },
) => Promise<Response>;

const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;
const EMPTY_BYTES = new Uint8Array(0);
const STATUS = /^([1-5]\d\d) ([\t\x20-\x7e\x80-\xff]*)$/;
const NULL_BODY_STATUS = new Set([101, 103, 204, 205, 304]);
// RFC 9110 §7.6.1: connection-specific fields belong to the server, never to the application.
const HOP_BY_HOP = new Set([
  "connection",
  "keep-alive",
  "proxy-authenticate",
  "proxy-authorization",
  "proxy-connection",
  "te",
  "trailer",
  "transfer-encoding",
  "upgrade",
]);
const fileWrapper: FileWrapper = (file, blockSize) => new FileChunks(file, blockSize);

/**
 * Wraps a WSGI application as a fetch handler. For each request it builds the environ (`PATH_INFO`
 * percent-decoded with bytes as Latin-1 code units, `HTTP_*` headers; header names containing `_`
 * are dropped so they cannot impersonate `-` ones; `HTTP_HOST` is the URL's authority when there is
 * no Host header, as over HTTP/2), buffers the body into `wsgi.input` up to `maxBodyBytes` (413
 * beyond, 400 for a body cut short), follows PEP 3333's `start_response` rules (a second call needs
 * an `excInfo`, which `null` is not; after the headers went out `excInfo` is rethrown), sends
 * `write()` output before the iterable's chunks, streams the iterable, and calls its `close()`
 * exactly once — also when the client goes away or the application fails. The headers go out with
 * the first non-empty chunk; an error before that is a 500 problem response without the stack
 * (which goes to `wsgi.errors`), an error after it aborts the body. A declared `Content-Length` is
 * kept to: bytes past it are cut and reported on `wsgi.errors`, and a body that ends short is
 * reported and fails (a 500, or an aborted body once the headers went out). Hop-by-hop headers from
 * the application are dropped. A HEAD answer has the `Content-Length` its GET would have, or none.
 * `SERVER_PROTOCOL` is `HTTP/1.1`, as fetch does not expose the version.
 *
 * @param app The WSGI application.
 * @param options Body limit, error stream and file wrapper.
 * @returns A fetch handler.
 * @throws {RangeError} When `maxBodyBytes` is not a non-negative integer.
 *
 * @example
 * ```ts
 * import { toFetchHandler, type WsgiApp } from "./mod.ts";
 * import assert from "node:assert/strict";
 *
 * const hello: WsgiApp = (environ, startResponse) => {
 *   startResponse("200 OK", [["Content-Type", "text/plain"]]);
 *   // PEP 3333: PATH_INFO carries the URL's bytes as Latin-1 code units
 *   const bytes = Uint8Array.from(environ.PATH_INFO, (c) => c.charCodeAt(0));
 *   return [new TextEncoder().encode(`Hello from ${new TextDecoder().decode(bytes)}`)];
 * };
 * const handler = toFetchHandler(hello);
 * const res = await handler(new Request("http://localhost/caf%C3%A9"));
 * assert.equal(res.status, 200);
 * assert.equal(await res.text(), "Hello from /café");
 * ```
 */
export function toFetchHandler(app: WsgiApp, options?: GatewayOptions): WsgiFetchHandler;
export function toFetchHandler(app: WsgiApp, options: GatewayOptions = {}): WsgiFetchHandler {
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  // NaN (a setting read from a missing variable) would compare false with every length: no limit
  if (!Number.isSafeInteger(maxBodyBytes) || maxBodyBytes < 0) {
    throw new RangeError(
      `Cannot create the WSGI handler: maxBodyBytes ${maxBodyBytes} is not a non-negative integer`,
    );
  }
  const errors = options.errors ?? new LineErrors((line) => writeStderr(line));
  const wrapper = options.fileWrapper === false ? undefined : fileWrapper;

  return async function wsgiHandler(request: Request, info?: ConnInfo): Promise<Response> {
    // 1. buffer the body within the limit
    let body: Uint8Array = EMPTY_BYTES;
    if (request.body !== null) {
      let read: Uint8Array | null;
      try {
        read = await readBody(request, maxBodyBytes);
      } catch (error) {
        // a client that left mid-body or sent a malformed one: its fault, as for ctx.body(),
        // not a failure of the server (a limit enforced by the stream itself keeps its answer)
        if (error instanceof HttpError) return error.toResponse();
        return problem({ status: 400, detail: "The request body could not be read" });
      }
      if (read === null) {
        return problem({
          status: 413,
          detail: `The request body exceeds the limit of ${maxBodyBytes} bytes`,
        });
      }
      body = read;
    }
    // 2. the environ, then 3. the application
    const environ = buildEnviron(request, body, info, errors);
    if (wrapper !== undefined) environ["wsgi.file_wrapper"] = wrapper;
    return run(app, environ, request.method === "HEAD");
  };
}

async function readBody(request: Request, limit: number): Promise<Uint8Array | null> {
  const declared = request.headers.get("content-length");
  if (declared !== null && Number(declared) > limit) {
    await request.body?.cancel().catch(() => {});
    return null;
  }
  return await readLimited(request.body, limit);
}

function buildEnviron(
  request: Request,
  body: Uint8Array,
  info: ConnInfo | undefined,
  errors: WsgiErrors,
): Environ {
  // Slice the URL instead of constructing a URL object (docs/architecture.md, "Performance").
  // It is the target as the client sent it when that was in absolute form, unnormalized: the
  // scheme in any case ("HTTP://h/"), and an authority ended by "?" or "#" rather than "/"
  // ("http://h?x=/admin" has the path "/", not "/admin"; RFC 3986 §3.2), perhaps with userinfo.
  const url = request.url;
  const schemeEnd = url.indexOf("://");
  const scheme = url.slice(0, schemeEnd).toLowerCase();
  const authority = schemeEnd + 3;
  let pathStart = authority;
  for (; pathStart < url.length; pathStart++) {
    const c = url.charCodeAt(pathStart);
    if (c === 0x2f /* / */ || c === 0x3f /* ? */ || c === 0x23 /* # */) break;
  }
  const hash = url.indexOf("#", pathStart);
  const end = hash === -1 ? url.length : hash;
  const query = url.indexOf("?", pathStart);
  const pathEnd = query === -1 || query > end ? end : query;
  const at = url.lastIndexOf("@", pathStart - 1);
  const host = url.slice(at < authority ? authority : at + 1, pathStart);
  const portColon = host.lastIndexOf(":");
  const hasPort = portColon !== -1 && portColon > host.lastIndexOf("]");

  const environ: Environ = {
    REQUEST_METHOD: request.method,
    SCRIPT_NAME: "",
    PATH_INFO: latin1(url.slice(pathStart, pathEnd), true) || "/",
    QUERY_STRING: query === -1 || query > end ? "" : latin1(url.slice(query + 1, end), false),
    SERVER_NAME: hasPort ? host.slice(0, portColon) : host,
    SERVER_PORT: hasPort ? host.slice(portColon + 1) : scheme === "https" ? "443" : "80",
    SERVER_PROTOCOL: "HTTP/1.1",
    "wsgi.version": [1, 0],
    "wsgi.url_scheme": scheme,
    "wsgi.input": new BytesInput(body),
    "wsgi.errors": errors,
    "wsgi.multithread": false,
    "wsgi.multiprocess": false,
    "wsgi.run_once": false,
  };
  if (info?.remoteAddr !== undefined) {
    environ.REMOTE_ADDR = info.remoteAddr.hostname;
    environ.REMOTE_PORT = String(info.remoteAddr.port);
  }
  for (const [name, value] of request.headers) {
    if (name === "content-type") environ.CONTENT_TYPE = value;
    else if (name === "content-length") environ.CONTENT_LENGTH = value;
    else if (!name.includes("_")) {
      environ[`HTTP_${name.toUpperCase().replaceAll("-", "_")}`] = value;
    }
  }
  // HTTP/2 carries the authority as :authority, not Host: the environ describes an HTTP/1.1
  // request, which always has one (RFC 9113 §8.3.1 asks the same of a proxy to HTTP/1.1)
  if (environ.HTTP_HOST === undefined && host !== "") environ.HTTP_HOST = host;
  if (request.body !== null) environ.CONTENT_LENGTH = String(body.length);
  return environ;
}

const encoder = new TextEncoder();

/**
 * A part of the URL as a native string: its bytes, each one Latin-1 code unit, percent-decoded
 * once when `decode` (the path, not the query). Deno hands over a target sent with raw UTF-8
 * bytes as the characters they encode, which are turned back into those bytes.
 */
function latin1(raw: string, decode: boolean): string {
  if (!(decode && raw.includes("%")) && !/[\u0080-\uffff]/.test(raw)) return raw;
  const bytes = encoder.encode(raw);
  let out = "";
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i];
    if (decode && b === 0x25 && i + 2 < bytes.length) {
      const hi = hexValue(bytes[i + 1]), lo = hexValue(bytes[i + 2]);
      if (hi !== -1 && lo !== -1) {
        out += String.fromCharCode(hi * 16 + lo);
        i += 2;
        continue;
      }
    }
    out += String.fromCharCode(b);
  }
  return out;
}

function hexValue(c: number): number {
  if (c >= 0x30 && c <= 0x39) return c - 0x30;
  if (c >= 0x41 && c <= 0x46) return c - 0x37;
  if (c >= 0x61 && c <= 0x66) return c - 0x57;
  return -1;
}

function logError(environ: Environ, error: unknown): void {
  const errors = environ["wsgi.errors"];
  const text = error instanceof Error ? error.stack ?? String(error) : String(error);
  try {
    errors.write(`WSGI application error: ${text}\n`);
    errors.flush();
  } catch {
    // an error stream that fails must not turn into a second failure
  }
}

function lengthMismatch(declared: number, produced: string): string {
  return `The application declared Content-Length ${declared} and produced ${produced}`;
}

/**
 * The error that fails a body whose headers went out, once it is on `wsgi.errors`: marked so
 * that Deno.serve, which reports every failed body, does not report it again as a failure of
 * the server (the Node adapter reports none).
 */
function reported(error: unknown): Error {
  return intendedCut(
    new Error(error instanceof Error ? error.message : String(error), { cause: error }),
  );
}

function internalError(): Response {
  return problem({ status: 500 });
}

function run(app: WsgiApp, environ: Environ, head: boolean): Response {
  let status: string | null = null;
  let headers: [string, string][] = [];
  let sent = false;
  let finished = false;
  const queue: Uint8Array[] = [];

  const write = (chunk: Uint8Array): void => {
    if (status === null) throw new Error("Cannot write: startResponse has not been called");
    if (!(chunk instanceof Uint8Array)) {
      throw new TypeError("Cannot write: chunk is not a Uint8Array");
    }
    if (finished) throw new Error("Cannot write: the response has finished");
    if (chunk.length > 0) {
      sent = true; // PEP 3333: write() sends the headers
      queue.push(chunk.slice()); // sent, as far as the app can tell: it may reuse its buffer
    }
  };
  const startResponse: StartResponse = (newStatus, newHeaders, excInfo?) => {
    // null is how a port spells Python's exc_info=None: no error is being handled, so a second
    // call with it replaces nothing
    if (excInfo != null) {
      if (sent) throw excInfo; // PEP 3333: too late to change the status; abort
    } else if (status !== null) {
      throw new Error(
        "Cannot start the response: startResponse was already called without excInfo",
      );
    }
    if (typeof newStatus !== "string" || !STATUS.test(newStatus)) {
      throw new TypeError(`Cannot start the response: invalid status ${JSON.stringify(newStatus)}`);
    }
    if (!Array.isArray(newHeaders)) {
      throw new TypeError("Cannot start the response: headers must be an array of pairs");
    }
    status = newStatus;
    headers = newHeaders;
    return write;
  };

  // 1. call the application
  let result: WsgiIterable;
  try {
    result = app(environ, startResponse);
  } catch (error) {
    logError(environ, error);
    return internalError();
  }
  let closed = false;
  let iterator: Iterator<Uint8Array> | undefined;
  const close = (): void => {
    if (closed) return;
    closed = true;
    finished = true;
    try {
      // a generator left before its end (HEAD, a bodiless status, a bad chunk, a client that
      // went away) runs its finally blocks; JavaScript has no close() on it
      iterator?.return?.();
    } catch (error) {
      logError(environ, error);
    }
    try {
      if (typeof result?.close === "function") result.close();
    } catch (error) {
      logError(environ, error);
    }
  };
  const next = (): Uint8Array | null => {
    const step = iterator!.next();
    if (step.done) return null;
    if (!(step.value instanceof Uint8Array)) {
      throw new TypeError(
        "Cannot send the body: the application yielded a chunk that is not a Uint8Array",
      );
    }
    return step.value;
  };

  // 2. run until the headers can go out: the first non-empty chunk or the end of the body
  let done = false;
  let response: Response;
  try {
    iterator = result[Symbol.iterator]();
    // A list is already in memory: one fixed-length body is cheaper to send than a stream.
    const eager = Array.isArray(result);
    // HEAD needs no chunk once the status is known, except a list's: a GET would send its length
    if (eager || !(head && status !== null)) {
      while (eager || queue.length === 0) {
        const chunk = next();
        if (chunk === null) {
          done = true;
          break;
        }
        if (chunk.length > 0) queue.push(chunk);
      }
    }
    if (status === null) throw new Error("The application returned without calling startResponse");
    const match = STATUS.exec(status)!;
    const code = Number(match[1]);
    const responseHeaders = new Headers();
    for (const [name, value] of headers) {
      if (!HOP_BY_HOP.has(String(name).toLowerCase())) responseHeaders.append(name, value);
    }
    const init = { status: code, statusText: match[2], headers: responseHeaders };
    // PEP 3333: no more bytes than a declared Content-Length, and fewer are an error. The
    // field given twice (joined as "5, 5") is one length when every value is the same (RFC 9110
    // §8.6); anything else is a length no server can frame by: the application's error.
    const value = responseHeaders.get("content-length");
    let declared: number | null = null;
    if (value !== null) {
      const values = new Set(value.split(",").map((part) => part.trim()));
      const [only] = values;
      if (values.size !== 1 || !/^\d+$/.test(only)) {
        throw new Error(`The application sent an invalid Content-Length: ${value}`);
      }
      declared = Number(only);
      responseHeaders.set("content-length", String(declared));
    }
    if (NULL_BODY_STATUS.has(code)) {
      // RFC 9110 §8.6: never on a 204, though a framework may set one of 0 on every answer
      if (code === 204) responseHeaders.delete("content-length");
      response = new Response(null, init);
      done = true;
    } else if (head) {
      // RFC 9110 §8.6: the Content-Length a GET would have, or none. Deno.serve writes
      // "Content-Length: 0" for a HEAD answer without a body; a body that ends at once has none.
      if (declared === null && done) {
        responseHeaders.set("content-length", String(queue.reduce((n, c) => n + c.length, 0)));
      }
      response = new Response(declared === null && !done ? endedBody() : null, init);
      done = true;
    } else if (done) {
      let bytes = queue.length === 0 ? null : concat(queue);
      // a Response made from the bytes would otherwise get their length instead of the app's
      const length = bytes?.length ?? 0;
      if (declared !== null && declared !== length) {
        const mismatch = lengthMismatch(declared, `${length} bytes`);
        if (declared > length) throw new Error(mismatch);
        logError(environ, new Error(`${mismatch}: the rest is not sent`));
        bytes = bytes!.subarray(0, declared);
      }
      response = new Response(bytes as Uint8Array<ArrayBuffer> | null, init);
    } else {
      response = new Response(stream(declared), init);
    }
    sent = true;
  } catch (error) {
    close();
    logError(environ, error);
    return internalError();
  }
  if (done) close();
  return response;

  // The body after the headers went out, held to the declared length as it goes (PEP 3333).
  // Left to the server under the Response, an excess would be cut without a word on wsgi.errors
  // or, on Deno over HTTP/2, reset the stream before the client had a response at all; a body
  // that ends short must fail, so that the server cuts the connection or resets the stream
  // instead of ending it as if it were whole.
  function stream(declared: number | null): ReadableStream<Uint8Array> {
    let sentBytes = 0;
    return new ReadableStream<Uint8Array>({
      pull(controller) {
        try {
          while (queue.length === 0) {
            const chunk = next();
            if (chunk === null) {
              close();
              if (declared !== null && sentBytes < declared) {
                // an error, not an end: the server cuts the connection or resets the stream
                const error = new Error(lengthMismatch(declared, `${sentBytes} bytes`));
                logError(environ, error);
                controller.error(reported(error));
                return;
              }
              controller.close();
              return;
            }
            if (chunk.length > 0) queue.push(chunk);
          }
          const chunk = queue.shift()!;
          if (declared !== null && sentBytes + chunk.length > declared) {
            // the chunk that crosses the length is cut; nothing after it is pulled
            const produced = `at least ${sentBytes + chunk.length} bytes`;
            logError(
              environ,
              new Error(`${lengthMismatch(declared, produced)}: the rest is not sent`),
            );
            if (sentBytes < declared) controller.enqueue(chunk.subarray(0, declared - sentBytes));
            close();
            controller.close();
            return;
          }
          sentBytes += chunk.length;
          controller.enqueue(chunk);
        } catch (error) {
          close();
          logError(environ, error);
          controller.error(reported(error));
        }
      },
      cancel() {
        close();
      },
    });
  }
}
