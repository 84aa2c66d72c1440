/**
 * The WSGI calling convention (PEP 3333) in TypeScript: native strings are JS strings whose
 * code units are all ≤ 0xFF (Latin-1), byte strings are `Uint8Array`s.
 *
 * @module
 */

/** The `wsgi.input` stream: a synchronous reader of the request body (PEP 3333). */
export interface WsgiInput {
  /**
   * Reads up to `size` bytes, or everything left when `size` is omitted, `null` (Python's
   * `None`) or negative; a `size` that is not an integer is a `TypeError`.
   */
  read(size?: number | null): Uint8Array;
  /** Reads one line, newline included, of at most `size` bytes when `size` is not negative. */
  readline(size?: number | null): Uint8Array;
  /** Reads the remaining lines; stops after about `hint` bytes when `hint` is positive. */
  readlines(hint?: number | null): Uint8Array[];
  /** Iterates over the remaining lines. */
  [Symbol.iterator](): Iterator<Uint8Array>;
}

/** The `wsgi.errors` stream: where an application writes diagnostics (PEP 3333). */
export interface WsgiErrors {
  /** Writes text. */
  write(text: string): void;
  /** Writes each string in turn. */
  writelines(lines: Iterable<string>): void;
  /** Flushes buffered text. */
  flush(): void;
}

/** A file-like object for {@linkcode FileWrapper}: `read(size)` returns `""`-like empty bytes at end. */
export interface FileLike {
  /** Reads up to `size` bytes; an empty array at the end of the file. */
  read(size: number): Uint8Array;
  /** Releases the file. */
  close?(): void;
}

/** A response body: an iterable of byte chunks whose `close()`, when present, the server calls. */
export type WsgiIterable = Iterable<Uint8Array> & {
  /** Called by the server exactly once when it is done with the body, also on errors. */
  close?(): void;
};

/** `wsgi.file_wrapper`: turns a file-like object into a response body (PEP 3333). */
export type FileWrapper = (file: FileLike, blockSize?: number) => WsgiIterable;

/**
 * The request environment (PEP 3333). String values are "native strings": `PATH_INFO` is
 * percent-decoded and carries each byte as one Latin-1 code unit.
 */
export interface Environ {
  /** The request method, such as `"GET"`. */
  REQUEST_METHOD: string;
  /** The mount point of the application; `""` at the root. */
  SCRIPT_NAME: string;
  /** The percent-decoded path below `SCRIPT_NAME`, bytes as Latin-1 code units. */
  PATH_INFO: string;
  /** The part of the URL after `?`, still percent-encoded. */
  QUERY_STRING?: string;
  /** The request's `Content-Type`. */
  CONTENT_TYPE?: string;
  /** The request's `Content-Length`. */
  CONTENT_LENGTH?: string;
  /** The server's host name. */
  SERVER_NAME: string;
  /** The server's port, as a string. */
  SERVER_PORT: string;
  /** For example `"HTTP/1.1"`. */
  SERVER_PROTOCOL: string;
  /** The WSGI version, `[1, 0]`. */
  "wsgi.version": readonly [number, number];
  /** `"http"` or `"https"`. */
  "wsgi.url_scheme": string;
  /** The request body. */
  "wsgi.input": WsgiInput;
  /** The error stream. */
  "wsgi.errors": WsgiErrors;
  /** Whether another thread may run the application at the same time. */
  "wsgi.multithread": boolean;
  /** Whether another process may run the application at the same time. */
  "wsgi.multiprocess": boolean;
  /** Whether the application runs only once in this process. */
  "wsgi.run_once": boolean;
  /** The server's efficient file transmission, when it offers one. */
  "wsgi.file_wrapper"?: FileWrapper;
  /** Request headers as `HTTP_<NAME>` (upper case, `-` as `_`). */
  [header: `HTTP_${string}`]: string | undefined;
  /** Further CGI variables and server extensions. */
  [key: string]: unknown;
}

/** The `write` callable that `start_response` returns (PEP 3333's imperative output). */
export type WriteFunction = (chunk: Uint8Array) => void;

/**
 * `start_response(status, headers, exc_info)`: `status` is `"200 OK"`, `headers` a list of
 * `[name, value]` pairs. `excInfo` is the error being handled: with it, an application may call
 * `startResponse` again to replace a status not yet sent; after the headers were sent the
 * server rethrows it. `null`, like `undefined`, is Python's `exc_info=None`: no error, so a
 * second call with it is refused.
 */
export type StartResponse = (
  status: string,
  headers: [string, string][],
  excInfo?: unknown,
) => WriteFunction;

/** A WSGI application (PEP 3333). */
export type WsgiApp = (environ: Environ, startResponse: StartResponse) => WsgiIterable;
