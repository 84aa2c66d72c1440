// The body of a HEAD answer whose GET has a length nobody knows yet (an event stream, a body
// compressed as it streams). RFC 9110 §8.6 allows leaving Content-Length out, but for a
// response without a body Deno.serve writes `Content-Length: 0`, which would be wrong; for a
// body that ends at once it writes none. Node writes a HEAD answer's head as it is given.

/** A body that ends at once: a HEAD answer built with it declares no length on any runtime. */
export function endedBody(): ReadableStream<Uint8Array> {
  return new ReadableStream({ start: (controller) => controller.close() });
}
