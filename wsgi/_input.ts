// `wsgi.input` and `wsgi.errors` as the gateway provides them: a reader over the buffered
// request body, and an error stream that writes whole lines through the runtime.
import type { WsgiErrors, WsgiInput } from "./types.ts";

/** A synchronous reader over a buffered request body. */
export class BytesInput implements WsgiInput {
  #bytes: Uint8Array;
  #position = 0;

  constructor(bytes: Uint8Array) {
    this.#bytes = bytes;
  }

  read(size?: number | null): Uint8Array {
    const start = this.#position;
    const end = Math.min(this.#bytes.length, start + limit(size, "read"));
    this.#position = end;
    return this.#bytes.slice(start, end);
  }

  readline(size?: number | null): Uint8Array {
    const start = this.#position;
    const newline = this.#bytes.indexOf(0x0a, start);
    const end = Math.min(
      newline === -1 ? this.#bytes.length : newline + 1,
      start + limit(size, "readline"),
    );
    this.#position = end;
    return this.#bytes.slice(start, end);
  }

  readlines(hint?: number | null): Uint8Array[] {
    const most = limit(hint, "readlines");
    const lines: Uint8Array[] = [];
    let total = 0;
    while (this.#position < this.#bytes.length) {
      const line = this.readline();
      lines.push(line);
      total += line.length;
      if (most > 0 && total >= most) break;
    }
    return lines;
  }

  *[Symbol.iterator](): Iterator<Uint8Array> {
    while (this.#position < this.#bytes.length) yield this.readline();
  }
}

/**
 * A size as Python's file methods take it: omitted, `null` (`None`) or negative is no limit; a
 * size that is not an integer (NaN from a missing header) is a TypeError, as in Python, rather
 * than a position no later read recovers from.
 */
function limit(size: number | null | undefined, method: string): number {
  if (size === undefined || size === null) return Infinity;
  if (!Number.isInteger(size)) {
    throw new TypeError(`Cannot ${method} wsgi.input: the size ${size} is not an integer`);
  }
  return size < 0 ? Infinity : size;
}

/** An error stream that hands complete lines to `writeLine`. */
export class LineErrors implements WsgiErrors {
  #pending = "";
  #writeLine: (line: string) => void;

  constructor(writeLine: (line: string) => void) {
    this.#writeLine = writeLine;
  }

  write(text: string): void {
    this.#pending += text;
    let newline: number;
    while ((newline = this.#pending.indexOf("\n")) !== -1) {
      this.#writeLine(this.#pending.slice(0, newline + 1));
      this.#pending = this.#pending.slice(newline + 1);
    }
  }

  writelines(lines: Iterable<string>): void {
    for (const line of lines) this.write(line);
  }

  flush(): void {
    if (this.#pending !== "") {
      this.#writeLine(this.#pending + "\n");
      this.#pending = "";
    }
  }
}
