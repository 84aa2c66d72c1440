// Answers to HEAD: withoutBody() makes one from the GET's answer (for the router and
// app.fetch()), and endedBody() is the body of one whose GET has a length nobody knows yet (an
// event stream, a body compressed as it streams). RFC 9110 §8.6 allows leaving Content-Length out, but for a
// response without a body Deno.serve writes `Content-Length: 0`, which would be wrong; for a
// body that ends at once it writes none. Node writes a HEAD answer's head as it is given.

// The bodies endedBody() made: a HEAD answer that already has one is left as it is.
const ENDED = /* @__PURE__ */ new WeakSet<ReadableStream<Uint8Array>>();

/** A body that ends at once: a HEAD answer built with it declares no length on any runtime. */
export function endedBody(): ReadableStream<Uint8Array> {
  const body = new ReadableStream<Uint8Array>({ start: (controller) => controller.close() });
  ENDED.add(body);
  return body;
}

// RFC 9110 §9.3.2 and §8.6: the answer to HEAD is the GET response without its content, with
// the Content-Length the GET would have, or none. A body that is at hand (a string, bytes, a
// stream that ends at once) is counted; one that is not ready by the next macrotask, such as an
// event stream, is cancelled and the length left out. Nothing is kept in memory. Used by the
// router's HEAD of a GET route and by app.fetch() for every HEAD answer (a server strips the
// body itself, but app.fetch() is what `deno serve` and tests see).
export async function withoutBody(res: Response): Promise<Response> {
  const body = res.body;
  if (body === null || ENDED.has(body)) return res;
  if (res.headers.has("content-length")) {
    body.cancel().catch(() => {});
    return new Response(null, res);
  }
  const length = await countBytes(body);
  if (length === undefined) return new Response(endedBody(), res); // declares no length
  const head = new Response(null, res);
  head.headers.set("content-length", String(length));
  return head;
}

async function countBytes(body: ReadableStream<Uint8Array>): Promise<number | undefined> {
  const reader = body.getReader();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<undefined>((resolve) => timer = setTimeout(() => resolve(undefined), 0));
  let length = 0;
  try {
    for (;;) {
      const chunk = await Promise.race([reader.read(), late]);
      if (chunk === undefined) return undefined;
      if (chunk.done) return length;
      length += chunk.value.byteLength;
    }
  } catch {
    return undefined;
  } finally {
    clearTimeout(timer);
    reader.cancel().catch(() => {});
  }
}
