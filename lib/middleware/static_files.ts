/**
 * `staticFiles()`: serves the files of a directory under a URL prefix (docs/architecture.md,
 * decisions 4–7): safe path resolution, conditional and range requests, precompressed
 * variants, and a bounded in-memory cache of small files. What it needs to answer (the
 * precondition and range logic, the MIME table, the ETag hash) loads with a dynamic import on
 * its first request, so an app's bundle carries only the path checks up front.
 *
 * @module
 */
import type { Context } from "../context.ts";
import { fileSegments, pathBelow, rootBase, trimTrailingSlashes } from "../http/file_path.ts";
import { problem } from "../http/problem.ts";
import { sameOriginPath } from "../http/same_origin_path.ts";
import { CLONE_TEXT_RESPONSES, fs } from "../server/deno.ts";
import type { Middleware, Next } from "../types.ts";
import { parseList } from "./_headers.ts";
import { clock, type Entry, FileCache, type ResolveConfig } from "./_static_cache.ts";
import { acceptsHtml, fallbackKey, fileName } from "./_static_spa.ts";

/** Options of the in-memory cache of {@linkcode staticFiles}. */
export interface StaticCacheOptions {
  /**
   * Files up to this many bytes are kept in memory with their headers; larger files are
   * streamed from disk on every request (their metadata is still cached).
   *
   * @default {65536}
   */
  maxFileBytes?: number;
  /**
   * The bound of the whole cache in bytes: file bodies (a UTF-8 file counts three times its
   * size: its bytes, for ranges, and a string, which Deno sends without a copy) plus 1 KiB per
   * entry. The least recently used entries are evicted first.
   *
   * @default {33554432}
   */
  maxBytes?: number;
  /**
   * How long a cached entry is trusted, in milliseconds, before the next request for it checks
   * the file again (realpath and stat; the body is read again only if the size or mtime
   * changed; concurrent requests share one check). This is the staleness bound: a changed,
   * replaced or deleted file is never served from the cache more than `revalidateMs` after
   * the change. A streamed file is also checked (stat, then fstat of the open file) before
   * each body is sent, so a body never goes out with another version's headers. 0 checks on
   * every request.
   *
   * @default {1000}
   */
  revalidateMs?: number;
}

/** Options of {@linkcode staticFiles}. */
export interface StaticFilesOptions {
  /** The directory to serve. Its real path (symlinks resolved) bounds every file served. */
  root: string;
  /**
   * The URL path prefix to serve under, written decoded and matched on whole segments
   * (`/static` does not match `/staticfoo`), each compared decoded (`/café` takes
   * `/caf%C3%A9` and `/caf%c3%a9`, `/static` takes `/st%61tic`; an encoded `/` is no
   * separator). Requests outside it go to `next()`.
   *
   * @default {"/"}
   */
  prefix?: string;
  /**
   * Seconds for `Cache-Control: max-age`.
   *
   * @default {0}
   */
  maxAge?: number;
  /**
   * Which files never change under their name (hashed names such as `app.3f9a2c.js`): they get
   * `Cache-Control: max-age=31536000, immutable` instead of `maxAge`. `true` for every file, a
   * RegExp or a function tested against the path below the prefix (`assets/app.3f9a2c.js`).
   *
   * @default {false}
   */
  immutable?: boolean | RegExp | ((path: string) => boolean);
  /**
   * Whether files and directories whose name starts with a dot are served: `"deny"` answers
   * them as missing (404), on the request path and on the real path of symlinks alike.
   *
   * @default {"deny"}
   */
  dotfiles?: "deny" | "allow";
  /**
   * Whether to serve `<file>.br` and `<file>.gz`, when they exist beside the file, to clients
   * whose `Accept-Encoding` accepts them (by q-value; `br` wins a tie). Responses for a file
   * with a variant carry `Vary: Accept-Encoding`, and each coding has its own ETag.
   *
   * @default {false}
   */
  precompressed?: boolean;
  /**
   * Whether misses (a missing file, a directory, a denied dotfile) and client errors (a
   * malformed or hostile path) go to `next()` instead of being answered 404 or 400.
   *
   * @default {false}
   */
  fallthrough?: boolean;
  /**
   * The file served for a directory (`index.html`): `/docs/` serves `docs/index.html`, and
   * `/docs`, when `docs/index.html` exists, is redirected with 308 to `/docs/` (the query kept;
   * the `Location` is always a path on the same origin, whatever slashes the request began
   * with). A plain file name, without `/`. Without it, directories are 404.
   */
  index?: string;
  /**
   * The file served, with 200, for requests that match no file: the entry page of a
   * single-page app (`index.html`), a path below the root. Only for GET and HEAD requests whose
   * `Accept` lists `text/html` (browser navigations, not `fetch()` calls), whose last path
   * segment has no dot (`/users/7`, not `/app.js`), and whose path is outside
   * {@linkcode StaticFilesOptions.fallbackExclude}. With `fallthrough`, `next()` answers first
   * and the fallback replaces only its 404. Every answer that Accept chose carries
   * `Vary: Accept` (merged into a `Vary` already there): the fallback page, and the 404 that a
   * request for the same path gets without `text/html` (staticFiles()'s own, or that of
   * `next()` with `fallthrough`), so that a shared cache never gives that 404 to a navigation.
   */
  fallback?: string;
  /**
   * Path prefixes that never get the fallback (matched on whole segments of the request path:
   * `/api` covers `/api` and `/api/users`, not `/apidocs`).
   *
   * @default {[]}
   */
  fallbackExclude?: readonly string[];
  /**
   * The in-memory cache of small files and of metadata, or `false` to check the file system
   * and stream every file on every request.
   *
   * @default {{ maxFileBytes: 65536, maxBytes: 33554432, revalidateMs: 1000 }}
   */
  cache?: StaticCacheOptions | false;
}

type Engine = typeof import("./_static_respond.ts");

const IMMUTABLE = "max-age=31536000, immutable";
const MAX_ATTEMPTS = 3;

function fail(detail: string): never {
  throw new TypeError(`Cannot create staticFiles(): ${detail}`);
}

function nonNegativeInteger(name: string, value: unknown, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < 0) {
    fail(`${name} must be a non-negative integer, got ${String(value)}`);
  }
  return value;
}

function normalizePrefix(prefix: unknown): string {
  if (typeof prefix !== "string") fail("prefix must be a string");
  // matched against the raw request path, so written the way a client sends it
  let p = trimTrailingSlashes(encodeURI(prefix));
  if (p !== "" && !p.startsWith("/")) p = `/${p}`;
  return p;
}

function compileImmutable(test: StaticFilesOptions["immutable"]): (path: string) => boolean {
  if (test === undefined || test === false) return () => false;
  if (test === true) return () => true;
  if (test instanceof RegExp) {
    const re = new RegExp(test.source, test.flags.replace(/[gy]/g, "")); // stateless copy
    return (path) => re.test(path);
  }
  if (typeof test === "function") return (path) => test(path) === true;
  fail("immutable must be a boolean, a RegExp or a function");
}

/**
 * Serves the files under `root` for GET and HEAD requests under `prefix`; other methods and
 * paths outside the prefix go to `next()`.
 *
 * 1. The path below the prefix is percent-decoded once (malformed → 400); NUL, backslashes
 *    and encoded `/` are refused (400); `..` segments and drives are refused (404), never
 *    resolved.
 * 2. The path is joined under the root and its real path (symlinks resolved) must stay under
 *    the real root: a symlink pointing outside is a 404, and so is a sibling directory that
 *    shares the root's name as a prefix (`static_evil/` next to `static/`). Dotfiles are 404
 *    unless `dotfiles: "allow"`.
 * 3. Only regular files are served: directories, FIFOs and devices are 404 (never opened, so
 *    a FIFO cannot hang the request). There is no directory listing, and no index file
 *    unless the `index` option names one.
 * 4. Preconditions follow RFC 9110 §13.2.2 (If-Match → 412, If-Unmodified-Since → 412,
 *    If-None-Match → 304 for GET and HEAD, If-Modified-Since only without If-None-Match),
 *    then a single `bytes` range gives 206 (or 416 with `Content-Range: bytes *\/size`;
 *    several ranges give the whole file), with If-Range. 304, 412 and 416 keep ETag,
 *    Last-Modified, Cache-Control and Vary.
 * 5. 200 and 206 carry `Content-Type` (from the extension, mime-db with the spec's additions,
 *    `; charset=utf-8` on textual types), `Content-Length`, `ETag` (`"` + 16 hex digits of
 *    SHA-256 of `<size>-<mtime_ns>` + `"`, with Deno's millisecond mtime), `Last-Modified`,
 *    `Cache-Control`, `Accept-Ranges: bytes`. HEAD gets the same headers without a body.
 *
 * Bodies are streamed from disk, never read whole into memory, except for small files kept in
 * the cache (see {@linkcode StaticCacheOptions}): a changed file is seen at most
 * `revalidateMs` (1 s by default) after the change. Errors are RFC 9457 problem responses.
 *
 * @param options The root and how to serve it.
 * @returns The middleware.
 * @throws {TypeError} When an option is invalid.
 *
 * @example Serve a directory under /static
 * ```ts
 * import { chain, get, router } from "../../mod.ts";
 * import { staticFiles } from "./static_files.ts";
 * import assert from "node:assert/strict";
 *
 * const root = Deno.makeTempDirSync();
 * Deno.writeTextFileSync(`${root}/app.css`, "body { margin: 0 }");
 * const app = chain(
 *   [staticFiles({ root, prefix: "/static", maxAge: 3600 })],
 *   router([get("/", () => new Response("home"))]),
 * );
 *
 * const res = await app.fetch(new Request("http://localhost/static/app.css"));
 * assert.equal(res.status, 200);
 * assert.equal(res.headers.get("content-type"), "text/css; charset=utf-8");
 * assert.equal(res.headers.get("cache-control"), "max-age=3600");
 * assert.equal(await res.text(), "body { margin: 0 }");
 *
 * const etag = res.headers.get("etag")!;
 * const again = await app.fetch(
 *   new Request("http://localhost/static/app.css", { headers: { "if-none-match": etag } }),
 * );
 * assert.equal(again.status, 304);
 * assert.equal((await app.fetch(new Request("http://localhost/static/nope.css"))).status, 404);
 * assert.equal(await (await app.fetch(new Request("http://localhost/"))).text(), "home");
 * Deno.removeSync(root, { recursive: true });
 * ```
 */
export function staticFiles(options: StaticFilesOptions): Middleware {
  // 1. options, checked once
  if (typeof options !== "object" || options === null) fail("options must be an object");
  const { root } = options;
  if (typeof root !== "string" || root === "") fail("root must be a non-empty path");
  const prefix = normalizePrefix(options.prefix ?? "/");
  const maxAge = nonNegativeInteger("maxAge", options.maxAge, 0);
  const isImmutable = compileImmutable(options.immutable);
  const dotfiles = options.dotfiles ?? "deny";
  if (dotfiles !== "deny" && dotfiles !== "allow") {
    fail(`dotfiles must be "deny" or "allow", got ${JSON.stringify(dotfiles)}`);
  }
  const precompressed = options.precompressed === true;
  const fallthrough = options.fallthrough === true;
  const index = fileName("index", options.index);
  const indexSuffix = index === undefined ? "" : encodeURIComponent(index);
  const fallback = fallbackKey(options.fallback);
  const excluded = (options.fallbackExclude ?? []).map(normalizePrefix);
  const cacheOptions = options.cache === undefined ? {} : options.cache;
  if (cacheOptions !== false && (typeof cacheOptions !== "object" || cacheOptions === null)) {
    fail("cache must be an object or false");
  }
  const cached = cacheOptions !== false;
  const maxFileBytes = cached
    ? nonNegativeInteger("cache.maxFileBytes", cacheOptions.maxFileBytes, 65_536)
    : 0;
  const maxBytes = cached
    ? nonNegativeInteger("cache.maxBytes", cacheOptions.maxBytes, 33_554_432)
    : 0;
  const revalidateMs = cached
    ? nonNegativeInteger("cache.revalidateMs", cacheOptions.revalidateMs, 1000)
    : 0;
  const cacheControl = `max-age=${maxAge}`;

  const cache = new FileCache(maxBytes);
  const loading = new Map<string, Promise<Entry | null>>();
  let config: ResolveConfig | undefined;
  let rootPending: Promise<ResolveConfig | null> | undefined;
  // The machinery (preconditions, ranges, resolution, the MIME table, the ETag hash) loads on
  // the first request under the prefix, so that apps load none of it up front. Entries exist
  // only once it has loaded, so code holding an entry can use `engine` directly.
  let engine: Engine | undefined;
  let enginePending: Promise<Engine> | undefined;

  // 2. the real root, resolved on first use (and again while it does not exist)
  function resolveRoot(): Promise<ResolveConfig | null> {
    return rootPending ??= fs.realPath(root).then((real) => {
      if (real === null) {
        rootPending = undefined;
        return null;
      }
      return config = {
        fs,
        problem,
        parseList,
        cloneText: CLONE_TEXT_RESPONSES,
        base: rootBase(real),
        dotfiles,
        precompressed,
        maxFileBytes,
        cacheControl: (path) => isImmutable(path) ? IMMUTABLE : cacheControl,
      };
    });
  }

  // 3. one resolution per key at a time; concurrent requests share it
  function load(key: string, previous: Entry | null): Promise<Entry | null> {
    let pending = loading.get(key);
    if (pending === undefined) {
      enginePending ??= import("./_static_respond.ts").then(
        (module) => engine = module,
        (error) => {
          enginePending = undefined; // a failed load (the request gets a 500) is tried again
          throw error;
        },
      );
      pending = Promise.all([config ?? resolveRoot(), enginePending])
        .then(([conf, { resolveEntry }]) =>
          conf === null ? null : resolveEntry(conf, key, previous)
        )
        .then((entry) => {
          if (entry === null || !cached) cache.delete(key);
          else cache.set(key, entry);
          return entry;
        })
        .finally(() => loading.delete(key));
      loading.set(key, pending);
    }
    return pending;
  }

  function miss(
    ctx: Context,
    next: Next,
    status: 400 | 404,
    detail: string,
  ): Response | Promise<Response> {
    if (status === 404 && fallback !== undefined && clientRoute(ctx.path)) {
      if (acceptsHtml(ctx.header("accept"))) return serveFallback(ctx, next);
      // A navigation to this path gets the fallback page instead: the 404 varies on Accept, or
      // a shared cache could store it and give it to the next browser that navigates here.
      // (Only a 404 of next(): any other answer of it is what a navigation gets too.)
      if (fallthrough) {
        return next().then((res) => res.status === 404 ? varyOnAccept(res) : res);
      }
      return varyOnAccept(problem({ status, detail, instance: ctx.path }));
    }
    if (fallthrough) return next();
    return problem({ status, detail, instance: ctx.path });
  }

  // A path that may be a client-side route: not a file-looking path, not an excluded prefix.
  // Whether it gets the fallback then depends on Accept (a browser navigation lists text/html).
  function clientRoute(path: string): boolean {
    if (path.lastIndexOf(".") > path.lastIndexOf("/")) return false;
    for (const prefix of excluded) if (pathBelow(path, prefix) !== undefined) return false;
    return true;
  }

  // Adds Accept to Vary unless it is listed (or `*` is); a response of next() from fetch() (a
  // proxy) has immutable headers and is copied. (Not appendVary() and editHeaders() of
  // _headers.ts: importing them grew the Deno core bundle by 7 B, with none of their code in it.)
  function varyOnAccept(res: Response): Response {
    const vary = res.headers.get("vary");
    if (vary !== null && parseList(vary.toLowerCase()).some((v) => v === "accept" || v === "*")) {
      return res;
    }
    const value = vary === null ? "Accept" : `${vary}, Accept`;
    try {
      res.headers.set("vary", value);
      return res;
    } catch {
      const copy = new Response(res.body, res);
      copy.headers.set("vary", value);
      return copy;
    }
  }

  async function serveFallback(ctx: Context, next: Next): Promise<Response> {
    if (fallthrough) {
      const res = await next();
      if (res.status !== 404) return res;
      await res.body?.cancel();
    }
    return varyOnAccept(await answer(ctx, next, fallback!, cache.get(fallback!), false));
  }

  // A directory without its trailing slash: 308 to the slash form when it has the index file.
  async function toDirectory(ctx: Context, next: Next, key: string): Promise<Response> {
    const entry = await load(`${key === "/" ? "" : key}/${index}`, null);
    if (entry === null) return miss(ctx, next, 404, "No file matches the path");
    const url = ctx.req.url;
    const query = url.indexOf("?");
    const location = sameOriginPath(`${ctx.path}/`) + (query === -1 ? "" : url.slice(query));
    return new Response(null, { status: 308, headers: { location } });
  }

  async function serveLoaded(
    ctx: Context,
    next: Next,
    key: string,
    previous: Entry | null,
    direct = true,
  ): Promise<Response> {
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      const entry = await load(key, previous);
      if (entry === null) {
        if (!direct) return problem({ status: 404, detail: "No file matches the path" });
        if (index !== undefined && key !== fallback) return toDirectory(ctx, next, key);
        return miss(ctx, next, 404, "No file matches the path");
      }
      const res = await engine!.respond(entry, ctx.req, config!);
      if (res !== null) return res;
      previous = null; // the file changed on disk after it was checked: look again
    }
    return problem({ status: 503, detail: "The file kept changing while it was opened" });
  }

  // 4. a fresh entry answers at once (synchronously when the body is in memory); a stale or
  //    missing one is resolved first
  function answer(
    ctx: Context,
    next: Next,
    key: string,
    entry: Entry | undefined,
    direct = true,
  ): Response | Promise<Response> {
    if (entry === undefined) return serveLoaded(ctx, next, key, null, direct);
    if (clock.now() - entry.checkedAt >= revalidateMs) {
      return serveLoaded(ctx, next, key, entry, direct);
    }
    const res = engine!.respond(entry, ctx.req, config!);
    if (res instanceof Response) return res;
    return res.then((value) => value ?? serveLoaded(ctx, next, key, null, direct));
  }

  return function staticFiles(ctx, next) {
    // 1. GET and HEAD under the prefix
    const method = ctx.req.method;
    if (method !== "GET" && method !== "HEAD") return next();
    const path = ctx.path;
    const rest = prefix === "" ? path : pathBelow(path, prefix);
    if (rest === undefined) return next();

    // 2. a cache hit: a raw path without escapes equals the key it decodes to
    if (!rest.includes("%")) {
      const entry = cache.get(rest);
      if (entry !== undefined) return answer(ctx, next, rest, entry);
    }

    // 3. path safety, in pillarjs/send's order; a directory path gets its index file
    let segments = fileSegments(rest, { decode: true });
    if (segments === "directory" && index !== undefined) {
      if (rest === "") return toDirectory(ctx, next, "/");
      segments = fileSegments(`${rest}/${indexSuffix}`, { decode: true });
    }
    if (typeof segments === "string") {
      if (segments === "malformed") {
        return miss(ctx, next, 400, "The path has a malformed escape or is not UTF-8");
      }
      if (segments === "invalid") {
        return miss(ctx, next, 400, "The path contains NUL, a backslash or an encoded slash");
      }
      return miss(ctx, next, 404, "No file matches the path");
    }
    if (dotfiles === "deny" && segments.some((s) => s.charCodeAt(0) === 0x2e)) {
      return miss(ctx, next, 404, "No file matches the path");
    }
    const key = "/" + segments.join("/");
    return answer(ctx, next, key, cache.get(key));
  };
}
