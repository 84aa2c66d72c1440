/**
 * Reading a request body whole, but never more than a limit: the one reader behind
 * `ctx.body()`, `bodyLimit()` and the WSGI gateway.
 *
 * @module
 */
import { HttpError } from "./http_error.ts";

/**
 * The error of a body over its limit: a 413 with a problem body.
 *
 * @param limit The limit, in bytes.
 * @returns The `HttpError` to throw or answer with.
 */
export function tooLarge(limit: number): HttpError {
  return new HttpError(413, `The request body exceeds the limit of ${limit} bytes`);
}

/**
 * Reads a stream to the end, stopping (and cancelling it) as soon as more than `limit` bytes
 * arrived. Errors of the stream propagate.
 *
 * @param stream The body stream (`null` reads as empty).
 * @param limit The largest number of bytes accepted.
 * @returns The bytes, or `null` when the stream held more than `limit`.
 *
 * @example
 * ```ts
 * import { readLimited } from "./read_limited.ts";
 * import assert from "node:assert/strict";
 *
 * assert.equal((await readLimited(new Response("hello").body, 10))?.byteLength, 5);
 * assert.equal(await readLimited(new Response("hello").body, 4), null);
 * ```
 */
export async function readLimited(
  stream: ReadableStream<Uint8Array> | null,
  limit: number,
): Promise<Uint8Array<ArrayBuffer> | null> {
  if (stream === null) return new Uint8Array(0);
  const reader = stream.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > limit) {
      reader.cancel().catch(() => {});
      return null;
    }
    chunks.push(value);
  }
  return concat(chunks, total);
}

/**
 * Joins byte chunks into one array.
 *
 * @param chunks The chunks, in order.
 * @param total Their total length, when known.
 * @returns One array (the only chunk itself when there is one and it owns its buffer).
 */
export function concat(
  chunks: readonly Uint8Array[],
  total: number = chunks.reduce((sum, c) => sum + c.byteLength, 0),
): Uint8Array<ArrayBuffer> {
  if (chunks.length === 1 && chunks[0].buffer instanceof ArrayBuffer) {
    return chunks[0] as Uint8Array<ArrayBuffer>;
  }
  const out = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    out.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return out;
}
