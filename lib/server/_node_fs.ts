// The file-system calls of the runtime interface on Node, with true nanosecond mtimes.
import {
  closeSync,
  fstatSync,
  openSync,
  promises as fsp,
  readSync,
  realpathSync,
  statSync,
} from "node:fs";
import type { BigIntStats } from "node:fs";
import type { FileHandle } from "node:fs/promises";
import type { FileStat, OpenFile, RuntimeFs, SyncFile } from "./types.ts";

const CHUNK_SIZE = 65_536;

function toStat(info: BigIntStats): FileStat {
  return {
    isFile: info.isFile(),
    isDirectory: info.isDirectory(),
    size: Number(info.size),
    mtimeMs: Number(info.mtimeNs) / 1e6,
    mtimeNs: info.mtimeNs,
  };
}

// Bytes `start` to `end` inclusive by positional reads that the consumer pulls: never more in
// memory than one chunk; `close` runs once, at the end, on an error or on cancel.
function rangeStream(
  file: FileHandle,
  start: number,
  end: number,
  close: () => void,
): ReadableStream<Uint8Array> {
  let position = start;
  let done = false;
  const finish = () => {
    if (done) return;
    done = true;
    close();
  };
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const want = Math.min(end - position + 1, CHUNK_SIZE);
      let bytesRead = 0;
      if (want > 0) {
        const buffer = new Uint8Array(want);
        try {
          ({ bytesRead } = await file.read(buffer, 0, want, position));
        } catch (error) {
          finish();
          throw error;
        }
        if (bytesRead > 0) {
          position += bytesRead;
          controller.enqueue(bytesRead === want ? buffer : buffer.subarray(0, bytesRead));
        }
      }
      if (position > end) {
        finish();
        controller.close();
      } else if (bytesRead === 0) {
        // The file shrank since its size was read: the stream must not end as if it were whole.
        finish();
        controller.error(new RangeError(`Cannot read the file: it ends before byte ${end}`));
      }
    },
    cancel() {
      finish();
    },
  }, { highWaterMark: 0 });
}

// A file opened for asynchronous positional reads, with the fstat of the open file.
function openFile(file: FileHandle, stat: FileStat): OpenFile {
  let closed = false;
  let owned = false; // handed to a stream, which closes it
  const close = () => {
    if (closed) return;
    closed = true;
    file.close().catch(() => {});
  };
  return {
    stat,
    async read(buffer, position) {
      const { bytesRead } = await file.read(buffer, 0, buffer.byteLength, position);
      return bytesRead;
    },
    stream(start, end) {
      if (owned) {
        return Promise.reject(
          new TypeError("Cannot stream the file: it is already being streamed"),
        );
      }
      owned = true;
      return Promise.resolve(rangeStream(file, start, end, close));
    },
    close() {
      if (!owned) close();
    },
  };
}

/** Opens a file for asynchronous reads with the `fstat` of the open file. */
async function open(path: string): Promise<OpenFile | null> {
  let file: FileHandle;
  try {
    file = await fsp.open(path, "r");
  } catch {
    return null;
  }
  try {
    return openFile(file, toStat(await file.stat({ bigint: true })));
  } catch {
    file.close().catch(() => {});
    return null;
  }
}

/** File-system calls, with true nanosecond mtimes. */
export const fs: RuntimeFs = {
  async stat(path) {
    try {
      return toStat(await fsp.stat(path, { bigint: true }));
    } catch {
      return null;
    }
  },
  statSync(path) {
    try {
      return toStat(statSync(path, { bigint: true }));
    } catch {
      return null;
    }
  },
  async realPath(path) {
    try {
      return await fsp.realpath(path);
    } catch {
      return null;
    }
  },
  realPathSync(path) {
    try {
      return realpathSync(path);
    } catch {
      return null;
    }
  },
  openSync(path): SyncFile {
    const fd = openSync(path, "r");
    let closed = false;
    return {
      statSync: () => toStat(fstatSync(fd, { bigint: true })),
      readSync(buffer, position) {
        return readSync(fd, buffer, 0, buffer.byteLength, position);
      },
      close() {
        if (!closed) {
          closed = true;
          closeSync(fd);
        }
      },
    };
  },
  open,
};
