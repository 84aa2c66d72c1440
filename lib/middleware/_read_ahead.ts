// Reading a response body ahead without waiting on a stream: compress() and timeout() take a
// body at hand (a string, bytes, JSON) whole, and resume a streamed one where reading stopped.
// Touching `res.body` is avoided until then, since on Deno it turns a body at hand into a
// stream, which is sent chunked instead of with its Content-Length.

/** What {@linkcode readAhead} read. */
export interface Ahead {
  chunks: Uint8Array[];
  total: number;
  /** Whether the chunks are the whole body. */
  done: boolean;
  /** A read that had not settled when reading ahead stopped; the stream resumes with it. */
  pending: Promise<ReadableStreamReadResult<Uint8Array>> | undefined;
}

// A body built from a string or bytes is read to its end within a few microtasks; a streamed
// one (server-sent events) is not, and reading ahead must not wait for its next chunk. So each
// read (after the first, when `waitFirst`) is raced against a short run of microtasks;
// whatever loses is kept.
export async function readAhead(
  reader: ReadableStreamDefaultReader<Uint8Array>,
  max: number,
  waitFirst = true,
): Promise<Ahead> {
  const chunks: Uint8Array[] = [];
  let total = 0;
  let first = waitFirst;
  while (total <= max) {
    const read = reader.read();
    const result = first ? await read : await settledSoon(read);
    first = false;
    if (result === undefined) return { chunks, total, done: false, pending: read };
    if (result.done) return { chunks, total, done: true, pending: undefined };
    chunks.push(result.value);
    total += result.value.byteLength;
  }
  return { chunks, total, done: false, pending: undefined };
}

const TICKS = 4;

async function settledSoon<T>(promise: Promise<T>): Promise<T | undefined> {
  let settled = false;
  let value: T | undefined;
  promise.then((v) => {
    settled = true;
    value = v;
  }, () => {
    settled = true; // the stream's error surfaces when the pending read is used
  });
  for (let i = 0; i < TICKS && !settled; i++) await null;
  return value;
}

// The body again: the chunks read ahead, the read left pending, then the rest of the reader.
export function resume(
  reader: ReadableStreamDefaultReader<Uint8Array>,
  chunks: Uint8Array[],
  pending: Promise<ReadableStreamReadResult<Uint8Array>> | undefined,
): ReadableStream<Uint8Array> {
  let index = 0;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (index < chunks.length) {
        controller.enqueue(chunks[index++]);
        return;
      }
      const read = pending ?? reader.read();
      pending = undefined;
      const result = await read;
      if (result.done) controller.close();
      else controller.enqueue(result.value);
    },
    cancel(reason) {
      return reader.cancel(reason);
    },
  }, { highWaterMark: 0 });
}
