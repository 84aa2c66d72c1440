// The file model of staticFiles(): a request key resolves to an Entry (the file and its
// precompressed variants, each a Representation with its validators, prebuilt header lists
// and, when small, its bytes; see _static_resolve.ts), and a byte-bounded cache keeps entries
// between requests.
import type { ProblemDetails } from "../http/problem.ts";
import type { FileStat, RuntimeFs } from "../server/types.ts";
import type { Coding } from "./_static_encoding.ts";

/** A header list, ready for `new Response(body, { headers })`. */
export type HeaderList = [string, string][];

/** One file on disk as it is sent: the original or a precompressed variant. */
export interface Representation {
  /** The real path (symlinks resolved), under the real root. */
  readonly path: string;
  /** Metadata of the file whose bytes `body` holds (the `fstat` of the open file). */
  readonly stat: FileStat;
  /** The strong ETag (docs/architecture.md, decision 5; variants add `-br` or `-gzip`). */
  readonly etag: string;
  /** The content coding, `null` for the file as it is. */
  readonly coding: Coding | null;
  /** The whole file, when it is small enough to keep; otherwise it is streamed per request. */
  readonly body: Uint8Array<ArrayBuffer> | null;
  /**
   * The whole file as a string when `body` is valid UTF-8 (which round-trips exactly): Deno
   * sends a string body without the copy it makes of a byte body, so text assets cost less.
   */
  readonly text: string | null;
  /** The 200 headers, `Content-Length` included. */
  readonly headers: HeaderList;
  /** The 200 headers without `Content-Length`, for 206. */
  readonly base: HeaderList;
  /** What 304, 412 and 416 keep: ETag, Last-Modified, Cache-Control and Vary. */
  readonly validators: HeaderList;
  /**
   * Answers built on first use and cloned for each request: the bodiless ones, and on Deno the
   * 200 of a file kept as a string.
   */
  readonly prebuilt: { notModified?: Response; head?: Response; text?: Response };
}

/** A request key resolved: the file and the precompressed variants that exist beside it. */
export interface Entry {
  readonly identity: Representation;
  readonly br: Representation | null;
  readonly gzip: Representation | null;
  /** When the resolution that produced this entry started (ms since the epoch). */
  checkedAt: number;
  /** Bytes charged to the cache: the bodies held plus a fixed overhead. */
  readonly size: number;
  /** Hit since the eviction hand last passed (CLOCK). */
  hot: boolean;
}

/**
 * What the lazily loaded engine (_static_respond.ts, _static_resolve.ts) gets from the
 * middleware: its configuration and the runtime. The file system, the problem builder and the
 * list parser come in here rather than by import, so the engine's chunk shares no module with the core.
 */
export interface ResolveConfig {
  readonly fs: RuntimeFs;
  /** Builds an RFC 9457 problem response (`problem()` of lib/http/problem.ts). */
  problem(problem: ProblemDetails, headers?: HeadersInit): Response;
  /** Splits a comma-separated list (`parseList()` of _headers.ts). */
  parseList(value: string): string[];
  /** Whether a 200 with a string body is built once and cloned (the runtime's `CLONE_TEXT_RESPONSES`). */
  readonly cloneText: boolean;
  /** The real root with its trailing separator. */
  readonly base: string;
  readonly dotfiles: "allow" | "deny";
  readonly precompressed: boolean;
  /** Files up to this size are read into memory; larger ones are streamed. */
  readonly maxFileBytes: number;
  /** The `Cache-Control` for a path below the mount point (`css/app.css`). */
  cacheControl(path: string): string;
}

/**
 * The clock of the revalidation bound (an entry's `checkedAt` and its age). Tests move it
 * instead of sleeping through `revalidateMs`; nothing else replaces it.
 */
export const clock: { now(): number } = { now: Date.now };

/** Bytes charged per entry besides its bodies: strings, header lists, map slots. */
export const ENTRY_OVERHEAD = 1024;

/** Whether two stats describe the same version of a file (the ETag's inputs). */
export function sameVersion(a: FileStat, b: FileStat): boolean {
  return a.size === b.size && a.mtimeNs === b.mtimeNs;
}

/**
 * A map of entries bounded by the bytes they hold, evicting the least recently used first
 * (approximated with the CLOCK algorithm: a hit only sets a flag, so hits stay O(1) and
 * allocation-free; the eviction hand gives flagged entries a second chance).
 */
export class FileCache {
  #map = new Map<string, Entry>();
  #bytes = 0;
  #maxBytes: number;

  constructor(maxBytes: number) {
    this.#maxBytes = maxBytes;
  }

  /** Bytes currently charged. */
  get bytes(): number {
    return this.#bytes;
  }

  /** Entries currently held. */
  get size(): number {
    return this.#map.size;
  }

  /** Looks an entry up and marks it recently used. */
  get(key: string): Entry | undefined {
    const entry = this.#map.get(key);
    if (entry !== undefined) entry.hot = true;
    return entry;
  }

  /** Stores an entry (replacing the key's previous one) and evicts down to the bound. */
  set(key: string, entry: Entry): void {
    this.delete(key);
    if (entry.size > this.#maxBytes) return;
    this.#map.set(key, entry);
    this.#bytes += entry.size;
    while (this.#bytes > this.#maxBytes) {
      const [oldest, victim] = this.#map.entries().next().value!;
      this.#map.delete(oldest);
      if (victim.hot && victim !== entry) {
        victim.hot = false;
        this.#map.set(oldest, victim); // second chance: to the back of the queue
      } else {
        this.#bytes -= victim.size;
      }
    }
  }

  /** Drops a key. */
  delete(key: string): void {
    const old = this.#map.get(key);
    if (old !== undefined) {
      this.#map.delete(key);
      this.#bytes -= old.size;
    }
  }
}
