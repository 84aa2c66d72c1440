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

  read(size?: number): Uint8Array {
    const start = this.#position;
    const end = size === undefined || size < 0
      ? this.#bytes.length
      : Math.min(this.#bytes.length, start + size);
    this.#position = end;
    return this.#bytes.slice(start, end);
  }

  readline(size?: number): Uint8Array {
    const start = this.#position;
    const newline = this.#bytes.indexOf(0x0a, start);
    let end = newline === -1 ? this.#bytes.length : newline + 1;
    if (size !== undefined && size >= 0) end = Math.min(end, start + size);
    this.#position = end;
    return this.#bytes.slice(start, end);
  }

  readlines(hint?: number): Uint8Array[] {
    const lines: Uint8Array[] = [];
    let total = 0;
    while (this.#position < this.#bytes.length) {
      const line = this.readline();
      lines.push(line);
      total += line.length;
      if (hint !== undefined && hint > 0 && total >= hint) break;
    }
    return lines;
  }

  *[Symbol.iterator](): Iterator<Uint8Array> {
    while (this.#position < this.#bytes.length) yield this.readline();
  }
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
