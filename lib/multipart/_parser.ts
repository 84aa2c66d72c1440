// A streaming multipart/form-data parser (RFC 7578 over RFC 2046 §5.1.1), pulled by its
// consumer: nothing is read from the body until a part or a part's bytes are asked for, so a
// file part streams to its destination with the body's own backpressure, and memory holds at
// most one chunk plus a delimiter's length (or up to twice one part's header block while it is
// read). A chunk is handed out as views of itself; it is copied only behind the few bytes of a
// delimiter the previous chunk may have begun, or of a header block.
import { HttpError } from "../http/http_error.ts";

/** The limits the parser enforces while it reads; each is a 413 once passed. */
export interface ParserLimits {
  /** Bytes of body read in all. */
  totalBytes: number;
  /** Bytes of one part's header block. */
  headerBytes: number;
}

/** What the parser yields. */
export type ParserEvent =
  | { type: "part"; headers: [string, string][] }
  | { type: "data"; bytes: Uint8Array }
  | { type: "end" } // of the current part's body
  | { type: "done" }; // the close delimiter was read

const CR = 13;
const LF = 10;
const utf8 = /* @__PURE__ */ new TextDecoder();

function bad(detail: string): HttpError {
  return new HttpError(400, `The multipart body is malformed: ${detail}`);
}

/** Finds `needle` in `hay` from `from`; -1 when absent. */
function indexOf(hay: Uint8Array, needle: Uint8Array, from: number): number {
  const first = needle[0];
  const last = hay.length - needle.length;
  for (let i = hay.indexOf(first, from); i !== -1 && i <= last; i = hay.indexOf(first, i + 1)) {
    let j = 1;
    while (j < needle.length && hay[i + j] === needle[j]) j++;
    if (j === needle.length) return i;
  }
  return -1;
}

// How many of `hay`'s last bytes (after `from`) may begin a delimiter that the next chunk
// completes: the longest suffix that is a proper prefix of `needle`. The bytes before it can be
// handed out or skipped now; mostly no suffix qualifies, and the next chunk is then taken whole,
// not copied behind the rest.
function partialAtEnd(hay: Uint8Array, from: number, needle: Uint8Array): number {
  for (let k = Math.min(needle.length - 1, hay.length - from); k > 0; k--) {
    const start = hay.length - k;
    let j = 0;
    while (j < k && hay[start + j] === needle[j]) j++;
    if (j === k) return k;
  }
  return 0;
}

/** The parser over one body; `next()` yields events in order until `done`. */
export class MultipartParser {
  #reader: ReadableStreamDefaultReader<Uint8Array>;
  #delimiter: Uint8Array;
  #limits: ParserLimits;
  // The unread bytes are #buffer[#pos..]. A buffer's bytes are never written after it was
  // filled (a join may fill the room behind them), so data events can hand out views of it.
  #buffer: Uint8Array;
  // The array the last join copied into, when #buffer is a view of it: a join has room behind
  // its bytes, filled by the joins after it (so never where a view was handed out).
  #store: Uint8Array | undefined;
  #pos = 0;
  #eof = false;
  #total = 0;
  #state: "delimiter" | "headers" | "body" | "done" = "delimiter";
  // A part's last bytes were handed out; its end is reported on the next read of its body.
  #pendingEnd = false;
  // How far past #pos the header block in reading has been scanned: the transport padding
  // skipped, and where the search for its end resumes (bytes that arrive one at a time would
  // otherwise be scanned again with every chunk, quadratic in the block's length).
  #padded = 0;
  #searched = 0;
  #failure: { error: unknown } | undefined;

  constructor(body: ReadableStream<Uint8Array>, boundary: string, limits: ParserLimits) {
    this.#reader = body.getReader();
    this.#delimiter = new TextEncoder().encode(`\r\n--${boundary}`);
    this.#limits = limits;
    // The first delimiter may open the body without the CRLF that precedes every other one.
    this.#buffer = new Uint8Array([CR, LF]);
  }

  /** Cancels the body (when the consumer stops early, or after the close delimiter). */
  cancel(): void {
    this.#state = "done";
    this.#reader.cancel().catch(() => {});
  }

  /** Stops with `error`: the body is cancelled and every later read throws it. */
  fail(error: unknown): void {
    this.#failure ??= { error };
    this.cancel();
  }

  // Reads one more chunk; false at the end of the body.
  async #fill(): Promise<boolean> {
    if (this.#eof) return false;
    let chunk: ReadableStreamReadResult<Uint8Array>;
    try {
      chunk = await this.#reader.read();
    } catch (cause) {
      // the client left or the runtime lost the body: the request's fault, not the server's
      if (cause instanceof HttpError) throw cause;
      throw new HttpError(400, "The multipart body could not be read", { cause });
    }
    const { done, value } = chunk;
    if (done) {
      this.#eof = true;
      return false;
    }
    this.#total += value.byteLength;
    if (this.#total > this.#limits.totalBytes) {
      throw new HttpError(
        413,
        `The multipart body exceeds the limit of ${this.#limits.totalBytes} bytes`,
      );
    }
    const buffer = this.#buffer;
    const rest = buffer.length - this.#pos;
    const end = buffer.byteOffset + buffer.length;
    const store = this.#store;
    if (rest === 0) this.#buffer = value;
    else if (buffer.buffer === store?.buffer && end + value.byteLength <= store.length) {
      // the unread bytes end where the store's filled part ends: the chunk goes behind them,
      // into bytes no view was handed out of
      store.set(value, end);
      this.#buffer = store.subarray(buffer.byteOffset + this.#pos, end + value.byteLength);
    } else {
      // room for as much again as was carried over, so that a header block arriving in small
      // chunks is copied O(log n) times, not once per chunk
      const joined = this.#store = new Uint8Array(2 * rest + value.byteLength);
      joined.set(buffer.subarray(this.#pos));
      joined.set(value, rest);
      this.#buffer = joined.subarray(0, rest + value.byteLength);
    }
    this.#pos = 0;
    return true;
  }

  /** The next event. Errors are HttpErrors (400 malformed, 413 over a limit). */
  async next(): Promise<ParserEvent> {
    if (this.#failure !== undefined) throw this.#failure.error;
    try {
      return await this.#next();
    } catch (error) {
      this.fail(error);
      throw error;
    }
  }

  async #next(): Promise<ParserEvent> {
    for (;;) {
      switch (this.#state) {
        case "done":
          return { type: "done" };
        case "delimiter": {
          // 1. skip the preamble (or a part's unread rest) up to the next delimiter
          const found = indexOf(this.#buffer, this.#delimiter, this.#pos);
          if (found === -1) {
            const buffer = this.#buffer;
            this.#pos = buffer.length - partialAtEnd(buffer, this.#pos, this.#delimiter);
            if (!await this.#fill()) throw bad("no boundary delimiter was found");
            continue;
          }
          this.#pos = found + this.#delimiter.length;
          this.#state = "headers";
          continue;
        }
        case "headers": {
          // 2. after a delimiter: "--" closes the body, else transport padding and CRLF, then
          //    the header block up to an empty line
          const start = this.#pos;
          const buffer = this.#buffer;
          if (buffer.length - start < 2) {
            if (!await this.#fill()) throw bad("the body ended after a boundary");
            continue;
          }
          if (buffer[start] === 0x2d && buffer[start + 1] === 0x2d) {
            this.cancel(); // the epilogue is ignored
            return { type: "done" };
          }
          let i = start + this.#padded;
          while (i < buffer.length && (buffer[i] === 0x20 || buffer[i] === 0x09)) i++;
          this.#padded = i - start;
          const end = i < buffer.length
            ? headerEnd(buffer, Math.max(i, start + this.#searched))
            : -1;
          if (end === -1) {
            // a CRLFCRLF that the next chunk completes begins in the last 3 bytes at the earliest
            this.#searched = Math.max(0, buffer.length - 3 - start);
            if (buffer.length - start > this.#limits.headerBytes) {
              throw new HttpError(
                413,
                `A multipart header block exceeds the limit of ${this.#limits.headerBytes} bytes`,
              );
            }
            if (i < buffer.length && buffer[i] !== CR) throw bad("a boundary line has extra text");
            if (!await this.#fill()) throw bad("the body ended inside a part's headers");
            continue;
          }
          if (end - start > this.#limits.headerBytes) {
            throw new HttpError(
              413,
              `A multipart header block exceeds the limit of ${this.#limits.headerBytes} bytes`,
            );
          }
          if (buffer[i] !== CR || buffer[i + 1] !== LF) throw bad("a boundary line has extra text");
          const headers = parseHeaders(utf8.decode(buffer.subarray(i + 2, end)));
          this.#pos = end + 4;
          this.#padded = this.#searched = 0;
          this.#state = "body";
          return { type: "part", headers };
        }
        case "body": {
          // 3. the part's bytes up to the next delimiter; a possible start of one stays buffered
          const found = indexOf(this.#buffer, this.#delimiter, this.#pos);
          if (found !== -1) {
            const bytes = this.#buffer.subarray(this.#pos, found);
            this.#pos = found;
            this.#state = "delimiter";
            if (bytes.length > 0) {
              // the end event comes on the next call, from the "delimiter" state's view
              this.#pendingEnd = true;
              return { type: "data", bytes };
            }
            return { type: "end" };
          }
          const safe = this.#buffer.length -
            partialAtEnd(this.#buffer, this.#pos, this.#delimiter);
          if (safe > this.#pos) {
            const bytes = this.#buffer.subarray(this.#pos, safe);
            this.#pos = safe;
            return { type: "data", bytes };
          }
          if (!await this.#fill()) throw bad("the body ended inside a part");
          continue;
        }
      }
    }
  }

  /** The next event of the current part's body: data, or end. */
  async nextData(): Promise<Uint8Array | null> {
    if (this.#pendingEnd) {
      this.#pendingEnd = false;
      return null;
    }
    const event = await this.next();
    if (event.type === "data") return event.bytes;
    if (event.type === "end") return null;
    throw new TypeError(`Cannot read a part's body: the parser is at "${event.type}"`);
  }

  /** Whether the current part's body has been read to its end. */
  get inBody(): boolean {
    return this.#state === "body" || this.#pendingEnd;
  }
}

// The end of a header block, which starts with the CRLF of its boundary line: the index of
// the first CRLFCRLF at or after `from` (the block's start itself when the part has no
// headers), or -1.
function headerEnd(buffer: Uint8Array, from: number): number {
  for (let i = buffer.indexOf(CR, from); i !== -1; i = buffer.indexOf(CR, i + 1)) {
    if (i + 3 >= buffer.length) return -1;
    if (buffer[i + 1] === LF && buffer[i + 2] === CR && buffer[i + 3] === LF) return i;
  }
  return -1;
}

// Header lines (RFC 5322 syntax as RFC 7578 §4.8 and RFC 2046 use it), names lower-cased;
// folded lines are joined.
function parseHeaders(block: string): [string, string][] {
  const headers: [string, string][] = [];
  if (block === "") return headers;
  for (const line of block.split("\r\n")) {
    const c = line.charCodeAt(0);
    if ((c === 0x20 || c === 0x09) && headers.length > 0) {
      headers[headers.length - 1][1] += " " + line.trim();
      continue;
    }
    const colon = line.indexOf(":");
    if (colon <= 0) throw bad("a part header has no name");
    headers.push([line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim()]);
  }
  return headers;
}
