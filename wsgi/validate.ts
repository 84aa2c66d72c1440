/**
 * `validator`: a lint wrapper that checks that an application and its server both obey PEP 3333,
 * in the spirit of Python's `wsgiref.validate`.
 *
 * @module
 */
import type {
  Environ,
  StartResponse,
  WriteFunction,
  WsgiApp,
  WsgiErrors,
  WsgiInput,
  WsgiIterable,
} from "./types.ts";

/** A violation of PEP 3333 found by {@linkcode validator}, by the application or the server. */
export class WsgiValidationError extends Error {
  /**
   * Creates the error for one violation.
   *
   * @param message What was violated.
   */
  constructor(message: string) {
    super(message);
    this.name = "WsgiValidationError";
  }
}

/** A validated WSGI application that can also report bodies the server never closed. */
export interface ValidatedWsgiApp {
  /** Runs the wrapped application with checks on both sides. */
  (environ: Environ, startResponse: StartResponse): WsgiIterable;
  /** Throws a {@linkcode WsgiValidationError} if a returned body has not been closed yet. */
  assertClosed(): void;
}

const REQUIRED_KEYS = [
  "REQUEST_METHOD",
  "SERVER_NAME",
  "SERVER_PORT",
  "wsgi.version",
  "wsgi.input",
  "wsgi.errors",
  "wsgi.multithread",
  "wsgi.multiprocess",
  "wsgi.run_once",
] as const;
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const NOT_LATIN1 = /[\u0100-\uffff]/;
const HOP_BY_HOP = new Set([
  "connection",
  "keep-alive",
  "proxy-authenticate",
  "proxy-authorization",
  "te",
  "trailers",
  "transfer-encoding",
  "upgrade",
]);

function hasControl(value: string): boolean {
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if (c < 0x20 || c === 0x7f) return true;
  }
  return false;
}

function check(condition: unknown, message: string): asserts condition {
  if (!condition) throw new WsgiValidationError(message);
}

/**
 * Wraps an application so that every call checks PEP 3333 on both sides, throwing a
 * {@linkcode WsgiValidationError} at the first violation:
 * - the server's environ: the required keys, native (Latin-1) strings for CGI variables, no
 *   `HTTP_CONTENT_TYPE`/`HTTP_CONTENT_LENGTH`, `SCRIPT_NAME`/`PATH_INFO` shape, `wsgi.version`,
 *   `wsgi.url_scheme`, and `wsgi.input`/`wsgi.errors` with their methods (calls are checked);
 * - the application's `startResponse` calls: status `"NNN reason"`, headers as an array of
 *   `[name, value]` strings with token names and Latin-1 values without control characters, no
 *   hop-by-hop headers, `Content-Type` present except on 204 and 304 (where it is forbidden), and
 *   no second call without `excInfo` (`null` is none);
 * - the body: an iterable (not a string or a lone `Uint8Array`) of `Uint8Array` chunks,
 *   `startResponse` called before the first chunk, no chunks for 204/304, exactly
 *   `Content-Length` bytes when it is set (except for HEAD), iterated once and not after
 *   `close()`;
 * - the server: it must call `close()`; {@linkcode ValidatedWsgiApp.assertClosed} reports bodies
 *   still open, and a body collected unclosed is reported on `wsgi.errors`.
 *
 * @param app The application to check.
 * @returns The checked application.
 *
 * @example A missing Content-Type is reported
 * ```ts
 * import { validator, WsgiValidationError, type Environ, type WsgiApp } from "./mod.ts";
 * import assert from "node:assert/strict";
 *
 * const bad: WsgiApp = (_environ, startResponse) => {
 *   startResponse("200 OK", []);
 *   return [];
 * };
 * const environ = {
 *   REQUEST_METHOD: "GET", SCRIPT_NAME: "", PATH_INFO: "/", SERVER_NAME: "localhost", SERVER_PORT: "80",
 *   SERVER_PROTOCOL: "HTTP/1.1", "wsgi.version": [1, 0], "wsgi.url_scheme": "http",
 *   "wsgi.input": { read: () => new Uint8Array(), readline: () => new Uint8Array(), readlines: () => [], *[Symbol.iterator]() {} },
 *   "wsgi.errors": { write() {}, writelines() {}, flush() {} },
 *   "wsgi.multithread": false, "wsgi.multiprocess": false, "wsgi.run_once": false,
 * } as Environ;
 * assert.throws(() => validator(bad)(environ, () => () => {}), WsgiValidationError);
 * ```
 */
export function validator(app: WsgiApp): ValidatedWsgiApp {
  const open = new Map<number, string>();
  let nextId = 0;
  const registry = new FinalizationRegistry<{ id: number; errors: WsgiErrors }>(
    ({ id, errors }) => {
      const what = open.get(id);
      if (what === undefined) return;
      open.delete(id);
      try {
        errors.write(
          `WSGI validation: the body of ${what} was garbage-collected without close()\n`,
        );
      } catch {
        // nothing left to report to
      }
    },
  );

  const validated = function validatedApp(
    environ: Environ,
    startResponse: StartResponse,
  ): WsgiIterable {
    check(arguments.length === 2, "The application must be called with (environ, startResponse)");
    checkEnviron(environ);
    const method = environ.REQUEST_METHOD;
    const what = `${method} ${environ.SCRIPT_NAME ?? ""}${environ.PATH_INFO ?? ""}`;
    const state: ResponseState = { started: false, status: 0, contentLength: null, written: 0 };
    const checkedEnviron: Environ = {
      ...environ,
      "wsgi.input": checkedInput(environ["wsgi.input"]),
      "wsgi.errors": checkedErrors(environ["wsgi.errors"]),
    };

    const checkedStart: StartResponse = function startResponseChecked(status, headers, excInfo?) {
      check(
        arguments.length === 2 || arguments.length === 3,
        `startResponse takes 2 or 3 arguments, got ${arguments.length}`,
      );
      if (state.started) {
        // null is Python's exc_info=None, as undefined is: not an error being handled
        check(excInfo != null, "startResponse was called a second time without excInfo");
      }
      state.status = checkStatus(status);
      state.contentLength = checkHeaders(headers, state.status);
      state.started = true;
      const write = startResponse(status, headers, excInfo);
      check(typeof write === "function", "startResponse must return a write callable");
      return function writeChecked(chunk: Uint8Array): void {
        check(arguments.length === 1, "write() takes exactly one argument");
        check(chunk instanceof Uint8Array, "write() needs a Uint8Array");
        state.written += chunk.length;
        (write as WriteFunction)(chunk);
      };
    };

    const result = app(checkedEnviron, checkedStart);
    check(result !== null && result !== undefined, "The application must return an iterable");
    check(
      typeof result !== "string",
      "The application must return an iterable of Uint8Array, not a string",
    );
    check(
      !(result instanceof Uint8Array),
      "The application must return [bytes], not a lone Uint8Array",
    );
    check(
      typeof (result as Iterable<Uint8Array>)[Symbol.iterator] === "function",
      "The application must return an iterable",
    );

    const id = nextId++;
    open.set(id, what);
    const body = new CheckedBody(result, state, method === "HEAD", () => open.delete(id));
    registry.register(body, { id, errors: environ["wsgi.errors"] });
    return body;
  };
  return Object.assign(validated, {
    assertClosed(): void {
      if (open.size > 0) {
        const list = [...open.values()].join(", ");
        open.clear();
        throw new WsgiValidationError(`The server did not call close() on the body of: ${list}`);
      }
    },
  });
}

interface ResponseState {
  started: boolean;
  status: number;
  contentLength: number | null;
  written: number;
}

class CheckedBody implements WsgiIterable {
  #inner: WsgiIterable;
  #state: ResponseState;
  #head: boolean;
  #onClose: () => void;
  #iterated = false;
  #closed = false;
  #iterator: Iterator<Uint8Array> | undefined;

  constructor(inner: WsgiIterable, state: ResponseState, head: boolean, onClose: () => void) {
    this.#inner = inner;
    this.#state = state;
    this.#head = head;
    this.#onClose = onClose;
  }

  [Symbol.iterator](): Iterator<Uint8Array> {
    check(!this.#closed, "The server iterated over a body after calling close()");
    check(!this.#iterated, "The server iterated over a body twice");
    this.#iterated = true;
    const inner = this.#inner[Symbol.iterator]();
    this.#iterator = inner;
    const state = this.#state;
    return {
      next: (): IteratorResult<Uint8Array> => {
        check(!this.#closed, "The server iterated over a body after calling close()");
        const step = inner.next();
        check(state.started, "The application produced its body before calling startResponse");
        if (step.done) {
          this.#checkLength();
          return step;
        }
        const chunk: unknown = step.value;
        check(
          chunk instanceof Uint8Array,
          `The application yielded ${typeof chunk}, not a Uint8Array`,
        );
        if (state.status === 204 || state.status === 304) {
          check(chunk.length === 0, `A ${state.status} response must not have a body`);
        }
        state.written += chunk.length;
        return step;
      },
      return: (value?: unknown): IteratorResult<Uint8Array> => {
        inner.return?.(value);
        return { done: true, value: undefined };
      },
    };
  }

  #checkLength(): void {
    const { contentLength, written } = this.#state;
    if (contentLength !== null && !this.#head && this.#state.status !== 304) {
      check(
        written === contentLength,
        `The body has ${written} bytes but Content-Length says ${contentLength}`,
      );
    }
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#onClose();
    this.#iterator?.return?.(); // a generator's finally blocks run, as its close() would in Python
    if (typeof this.#inner.close === "function") this.#inner.close();
  }
}

function checkEnviron(environ: Environ): void {
  check(typeof environ === "object" && environ !== null, "The environ must be an object");
  for (const key of REQUIRED_KEYS) {
    check(key in environ, `The environ lacks the required key ${key}`);
  }
  for (const key of ["HTTP_CONTENT_TYPE", "HTTP_CONTENT_LENGTH"]) {
    check(!(key in environ), `The environ must not contain ${key}; use ${key.slice(5)}`);
  }
  for (const [key, value] of Object.entries(environ)) {
    if (key.includes(".") || key !== key.toUpperCase()) continue; // wsgi.* and extensions
    check(typeof value === "string", `The environ's ${key} must be a string, got ${typeof value}`);
    check(!NOT_LATIN1.test(value), `The environ's ${key} must be a native (Latin-1) string`);
  }
  const version = environ["wsgi.version"];
  check(
    Array.isArray(version) && version.length === 2 && version.every(Number.isInteger),
    "wsgi.version must be a pair of integers",
  );
  const scheme = environ["wsgi.url_scheme"];
  check(
    scheme === "http" || scheme === "https",
    `wsgi.url_scheme must be http or https, got ${scheme}`,
  );
  check(
    TOKEN.test(environ.REQUEST_METHOD),
    `REQUEST_METHOD is not a token: ${environ.REQUEST_METHOD}`,
  );
  const scriptName = environ.SCRIPT_NAME ?? "";
  const pathInfo = environ.PATH_INFO ?? "";
  check(
    scriptName === "" || scriptName.startsWith("/"),
    "SCRIPT_NAME must be empty or start with /",
  );
  check(scriptName !== "/", "SCRIPT_NAME must not be /; use PATH_INFO");
  check(pathInfo === "" || pathInfo.startsWith("/"), "PATH_INFO must be empty or start with /");
  check(scriptName !== "" || pathInfo !== "", "One of SCRIPT_NAME or PATH_INFO must be set");
  const input = environ["wsgi.input"];
  for (const name of ["read", "readline", "readlines", Symbol.iterator] as const) {
    check(typeof input?.[name] === "function", `wsgi.input lacks ${String(name)}`);
  }
  const errors = environ["wsgi.errors"];
  for (const name of ["write", "writelines", "flush"] as const) {
    check(typeof errors?.[name] === "function", `wsgi.errors lacks ${name}`);
  }
  for (const key of ["wsgi.multithread", "wsgi.multiprocess", "wsgi.run_once"]) {
    check(typeof environ[key] === "boolean", `${key} must be a boolean`);
  }
  const wrapper = environ["wsgi.file_wrapper"];
  check(
    wrapper === undefined || typeof wrapper === "function",
    "wsgi.file_wrapper must be a function",
  );
}

function checkedInput(input: WsgiInput): WsgiInput {
  const bytes = (value: unknown, what: string): Uint8Array => {
    check(
      value instanceof Uint8Array,
      `wsgi.input.${what} returned ${typeof value}, not a Uint8Array`,
    );
    return value;
  };
  const size = (value: unknown, what: string): void => {
    check(value == null || Number.isInteger(value), `wsgi.input.${what} takes an integer`);
  };
  return {
    read(n?: number | null) {
      size(n, "read()");
      return bytes(input.read(n), "read()");
    },
    readline(n?: number | null) {
      size(n, "readline()");
      return bytes(input.readline(n), "readline()");
    },
    readlines(hint?: number | null) {
      size(hint, "readlines()");
      const lines = input.readlines(hint);
      check(Array.isArray(lines), "wsgi.input.readlines() must return an array");
      for (const line of lines) bytes(line, "readlines()");
      return lines;
    },
    *[Symbol.iterator]() {
      for (const line of input) yield bytes(line, "iteration");
    },
  };
}

function checkedErrors(errors: WsgiErrors): WsgiErrors {
  return {
    write(text: string) {
      check(typeof text === "string", "wsgi.errors.write() takes a string");
      errors.write(text);
    },
    writelines(lines: Iterable<string>) {
      for (const line of lines) {
        check(typeof line === "string", "wsgi.errors.writelines() takes strings");
      }
      errors.writelines(lines);
    },
    flush() {
      errors.flush();
    },
  };
}

function checkStatus(status: unknown): number {
  check(typeof status === "string", `The status must be a string, got ${typeof status}`);
  check(
    !NOT_LATIN1.test(status) && !hasControl(status),
    "The status must be Latin-1 without control characters",
  );
  check(/^\d{3} /.test(status), `The status must be "NNN reason", got ${JSON.stringify(status)}`);
  const code = Number(status.slice(0, 3));
  check(code >= 100, `The status code must be at least 100, got ${code}`);
  check(status.length > 4, `The status needs a reason phrase, got ${JSON.stringify(status)}`);
  return code;
}

function checkHeaders(headers: unknown, code: number): number | null {
  check(Array.isArray(headers), "The headers must be an array of [name, value] pairs");
  let contentType = false;
  let contentLength: number | null = null;
  for (const header of headers) {
    check(
      Array.isArray(header) && header.length === 2,
      `Each header must be a [name, value] pair, got ${JSON.stringify(header)}`,
    );
    const [name, value] = header as unknown[];
    check(typeof name === "string", `A header name must be a string, got ${typeof name}`);
    check(typeof value === "string", `The value of ${name} must be a string, got ${typeof value}`);
    const lower = name.toLowerCase();
    check(lower !== "status", "Status is not a header; pass it as the status");
    check(TOKEN.test(name), `Invalid header name ${JSON.stringify(name)}`);
    check(
      !name.endsWith("-") && !name.endsWith("_"),
      `Header names must not end in - or _: ${name}`,
    );
    check(!HOP_BY_HOP.has(lower), `Hop-by-hop header ${name} is not allowed in a WSGI response`);
    check(!NOT_LATIN1.test(value), `The value of ${name} must be Latin-1`);
    check(!hasControl(value), `The value of ${name} contains a control character`);
    if (lower === "content-type") contentType = true;
    if (lower === "content-length") {
      check(/^\d+$/.test(value), `Content-Length must be a non-negative integer, got ${value}`);
      contentLength = Number(value);
    }
  }
  if (code === 204 || code === 304) {
    check(!contentType, `A ${code} response must not have a Content-Type`);
  } else {
    check(contentType, "No Content-Type header (required except for 204 and 304)");
  }
  return contentLength;
}
