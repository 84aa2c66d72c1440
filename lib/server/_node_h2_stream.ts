// The writer that send() answers an HTTP/2 stream through. Loaded by _node_h2.ts on the first
// stream a server gets, so that apps served over HTTP/1.1 only do not load it, and bundlers that
// split code put it in a chunk of its own (the Node core size budget, scripts/size_check.ts).
// It imports no value: a chunk that shared modules with the entry would split them out of it.
import type * as http2 from "node:http2";
import type { Head, Writer } from "./_node_send.ts";

// An HTTP/2 stream as send() writes to it. The head is held until the first write or end(),
// so that a response without a body goes out as one HEADERS frame that ends the stream.
export class StreamWriter implements Writer {
  readonly http2 = true;
  readonly #stream: http2.ServerHttp2Stream;
  #head: http2.OutgoingHttpHeaders | undefined = undefined;

  constructor(stream: http2.ServerHttp2Stream) {
    this.#stream = stream;
  }

  get headersSent(): boolean {
    return this.#stream.headersSent;
  }

  // A stream the client reset has its writable side ended too: it is `aborted` then.
  get writableFinished(): boolean {
    return this.#stream.writableFinished && !this.#stream.aborted;
  }

  get destroyed(): boolean {
    return this.#stream.destroyed;
  }

  writeHead(status: number, head: Head): void {
    const headers: http2.OutgoingHttpHeaders = { ":status": status };
    for (let i = 0; i < head.length; i += 2) {
      const name = head[i] as string;
      const value = head[i + 1];
      const seen = headers[name];
      headers[name] = seen === undefined
        ? value
        : Array.isArray(seen)
        ? [...seen, String(value)]
        : [String(seen), String(value)]; // Set-Cookie, one field each (RFC 9113 §8.2.3)
    }
    this.#head = headers;
  }

  #respond(endStream: boolean): boolean {
    const stream = this.#stream;
    if (stream.destroyed || stream.closed) return false; // the client reset it meanwhile
    const head = this.#head;
    if (head !== undefined) {
      this.#head = undefined;
      stream.respond(head, { endStream });
    }
    return true;
  }

  write(chunk: Uint8Array): boolean {
    return this.#respond(false) ? this.#stream.write(chunk) : true;
  }

  end(chunk?: string | Uint8Array): void {
    if (chunk === undefined) {
      if (this.#head !== undefined) this.#respond(true);
      else if (!this.#stream.destroyed) this.#stream.end();
    } else if (this.#respond(false)) this.#stream.end(chunk);
  }

  // RST_STREAM with INTERNAL_ERROR. Not close(): it ends the writable side first, and the
  // END_STREAM that goes out then would tell the client that a cut body was whole.
  destroy(): void {
    this.#stream.destroy(new Error("The response was cut"));
  }

  on(event: "drain" | "close", fn: () => void): void {
    this.#stream.on(event, fn);
  }

  once(event: "close", fn: () => void): void {
    this.#stream.once(event, fn);
  }

  off(event: "drain" | "close", fn: () => void): void {
    this.#stream.off(event, fn);
  }
}
