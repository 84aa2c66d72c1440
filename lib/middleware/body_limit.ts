/**
 * `bodyLimit(bytes)`: a per-chain or per-route request body limit, enforced before the
 * handler runs.
 *
 * @module
 */
import { HttpError } from "../http/http_error.ts";
import { readLimited, tooLarge } from "../http/read_limited.ts";
import { boundedBody, replaceBody } from "../_bounded_request.ts";
import { REQUEST_TARGET } from "../server/types.ts";
import type { Middleware } from "../types.ts";

/** Options of {@linkcode bodyLimit}. */
export interface BodyLimitOptions {
  /**
   * How a body without `Content-Length` (HTTP/1.1 chunked, or HTTP/2 without the header) is
   * bounded. `"buffer"`: it is read, up to the limit, before the handler runs, and an
   * oversize body is answered with 413 before the handler can act on the request.
   * `"stream"`: the handler gets the body as a stream that fails with a 413 `HttpError` once
   * the limit is passed, so large uploads can be written out without being held in memory;
   * the handler must read the body before it acts (a handler that never reads it runs
   * whatever its size). Nothing is read before the handler reads, and what it leaves unread is
   * cancelled once the response has gone out, so the connection is released.
   *
   * @default {"buffer"}
   */
  chunked?: "buffer" | "stream";
}

/**
 * Overrides the request body limit (1 MiB by default) for the chain or route it is in: it
 * sets `ctx.bodyLimit`, which `ctx.body()` and JSON decoding obey, and answers 413 with a
 * problem body before the handler runs when the body is larger:
 *
 * 1. a declared `Content-Length` beyond the limit is refused at once, unread;
 * 2. a body without `Content-Length` (chunked) is read ahead up to the limit and refused as
 *    soon as it passes it; a body within the limit reaches the handler as usual (see
 *    {@linkcode BodyLimitOptions.chunked} for streaming instead).
 *
 * So a handler that never reads the body cannot turn an oversize upload into a 200. The
 * handler reads the request (`ctx.req`) through the limit. A body read ahead is served from
 * memory by a copy of the request (same method, URL, headers and signal) that replaces
 * `ctx.req`, so that a later middleware can still rewrite it with `new Request(ctx.req, init)`.
 * Limits nest: an outer `bodyLimit` refuses what is over its limit before an inner one runs. Put it after `auth()` in a chain, so that uploads are only read for
 * authenticated requests, and before any middleware that reads the body (`describe({ body })`,
 * a logger of bodies): after one, it throws a `TypeError` (a 500) that says so.
 *
 * @param bytes The largest accepted body, in bytes.
 * @param options How bodies without `Content-Length` are bounded.
 * @returns The middleware.
 * @throws {RangeError} When `bytes` is not a non-negative integer.
 *
 * @example
 * ```ts
 * import { chain, post, router } from "../../mod.ts";
 * import { bodyLimit } from "./body_limit.ts";
 * import assert from "node:assert/strict";
 *
 * let saved = 0;
 * const app = chain([bodyLimit(16)], router([
 *   post("/notes", () => {
 *     saved++; // never reads the body
 *     return new Response("saved");
 *   }),
 * ]));
 * const res = await app.fetch(new Request("http://localhost/notes", {
 *   method: "POST",
 *   body: "this note is far longer than sixteen bytes",
 * }));
 * assert.equal(res.status, 413);
 * assert.equal(res.headers.get("content-type"), "application/problem+json");
 * assert.equal(saved, 0);
 * ```
 */
export function bodyLimit(bytes: number, options?: BodyLimitOptions): Middleware;
export function bodyLimit(bytes: number, options: BodyLimitOptions = {}): Middleware {
  if (!Number.isSafeInteger(bytes) || bytes < 0) {
    throw new RangeError(`Cannot create bodyLimit(): ${bytes} is not a non-negative integer`);
  }
  const chunked = options.chunked ?? "buffer";
  if (chunked !== "buffer" && chunked !== "stream") {
    throw new TypeError(
      `Cannot create bodyLimit(): chunked "${chunked}" is not "buffer" or "stream"`,
    );
  }

  return async function bodyLimit(ctx, next) {
    ctx.bodyLimit = bytes;
    const request = ctx.req; // its body is bounded by ctx.bodyLimit from now on
    const body = boundedBody(request);
    if (body === undefined || body.stream === null) return await next();
    if (request.bodyUsed || body.stream.locked) {
      // read by a middleware before this one, under the limit that applied there
      throw new TypeError(
        "Cannot apply bodyLimit(): the request body was already read; put bodyLimit() before the middleware that reads it",
      );
    }
    // 1. declared length: decide without reading
    const declared = request.headers.get("content-length");
    if (declared !== null) {
      if (Number(declared) > bytes) return tooLarge(bytes).toResponse();
      return await next();
    }
    // 2. no declared length: the handler reads through the limit (what it left unread, the app
    //    releases once the response has gone out)
    if (chunked === "stream") return await next();
    // 3. or the body is read ahead, up to the limit, before the handler runs, and the request
    //    replaced by one that carries the bytes as its own body: the runtime's body of the old
    //    one is used up, and `new Request(ctx.req, init)` in a later middleware reads that
    const bytesRead = await readAhead(body.stream, bytes);
    if (bytesRead instanceof HttpError) return bytesRead.toResponse();
    const copy = withBody(request, bytesRead);
    if (copy !== undefined) ctx.req = copy;
    else replaceBody(request, bytesRead);
    return await next();
  };
}

// A copy of `request` with `bytes` as its body, and the request target the adapter gave it;
// undefined for a method that `new Request` refuses (TRACE, TRACK, CONNECT), whose request
// then serves the bytes itself.
function withBody(request: Request, bytes: Uint8Array<ArrayBuffer>): Request | undefined {
  let copy: Request;
  try {
    copy = new Request(request.url, {
      method: request.method,
      headers: request.headers,
      body: bytes,
      signal: request.signal,
    });
  } catch {
    return undefined;
  }
  const target = (request as { [REQUEST_TARGET]?: string })[REQUEST_TARGET];
  if (target !== undefined) (copy as { [REQUEST_TARGET]?: string })[REQUEST_TARGET] = target;
  return copy;
}

// Reads the whole body if it is within the limit; an HttpError (413, or 400 when the client
// broke off) otherwise. Stops reading as soon as the limit is passed.
async function readAhead(
  stream: ReadableStream<Uint8Array>,
  limit: number,
): Promise<Uint8Array<ArrayBuffer> | HttpError> {
  try {
    return await readLimited(stream, limit) ?? tooLarge(limit);
  } catch (error) {
    if (error instanceof HttpError) return error; // the 413 of the bounded stream itself
    return new HttpError(400, "The request body could not be read", { cause: error });
  }
}
