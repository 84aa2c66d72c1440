// File bodies for the WSGI static middleware: a bounded file-like reader over the runtime's
// synchronous file, and the chunk iterable used when the server offers no wsgi.file_wrapper.
import type { SyncFile } from "../lib/server/types.ts";
import type { FileLike, WsgiIterable } from "./types.ts";

/** The block size for file bodies. */
export const BLOCK_SIZE = 64 * 1024;

/**
 * A file-like object over the first `size` bytes of an open file: the length announced in
 * Content-Length, even if the file grows meanwhile. Closes the file at its end.
 */
export class BoundedFile implements FileLike {
  #file: SyncFile;
  #position = 0;
  #size: number;

  constructor(file: SyncFile, size: number) {
    this.#file = file;
    this.#size = size;
  }

  read(size: number): Uint8Array {
    const want = Math.min(size < 0 ? Infinity : size, this.#size - this.#position);
    if (want <= 0) {
      this.close();
      return new Uint8Array(0);
    }
    const buffer = new Uint8Array(want);
    let filled = 0;
    while (filled < want) {
      const n = this.#file.readSync(buffer.subarray(filled), this.#position + filled);
      if (n <= 0) break; // the file shrank
      filled += n;
    }
    this.#position += filled;
    if (filled === 0) this.#size = this.#position;
    return filled === want ? buffer : buffer.subarray(0, filled);
  }

  close(): void {
    this.#file.close();
  }
}

/** Reads a whole small file in one go. */
export function readAll(file: BoundedFile, size: number): Uint8Array {
  try {
    return file.read(size);
  } finally {
    file.close();
  }
}

/** Iterates a file-like object in blocks; what `wsgi.file_wrapper` does when no server offers one. */
export class FileChunks implements WsgiIterable {
  #file: FileLike;
  #blockSize: number;

  constructor(file: FileLike, blockSize: number = BLOCK_SIZE) {
    this.#file = file;
    this.#blockSize = blockSize;
  }

  *[Symbol.iterator](): Iterator<Uint8Array> {
    while (true) {
      const chunk = this.#file.read(this.#blockSize);
      if (chunk.length === 0) return;
      yield chunk;
    }
  }

  close(): void {
    this.#file.close?.();
  }
}
