/**
 * `StaticMiddleware`: serves files from a directory under a URL prefix in front of any WSGI
 * application (docs/architecture.md, decisions 4–8).
 *
 * @module
 */
import type { HeaderReader } from "../lib/http/conditional.ts";
import { evaluatePreconditions } from "../lib/http/conditional.ts";
import { formatHttpDate } from "../lib/http/date.ts";
import { fileEtag } from "../lib/http/etag.ts";
import {
  fileSegments,
  hasDotSegment,
  isUnderRoot,
  rootBase,
  trimTrailingSlashes,
} from "../lib/http/file_path.ts";
import { contentType } from "../lib/http/media_type.ts";
import { STATUS_TEXT } from "../lib/http/status.ts";
import { runtime } from "../lib/server/deno.ts";
import type { FileStat, SyncFile } from "../lib/server/types.ts";
import { BLOCK_SIZE, BoundedFile, FileChunks, readAll } from "./_file_chunks.ts";
import type { Environ, StartResponse, WsgiApp, WsgiIterable } from "./types.ts";

const utf8 = new TextDecoder("utf-8", { fatal: true });
const NON_ASCII = /[\u0080-\uffff]/;
const EMPTY: Uint8Array[] = [];
const MAX_ATTEMPTS = 3;

/** Options of {@linkcode StaticMiddleware}, after its four positional parameters. */
export interface StaticMiddlewareOptions {
  /**
   * Whether files and directories whose name starts with a dot (`.env`, `.git/config`) are
   * served: `"deny"` lets them fall through to the wrapped app like a missing file, on the
   * request path and on the real path of symlinks alike.
   *
   * @default {"deny"}
   */
  dotfiles?: "deny" | "allow";
}

interface Found {
  /** The real path (symlinks resolved) of a regular file under the root. */
  path: string;
  /** The requested name, for the content type. */
  name: string;
  stat: FileStat;
}

/**
 * Wraps a WSGI application with a static-file server for `rootDir` under `urlPrefix`.
 *
 * Requests are handled in the spec's order:
 * 1. a path outside `urlPrefix` goes to `app`;
 * 2. the rest of the path is checked: leading slashes are stripped; `..` segments, absolute
 *    paths, NUL, backslashes, undecodable UTF-8 and (by default) dotfiles are rejected, and the
 *    real path (symlinks resolved) must lie under the real `rootDir` — a rejected path goes
 *    to `app`;
 * 3. anything but a regular file (a directory, a FIFO, a missing file) goes to `app`;
 * 4. If-None-Match matching the ETag (weak comparison, lists, `*`) gives 304;
 * 5. otherwise If-Modified-Since, evaluated only without If-None-Match (RFC 9110 §13.1.3),
 *    gives 304 when the file is not newer;
 * 6. otherwise 200 with the file and `ETag`, `Last-Modified`, `Content-Type`,
 *    `Cache-Control: max-age=<maxAge>` and `Content-Length`.
 *
 * If-Match and If-Unmodified-Since are honoured too (412), in RFC 9110 §13.2.2 order. A file
 * whose path names another version once it is open (replaced meanwhile), or a small file that
 * shrinks while it is read, is looked up again, so the body is the version the headers describe
 * (503 if it keeps changing). HEAD gets
 * the headers only; other methods on an existing file get 405 with `Allow: GET, HEAD`. `PATH_INFO`
 * carries bytes as Latin-1 code units (PEP 3333), so names are re-decoded as UTF-8 (`café.txt`);
 * names that are not UTF-8 go to `app`. Files over 64 KiB are sent as a chunk iterable, through
 * `wsgi.file_wrapper` when the server offers one, never read whole into memory. The ETag is
 * `"` + 16 hex digits of SHA-256 of `<size>-<mtime_ns>` + `"`, where Deno's `mtime_ns` has
 * millisecond precision. Dotfiles (any segment starting with `.`, on the request path or the
 * real path) fall through to `app` unless `options.dotfiles` is `"allow"`: the spec serves any
 * file, but `.env` or `.git/config` left in a static directory should not leak by default.
 *
 * @param app The wrapped application, which gets every request the middleware does not serve.
 * @param rootDir The directory to serve files from.
 * @param urlPrefix The URL path prefix to intercept, such as `"/static"`, written decoded
 * (`"/café"` takes `/caf%C3%A9/…`); it matches whole segments (`/static` does not match
 * `/staticfoo`), and `"/"` or `""` intercepts every path.
 * @param maxAge Seconds for `Cache-Control: max-age`.
 * @default {60} maxAge
 * @param options Whether to serve dotfiles.
 * @returns A WSGI application.
 *
 * @example Serve /static from a directory, everything else from an app
 * ```ts
 * import { StaticMiddleware, type Environ, type WsgiApp } from "./mod.ts";
 * import assert from "node:assert/strict";
 *
 * const root = Deno.makeTempDirSync();
 * Deno.writeTextFileSync(`${root}/hello.txt`, "hello");
 * const app: WsgiApp = (_environ, startResponse) => {
 *   startResponse("404 Not Found", [["Content-Type", "text/plain"]]);
 *   return [new TextEncoder().encode("not here")];
 * };
 * const wrapped = StaticMiddleware(app, root, "/static", 3600);
 *
 * let status = "";
 * let headers: [string, string][] = [];
 * const environ = { REQUEST_METHOD: "GET", SCRIPT_NAME: "", PATH_INFO: "/static/hello.txt" };
 * const body = wrapped(environ as Environ, (s, h) => {
 *   [status, headers] = [s, h];
 *   return () => {};
 * });
 * assert.equal(status, "200 OK");
 * assert.deepEqual(new Map(headers).get("Cache-Control"), "max-age=3600");
 * assert.equal(new TextDecoder().decode([...body][0]), "hello");
 * Deno.removeSync(root, { recursive: true });
 * ```
 */
export function StaticMiddleware(
  app: WsgiApp,
  rootDir: string,
  urlPrefix: string,
  maxAge?: number,
  options?: StaticMiddlewareOptions,
): WsgiApp;
export function StaticMiddleware(
  app: WsgiApp,
  rootDir: string,
  urlPrefix: string,
  maxAge: number = 60,
  options: StaticMiddlewareOptions = {},
): WsgiApp {
  if (!Number.isSafeInteger(maxAge) || maxAge < 0) {
    throw new RangeError(
      `Cannot create StaticMiddleware: maxAge must be a non-negative integer, got ${maxAge}`,
    );
  }
  const dotfiles = options.dotfiles ?? "deny";
  if (dotfiles !== "deny" && dotfiles !== "allow") {
    throw new TypeError(
      `Cannot create StaticMiddleware: dotfiles must be "deny" or "allow", got ${
        JSON.stringify(dotfiles)
      }`,
    );
  }
  const denyDotfiles = dotfiles === "deny";
  let prefix = trimTrailingSlashes(urlPrefix);
  if (prefix !== "" && !prefix.startsWith("/")) prefix = `/${prefix}`;
  // matched against PATH_INFO, which carries its UTF-8 bytes as Latin-1 code units (PEP 3333)
  if (NON_ASCII.test(prefix)) prefix = String.fromCharCode(...encoder.encode(prefix));
  const cacheControl = `max-age=${maxAge}`;
  let realRoot = runtime.fs.realPathSync(rootDir);

  function locate(pathInfo: unknown): Found | null {
    // 1. the prefix, on a segment boundary
    if (typeof pathInfo !== "string") return null;
    let rest: string;
    if (prefix === "") rest = pathInfo;
    else if (pathInfo === prefix) rest = "";
    else if (pathInfo.startsWith(prefix) && pathInfo.charCodeAt(prefix.length) === 0x2f) {
      rest = pathInfo.slice(prefix.length + 1);
    } else return null;

    // 2. PEP 3333 carries bytes as Latin-1 code units: back to bytes, then UTF-8
    if (NON_ASCII.test(rest)) {
      const decoded = latin1ToUtf8(rest);
      if (decoded === null) return null;
      rest = decoded;
    }

    // 3. path rules: NUL, backslash, `..`, drives, dotfiles; a path ending in `/` names a
    // directory
    const segments = fileSegments(rest, { decode: false });
    if (typeof segments === "string") return null;
    if (denyDotfiles && segments.some((s) => s.charCodeAt(0) === 0x2e)) return null;

    // 4. the real path must stay under the real root
    realRoot ??= runtime.fs.realPathSync(rootDir);
    if (realRoot === null) return null;
    const base = rootBase(realRoot);
    const real = runtime.fs.realPathSync(base + segments.join("/"));
    if (real === null || !isUnderRoot(base, real)) return null;
    if (denyDotfiles && hasDotSegment(real, base.length)) return null;

    // 5. only regular files
    const stat = runtime.fs.statSync(real);
    if (stat === null || !stat.isFile) return null;
    return { path: real, name: segments[segments.length - 1], stat };
  }

  return function staticMiddleware(environ: Environ, startResponse: StartResponse): WsgiIterable {
    return serve(environ, startResponse, 1);
  };

  function serve(environ: Environ, startResponse: StartResponse, attempt: number): WsgiIterable {
    const found = locate(environ.PATH_INFO);
    if (found === null) return app(environ, startResponse);
    const method = environ.REQUEST_METHOD;
    if (method !== "GET" && method !== "HEAD") {
      return problem(startResponse, 405, [["Allow", "GET, HEAD"]]);
    }

    const { stat } = found;
    const etag = fileEtag(stat.size, stat.mtimeNs);
    const lastModified = formatHttpDate(stat.mtimeMs);
    const validators: [string, string][] = [
      ["ETag", etag],
      ["Last-Modified", lastModified],
      ["Cache-Control", cacheControl],
    ];
    const precondition = evaluatePreconditions({
      method,
      headers: environHeaders(environ),
      etag,
      lastModifiedMs: stat.mtimeMs,
    });
    if (precondition === 304) {
      startResponse("304 Not Modified", validators);
      return EMPTY;
    }
    if (precondition === 412) return problem(startResponse, 412, validators);

    // Opening first lets an unreadable file fall through like a missing one.
    let opened: SyncFile;
    try {
      opened = runtime.fs.openSync(found.path);
    } catch {
      return app(environ, startResponse);
    }
    // The path may name another file since its stat (a deploy renames a new version over it):
    // the bytes read must be those the headers describe, so it is looked up again.
    const again = () =>
      attempt < MAX_ATTEMPTS
        ? serve(environ, startResponse, attempt + 1)
        : problem(startResponse, 503, []);
    const current = opened.statSync();
    if (current.size !== stat.size || current.mtimeNs !== stat.mtimeNs) {
      opened.close();
      return again();
    }
    const file = new BoundedFile(opened, stat.size);
    const headers = validators;
    headers.push(["Content-Type", contentType(found.name)]);
    let body: WsgiIterable;
    if (method === "HEAD" || stat.size === 0) {
      file.close();
      body = EMPTY;
      headers.push(["Content-Length", String(stat.size)]);
    } else if (stat.size <= BLOCK_SIZE) {
      const bytes = readAll(file, stat.size);
      // a file that shrank while it was read holds no longer the version the headers describe
      if (bytes.length !== stat.size) return again();
      body = [bytes];
      headers.push(["Content-Length", String(stat.size)]);
    } else {
      const wrapper = environ["wsgi.file_wrapper"];
      body = typeof wrapper === "function" ? wrapper(file, BLOCK_SIZE) : new FileChunks(file);
      headers.push(["Content-Length", String(stat.size)]);
    }
    try {
      startResponse("200 OK", headers);
    } catch (error) {
      if (body !== EMPTY) closeBody(body);
      throw error;
    }
    return body;
  }
}

function closeBody(body: WsgiIterable): void {
  if (typeof body.close === "function") body.close();
}

function latin1ToUtf8(value: string): string | null {
  const bytes = new Uint8Array(value.length);
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if (c > 0xff) return null; // not a PEP 3333 native string
    bytes[i] = c;
  }
  try {
    return utf8.decode(bytes);
  } catch {
    return null;
  }
}

const HEADER_KEYS: Record<string, string> = {
  "if-match": "HTTP_IF_MATCH",
  "if-none-match": "HTTP_IF_NONE_MATCH",
  "if-modified-since": "HTTP_IF_MODIFIED_SINCE",
  "if-unmodified-since": "HTTP_IF_UNMODIFIED_SINCE",
};

function environHeaders(environ: Environ): HeaderReader {
  return {
    get(name) {
      const key = HEADER_KEYS[name] ?? `HTTP_${name.toUpperCase().replaceAll("-", "_")}`;
      const value = environ[key];
      return typeof value === "string" ? value : null;
    },
  };
}

const encoder = new TextEncoder();

function problem(
  startResponse: StartResponse,
  status: number,
  headers: [string, string][],
): Uint8Array[] {
  const title = STATUS_TEXT[status];
  const body = encoder.encode(JSON.stringify({ type: "about:blank", title, status }));
  startResponse(`${status} ${title}`, [
    ...headers,
    ["Content-Type", "application/problem+json"],
    ["Content-Length", String(body.length)],
  ]);
  return [body];
}
