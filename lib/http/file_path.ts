/**
 * Request paths to file paths: the path rules both static middlewares share
 * (docs/architecture.md, decision 7). A path is split into segments that can only name
 * something under the root, and the real path (symlinks resolved) is then required to stay
 * under the real root.
 *
 * @module
 */

/**
 * Why a request path names no file under the root:
 * - `"malformed"`: a percent-escape that is not `%XX`, or bytes that are not UTF-8;
 * - `"invalid"`: NUL, a backslash, or an encoded `/` in a segment;
 * - `"traversal"`: a `..` segment, or a first segment that is a drive (`C:`);
 * - `"directory"`: an empty path, or one that ends in `/` or `/.`.
 */
export type PathRejection = "malformed" | "invalid" | "traversal" | "directory";

/** Options of {@linkcode fileSegments}. */
export interface FileSegmentsOptions {
  /**
   * Whether to percent-decode each segment once (a raw request path), or take the path as
   * already decoded (a WSGI `PATH_INFO`).
   */
  decode: boolean;
}

const DRIVE = /^[A-Za-z]:/;

/**
 * Splits a path below a mount point into the segments of a file under the root, in the order
 * pillarjs/send checks them: percent-decode each segment once, then reject NUL, backslashes
 * and encoded separators, then `..` segments. Empty and `.` segments are dropped, so leading
 * slashes cannot make the path absolute.
 *
 * @param path The path below the mount point, with or without a leading `/`.
 * @param options Whether to percent-decode.
 * @returns The segments (never empty, never `..`), or why the path names no file.
 *
 * @example
 * ```ts
 * import { fileSegments } from "./file_path.ts";
 * import assert from "node:assert/strict";
 *
 * const decode = { decode: true };
 * assert.deepEqual(fileSegments("/css//./caf%C3%A9.css", decode), ["css", "café.css"]);
 * assert.equal(fileSegments("/a/%zz", decode), "malformed");
 * assert.equal(fileSegments("/a%2f..%2fb", decode), "invalid");
 * assert.equal(fileSegments("/a/%2e%2e/b", decode), "traversal");
 * assert.equal(fileSegments("/docs/", decode), "directory");
 * assert.equal(fileSegments("/a\\b", { decode: false }), "invalid");
 * ```
 */
export function fileSegments(
  path: string,
  options: FileSegmentsOptions,
): string[] | PathRejection {
  const segments: string[] = [];
  let traversal = false;
  let last = "";
  let start = 0;
  // 1. each segment: decode once, then reject NUL, backslashes and encoded separators
  while (start <= path.length) {
    let end = path.indexOf("/", start);
    if (end === -1) end = path.length;
    let segment = path.slice(start, end);
    start = end + 1;
    if (options.decode && segment.includes("%")) {
      try {
        segment = decodeURIComponent(segment);
      } catch {
        return "malformed";
      }
      if (segment.includes("/")) return "invalid";
    }
    if (segment.includes("\0") || segment.includes("\\")) return "invalid";
    last = segment;
    // 2. `.` and empty segments name the same directory; `..` would leave it
    if (segment === "" || segment === ".") continue;
    if (segment === "..") traversal = true;
    else segments.push(segment);
  }
  // 3. `..` anywhere (checked after decoding, so a malformed path is a 400 first) and drives
  if (traversal || (segments.length > 0 && DRIVE.test(segments[0]))) return "traversal";
  // 4. a path ending in `/` or `/.` names a directory, never a file
  if (segments.length === 0 || last === "" || last === ".") return "directory";
  return segments;
}

/**
 * Returns a real root directory with one trailing separator: the prefix every real path under
 * it starts with (`/srv/static/`, never `/srv/static`, so `/srv/static_evil` is outside).
 *
 * @param realRoot The root with symlinks resolved.
 * @returns The root with a trailing separator.
 *
 * @example
 * ```ts
 * import { isUnderRoot, rootBase } from "./file_path.ts";
 * import assert from "node:assert/strict";
 *
 * const base = rootBase("/srv/static");
 * assert.equal(base, "/srv/static/");
 * assert.equal(isUnderRoot(base, "/srv/static/app.css"), true);
 * assert.equal(isUnderRoot(base, "/srv/static_evil/app.css"), false);
 * assert.equal(isUnderRoot(base, "/srv/static"), false);
 * ```
 */
export function rootBase(realRoot: string): string {
  const sep = realRoot.includes("/") ? "/" : "\\";
  return realRoot.endsWith(sep) ? realRoot : realRoot + sep;
}

/**
 * Whether a real path (symlinks resolved) lies strictly under the root.
 *
 * @param base The real root from {@linkcode rootBase}, with its trailing separator.
 * @param realPath A path with symlinks resolved.
 * @returns `true` when `realPath` is inside the root and is not the root itself.
 */
export function isUnderRoot(base: string, realPath: string): boolean {
  return realPath.length > base.length && realPath.startsWith(base);
}

/**
 * Whether a real path has a segment that starts with a dot (a dotfile or a dot directory such
 * as `.git`) at or after `from`, the length of the root's {@linkcode rootBase}; `/` and `\`
 * both separate segments.
 *
 * @param realPath A path with symlinks resolved.
 * @param from Where the part below the root starts.
 * @returns `true` when a segment below the root starts with `.`.
 *
 * @example
 * ```ts
 * import { hasDotSegment } from "./file_path.ts";
 * import assert from "node:assert/strict";
 *
 * const base = "/srv/.sites/static/";
 * assert.equal(hasDotSegment(base + "app.css", base.length), false);
 * assert.equal(hasDotSegment(base + ".env", base.length), true);
 * assert.equal(hasDotSegment(base + ".git/config", base.length), true);
 * assert.equal(hasDotSegment(base + "a/.well-known/x", base.length), true);
 * ```
 */
export function hasDotSegment(realPath: string, from: number): boolean {
  if (realPath.charCodeAt(from) === 0x2e) return true;
  for (let i = from; i < realPath.length - 1; i++) {
    const c = realPath.charCodeAt(i);
    if ((c === 0x2f || c === 0x5c) && realPath.charCodeAt(i + 1) === 0x2e) return true;
  }
  return false;
}

/**
 * Removes the trailing slashes of a URL prefix (`/static/` and `/static//` become `/static`),
 * in one pass: `/\/+$/` backtracks quadratically on a long run of slashes.
 *
 * @param prefix A URL path prefix.
 * @returns The prefix without trailing slashes (`""` for `"/"`).
 *
 * @example
 * ```ts
 * import { trimTrailingSlashes } from "./file_path.ts";
 * import assert from "node:assert/strict";
 *
 * assert.equal(trimTrailingSlashes("/static//"), "/static");
 * assert.equal(trimTrailingSlashes("/"), "");
 * ```
 */
export function trimTrailingSlashes(prefix: string): string {
  let end = prefix.length;
  while (end > 0 && prefix.charCodeAt(end - 1) === 0x2f) end--;
  return prefix.slice(0, end);
}

/**
 * The rest of a raw request path below a URL prefix (`""` when the path is the prefix itself),
 * or `undefined` when the path is outside it. The prefix is written as a client sends it
 * (percent-encoded, no trailing slash, `""` for the root) and matched on whole segments; each
 * segment of a path with escapes is compared decoded, so escapes that differ only in case or
 * encode a character that needs none (`/caf%c3%a9`, `/st%61tic`) match, as RFC 3986 §6.2.2
 * makes them the same path. An encoded `/` never matches a separator.
 *
 * @param path The raw request path.
 * @param prefix The percent-encoded prefix.
 * @returns The path below the prefix, starting with `/` unless it is empty.
 *
 * @example
 * ```ts
 * import { pathBelow } from "./file_path.ts";
 * import assert from "node:assert/strict";
 *
 * assert.equal(pathBelow("/static/app.css", "/static"), "/app.css");
 * assert.equal(pathBelow("/st%61tic/app.css", "/static"), "/app.css");
 * assert.equal(pathBelow("/caf%c3%a9", "/caf%C3%A9"), "");
 * assert.equal(pathBelow("/staticfoo", "/static"), undefined);
 * assert.equal(pathBelow("/a%2Fb/x", "/a/b"), undefined);
 * ```
 */
export function pathBelow(path: string, prefix: string): string | undefined {
  if (
    path.startsWith(prefix) &&
    (path.length === prefix.length || path.charCodeAt(prefix.length) === 0x2f)
  ) return path.slice(prefix.length);
  if (!path.includes("%")) return undefined;
  let at = 0;
  for (let from = 0; from < prefix.length;) {
    if (path.charCodeAt(at) !== 0x2f) return undefined;
    const next = segmentEnd(prefix, from + 1);
    const end = segmentEnd(path, at + 1);
    try {
      const segment = decodeURIComponent(path.slice(at + 1, end));
      if (segment !== decodeURIComponent(prefix.slice(from + 1, next))) return undefined;
    } catch {
      return undefined; // a malformed escape matches no prefix
    }
    at = end;
    from = next;
  }
  return path.slice(at);
}

function segmentEnd(path: string, from: number): number {
  const slash = path.indexOf("/", from);
  return slash === -1 ? path.length : slash;
}
