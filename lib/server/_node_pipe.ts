// Writing a streamed body onto Node's response: the stream step of _node_send.ts, loaded on
// the first response whose body is a stream (apps that answer with strings and bytes never
// load it, and bundlers that split code keep it out of the entry chunk). It imports no value
// from the eager modules: a splitting bundler would otherwise move those into a chunk of their
// own, which the entry would then load too.
import type { Head, Reporter, Writer } from "./_node_writer.ts";

function drained(res: Writer): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off("drain", done);
      res.off("close", done);
      resolve();
    };
    res.on("drain", done);
    res.on("close", done);
  });
}

function nextTurn(): Promise<undefined> {
  return new Promise((resolve) => setImmediate(resolve, undefined));
}

// The Content-Length a head declares; -1 when it declares none (or one that is not a number).
function declaredLength(head: Head): number {
  for (let i = 0; i < head.length; i += 2) {
    if (head[i] !== "content-length") continue;
    const value = head[i + 1].trim();
    return /^\d+$/.test(value) ? Number(value) : -1;
  }
  return -1;
}

/**
 * Writes a streamed body: reads, writes, and waits for 'drain' whenever Node's buffer is full;
 * a client that goes away cancels the stream. A body must deliver the Content-Length it
 * declares: node:http ends a message that falls short as if it were whole, and the
 * connection's next response would then arrive inside this body (RFC 9112 §6.3: the client
 * counts Content-Length octets). A body that falls short cuts the connection (HTTP/1.1) or
 * resets the stream (HTTP/2) after the bytes it delivered, and bytes past the declared length
 * are not sent, as Deno.serve does over HTTP/1.1; an empty body that declared a length becomes
 * a 500 (its head is not out yet). A failure cuts the response with `fail` (the error answer of
 * _node_send.ts) and goes to `reporter`, as Deno.serve reports a failed body to its `onError`
 * (a client that went away is no failure); the promise rejects only when the body cannot be
 * read at all (a locked stream).
 */
export async function pipe(
  res: Writer,
  status: number,
  head: Head,
  length: boolean,
  body: ReadableStream<Uint8Array>,
  fail: (res: Writer) => void,
  reporter?: Reporter,
): Promise<void> {
  const reader = body.getReader();
  const declared = length ? declaredLength(head) : -1;
  let gone = false;
  const onClose = () => {
    if (res.writableFinished) return;
    gone = true;
    reader.cancel(new Error("The client went away")).catch(() => {});
  };
  res.once("close", onClose);
  try {
    const first = await reader.read();
    if (first.done) {
      if (declared > 0) return fail(res); // shorter than its Content-Length
      if (!length) head.push("content-length", "0");
      res.writeHead(status, head);
      res.end();
      return;
    }
    // A body that ends right after its first chunk goes out with a Content-Length; one that
    // goes on (server-sent events) is not held back waiting for its second chunk.
    let pending = reader.read();
    const second = await Promise.race([pending, nextTurn()]);
    if (second !== undefined && second.done && first.value.byteLength >= declared) {
      const chunk = declared === -1 ? first.value : first.value.subarray(0, declared);
      if (!length) head.push("content-length", `${chunk.byteLength}`);
      res.writeHead(status, head);
      res.end(chunk);
      return;
    }
    res.writeHead(status, head);
    let sent = 0;
    let next: ReadableStreamReadResult<Uint8Array> = first;
    for (;;) {
      let chunk = next.value!;
      const over = declared !== -1 && sent + chunk.byteLength > declared;
      if (over) {
        chunk = chunk.subarray(0, declared - sent);
        pending.catch(() => {});
        reader.cancel().catch(() => {});
      }
      sent += chunk.byteLength;
      // A body that fails while a client that stopped reading holds the write (an event stream
      // the server's shutdown cuts) ends the response now, not once the client reads again.
      if (!res.write(chunk)) await Promise.race([drained(res), reader.closed]);
      if (over) break;
      next = await pending;
      if (next.done || gone) break;
      pending = reader.read();
    }
    if (gone) return;
    if (sent < declared) fail(res);
    else res.end();
  } catch (error) {
    // The body failed midway (or the client left): abort, so the client sees a cut body.
    if (!gone) {
      fail(res);
      reporter?.onError?.(error);
    }
  } finally {
    res.off("close", onClose);
  }
}
