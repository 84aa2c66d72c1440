/**
 * `compress()`: compresses response bodies with the best coding the client accepts (br, zstd
 * where the runtime has it, gzip, deflate). Its own entry point (`weft/compress`), so that
 * apps that do not compress carry none of it.
 *
 * @module
 */
import { loadCompression } from "../server/deno.ts";
import type { ContentCoding, RuntimeCompression } from "../server/types.ts";
import type { Middleware } from "../types.ts";
import { negotiateEncoding } from "./_accept_encoding.ts";
import { appendVary, editHeaders } from "./_headers.ts";
import { endedBody } from "../http/_ended_body.ts";
import { readAhead, resume } from "./_read_ahead.ts";
import { concat } from "../http/read_limited.ts";
import { utf8Length } from "../http/_utf8.ts";

export type { ContentCoding };

/** Compression levels per coding. */
export interface CompressionLevels {
  /**
   * Brotli quality, 0–11 (its own default, 11, is for build-time compression).
   *
   * @default {4}
   */
  br?: number;
  /**
   * zstd level, 1–22.
   *
   * @default {3}
   */
  zstd?: number;
  /**
   * gzip level, 1–9 (0 stores, -1 is zlib's default); another is a `TypeError` when
   * `compress()` is created.
   *
   * @default {6}
   */
  gzip?: number;
  /**
   * deflate (zlib format) level, 1–9 (0 stores, -1 is zlib's default); another is a
   * `TypeError` when `compress()` is created.
   *
   * @default {6}
   */
  deflate?: number;
}

/** Options of {@linkcode compress}. */
export interface CompressOptions {
  /**
   * The codings to use, preferred first: the client's weights decide, this order breaks ties.
   * Codings the runtime cannot produce (zstd before Node 22.15) are left out.
   *
   * @default {["br", "zstd", "gzip", "deflate"]}
   */
  encodings?: readonly ContentCoding[];
  /**
   * Bodies smaller than this many bytes are sent as they are (a declared `Content-Length`
   * decides; a body without one is measured if it is at hand).
   *
   * @default {1024}
   */
  threshold?: number;
  /**
   * Compression levels. Whole bodies and node:zlib streams use them; Deno's
   * CompressionStream, which streams gzip, deflate and br there, has no level setting.
   *
   * @default {{ br: 4, zstd: 3, gzip: 6, deflate: 6 }}
   */
  levels?: CompressionLevels;
  /**
   * Which `Content-Type`s are compressed (called with the header value). The default takes
   * `text/*`, JSON (`application/json`, `*+json`), XML (`application/xml`, `*+xml`, SVG
   * included), JavaScript and WebAssembly, and nothing else: images, audio, video, fonts in
   * WOFF and archives are already compressed.
   */
  filter?: (contentType: string) => boolean;
}

const DEFAULT_ENCODINGS: readonly ContentCoding[] = ["br", "zstd", "gzip", "deflate"];
const DEFAULT_LEVELS = { br: 4, zstd: 3, gzip: 6, deflate: 6 } as const;
/** Bodies at hand up to this size are compressed in one call; larger ones are streamed. */
const MAX_WHOLE_BYTES = 262_144;
const COMPRESSIBLE = /* @__PURE__ */ new Set([
  "application/json",
  "application/javascript",
  "application/x-javascript",
  "application/ecmascript",
  "application/xml",
  "application/wasm",
  "application/x-ndjson",
]);

function fail(detail: string): never {
  throw new TypeError(`Cannot create compress(): ${detail}`);
}

/**
 * Whether a `Content-Type` is worth compressing: `text/*`, JSON, XML (SVG included),
 * JavaScript and WebAssembly.
 *
 * @param contentType A `Content-Type` value.
 * @returns Whether {@linkcode compress} compresses it by default.
 *
 * @example
 * ```ts
 * import { isCompressible } from "./compress.ts";
 * import assert from "node:assert/strict";
 *
 * assert.equal(isCompressible("application/json; charset=utf-8"), true);
 * assert.equal(isCompressible("image/svg+xml"), true);
 * assert.equal(isCompressible("image/png"), false);
 * ```
 */
export function isCompressible(contentType: string): boolean {
  const semi = contentType.indexOf(";");
  const type = (semi === -1 ? contentType : contentType.slice(0, semi)).trim().toLowerCase();
  return type.startsWith("text/") || type.endsWith("+json") || type.endsWith("+xml") ||
    COMPRESSIBLE.has(type);
}

/**
 * Compresses response bodies by the request's `Accept-Encoding` (RFC 9110 §12.5.3: q-values,
 * `*`, `identity`; the first of `encodings` wins a tie).
 *
 * 1. Left as they are: responses without a body, 1xx, 204, 206 and 304 (but see 2 and 4),
 *    responses that already have a `Content-Encoding` (precompressed files of
 *    `staticFiles({ precompressed: true })` keep their priority) or a `Content-Range`,
 *    `Cache-Control: no-transform`, types the filter refuses and bodies below the threshold.
 *    A HEAD answer gets the head its GET would have (the coding, the weak `ETag`), without a
 *    `Content-Length`, which only compressing the body would tell.
 * 2. Every other response gets `Vary: Accept-Encoding` (merged with the `Vary` it has), also
 *    when the client accepts no coding; so does a 206 of a type its 200 would be compressed
 *    as (RFC 9110 §15.3.7: a 206 carries the `Vary` its 200 would have).
 * 3. A body at hand (a string, bytes, JSON; up to 256 KiB) is compressed in one call and gets
 *    its new `Content-Length`. A streamed body is compressed as it streams, flushed after every
 *    chunk so that server-sent events still arrive one by one, without `Content-Length`.
 * 4. A strong `ETag` becomes weak (`W/"…"`): the compressed bytes differ, but the app's
 *    validator still matches with the weak comparison of `If-None-Match`. A 304 for a request
 *    that named the weak form gets the weak form back, and `Vary: Accept-Encoding` as its 200
 *    had (so does a 304 whose `Content-Type` the filter accepts). `Accept-Ranges` is removed.
 *
 * Request bodies are never decompressed.
 *
 * @param options Codings, threshold, levels and the type filter.
 * @returns The middleware.
 * @throws {TypeError} When an option is invalid.
 *
 * @example Compress JSON for clients that accept gzip
 * ```ts
 * import { chain, get, router } from "../../mod.ts";
 * import { compress } from "./compress.ts";
 * import assert from "node:assert/strict";
 *
 * const items = Array.from({ length: 100 }, (_, id) => ({ id, name: `item ${id}` }));
 * const app = chain([compress()], router([get("/items", (ctx) => ctx.json(items))]));
 * const res = await app.fetch(
 *   new Request("http://localhost/items", { headers: { "accept-encoding": "gzip" } }),
 * );
 * assert.equal(res.headers.get("content-encoding"), "gzip");
 * assert.equal(res.headers.get("vary"), "Accept-Encoding");
 * const plain = res.body!.pipeThrough(new DecompressionStream("gzip"));
 * assert.deepEqual(JSON.parse(await new Response(plain).text()), items);
 * ```
 */
export function compress(options?: CompressOptions): Middleware;
export function compress(options: CompressOptions = {}): Middleware {
  // 1. options, checked once
  if (typeof options !== "object" || options === null) fail("options must be an object");
  const wanted = options.encodings ?? DEFAULT_ENCODINGS;
  for (const coding of wanted) {
    if (!DEFAULT_ENCODINGS.includes(coding)) fail(`unknown coding ${JSON.stringify(coding)}`);
  }
  const threshold = options.threshold ?? 1024;
  if (!Number.isSafeInteger(threshold) || threshold < 0) {
    fail(`threshold must be a non-negative integer, got ${String(threshold)}`);
  }
  const levels = { ...DEFAULT_LEVELS, ...options.levels };
  for (const [coding, level] of Object.entries(levels)) {
    if (!Number.isInteger(level)) fail(`levels.${coding} must be an integer`);
  }
  // zlib throws for a gzip or deflate level outside -1 to 9 (-1 is its default, 6), on every
  // body it would compress: a 500 each, so it is refused here (brotli and zstd clamp theirs)
  for (const coding of ["gzip", "deflate"] as const) {
    if (levels[coding] < -1 || levels[coding] > 9) {
      fail(`levels.${coding} must be from 1 to 9 (or 0 to store, -1 for zlib's default)`);
    }
  }
  const filter = options.filter ?? isCompressible;
  if (typeof filter !== "function") fail("filter must be a function");

  let runtime: RuntimeCompression | undefined;
  let available: readonly ContentCoding[] = [];
  let loading: Promise<void> | undefined;
  function load(): Promise<void> {
    return loading ??= loadCompression().then((loaded) => {
      runtime = loaded;
      available = wanted.filter((coding) => loaded.codings.includes(coding));
    }, (error: unknown) => {
      loading = undefined; // a failed load (the request gets a 500) is tried again next time
      throw error;
    });
  }

  // 2. whether the response may be compressed at all (and so varies by Accept-Encoding; its
  //    size decides later, the same way for a GET and its HEAD)
  function eligible(res: Response): boolean {
    const { status, headers } = res;
    if (status < 200 || status === 204 || status === 206 || status === 304) return false;
    return !headers.has("content-range") && transformable(headers);
  }

  // whether the representation could be compressed, whatever the status: what decides if its
  // 200 varies by Accept-Encoding
  function transformable(headers: Headers): boolean {
    if (headers.has("content-encoding")) return false;
    const type = headers.get("content-type");
    if (type === null || !filter(type)) return false;
    const cacheControl = headers.get("cache-control");
    return cacheControl === null || !cacheControl.toLowerCase().includes("no-transform");
  }

  return async function compress(ctx, next) {
    const accept = ctx.header("accept-encoding");
    const head = ctx.req.method === "HEAD";
    let res = await next();
    if (res.status === 304) return notModified(res, ctx.header("if-none-match"), filter);
    // a 206 carries the Vary a 200 to the same request would have (RFC 9110 §15.3.7)
    if (res.status === 206) {
      return transformable(res.headers)
        ? editHeaders(res, (headers) => appendVary(headers, "Accept-Encoding"))
        : res;
    }
    // (res.body is not read before it is needed: on Deno, reading it turns a body at hand into
    // a stream, which is then sent chunked instead of with its Content-Length)
    if (!eligible(res)) return res;
    res = editHeaders(res, (headers) => appendVary(headers, "Accept-Encoding"));
    const declared = res.headers.get("content-length");
    if (declared !== null && Number(declared) < threshold) return res;
    if (runtime === undefined) await load();
    const coding = negotiateEncoding(accept, available);
    if (coding === null) return res;
    if (head) {
      // HEAD: the head the GET would have (RFC 9110 §9.3.2). A GET without a body is not
      // compressed; otherwise the head goes without its length, which only compressing the body
      // would tell (§8.6 allows none; _ended_body.ts says why not null). A body given with it
      // (compress() on one route, before the router's HEAD) is cancelled: nobody reads it.
      if (res.body === null && declared === null) return res;
      res.body?.cancel().catch(() => {});
      return encoded(res, coding, endedBody(), null);
    }
    const level = levels[coding];
    const compression = runtime!;

    // 3. a body at hand is compressed whole; anything else streams, and its headers go out
    //    before its first chunk (an event stream's first event may come much later). The
    //    string or bytes the response was made from are taken as they are where the runtime
    //    tells (a string: up to MAX_WHOLE_BYTES code units); otherwise the body is read ahead.
    const given = compression.atHand(res);
    if (given !== undefined && given.length <= MAX_WHOLE_BYTES) {
      // a string's UTF-8 length as far as the comparison needs it
      const bytes = typeof given === "string" ? utf8Length(given, threshold - 1) : given.byteLength;
      if (bytes < threshold) return res;
      const out = compression.compress(coding, given, level);
      return encoded(res, coding, out, String(out.byteLength));
    }
    const body = res.body;
    if (body === null) return res;
    const reader = body.getReader();
    const ahead = declared !== null && Number(declared) > MAX_WHOLE_BYTES
      ? { chunks: [], total: 0, done: false, pending: undefined }
      : await readAhead(reader, MAX_WHOLE_BYTES, false);
    if (ahead.done) {
      const whole = concat(ahead.chunks, ahead.total);
      if (whole.byteLength < threshold) return new Response(whole, res);
      const out = compression.compress(coding, whole, level);
      return encoded(res, coding, out, String(out.byteLength));
    }
    const source = resume(reader, ahead.chunks, ahead.pending);
    return encoded(res, coding, source.pipeThrough(compression.stream(coding, level)), null);
  };
}

// 4. the new response: the coding, the length or none, a weak ETag, no ranges
function encoded(
  res: Response,
  coding: ContentCoding,
  body: BodyInit,
  length: string | null,
): Response {
  const headers = new Headers(res.headers);
  headers.set("content-encoding", coding);
  if (length === null) headers.delete("content-length");
  else headers.set("content-length", length);
  headers.delete("accept-ranges");
  const etag = headers.get("etag");
  if (etag !== null && etag.startsWith('"')) headers.set("etag", `W/${etag}`);
  return new Response(body, { status: res.status, statusText: res.statusText, headers });
}

// A 304 carries the Vary its 200 would have (RFC 9110 §15.4.5): where the client revalidates an
// encoded representation (its If-None-Match names the weak ETag compress() gave it), or the 304
// names a compressible type. Its strong ETag is made weak when the client holds the encoded one.
function notModified(
  res: Response,
  ifNoneMatch: string | null,
  filter: (type: string) => boolean,
): Response {
  const etag = res.headers.get("etag");
  const encodedHeld = etag !== null && ifNoneMatch !== null && etag.startsWith('"') &&
    ifNoneMatch.includes(`W/${etag}`);
  const type = res.headers.get("content-type");
  if (!encodedHeld && (type === null || !filter(type))) return res;
  return editHeaders(res, (headers) => {
    if (encodedHeld) headers.set("etag", `W/${etag}`);
    appendVary(headers, "Accept-Encoding");
  });
}
