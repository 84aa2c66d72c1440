// Resolving a request key to an Entry: realpath under the real root, dotfiles, regular files
// only, precompressed variants, small bodies read from the open file, validators and prebuilt
// header lists. Loaded with a dynamic import on the first miss, so that the MIME table and the
// ETag hash stay out of what an app loads up front.
import { fileEtag } from "../http/etag.ts";
import { formatHttpDate } from "../http/date.ts";
import { hasDotSegment, isUnderRoot } from "../http/file_path.ts";
import { contentTypeWithCharset } from "../http/media_type.ts";
import type { FileStat, OpenFile } from "../server/types.ts";
import {
  clock,
  type Entry,
  ENTRY_OVERHEAD,
  type HeaderList,
  type Representation,
  type ResolveConfig,
  sameVersion,
} from "./_static_cache.ts";
import type { Coding } from "./_static_encoding.ts";

const utf8 = /* @__PURE__ */ new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

interface Found {
  path: string;
  stat: FileStat;
  body: Uint8Array<ArrayBuffer> | null;
}

/**
 * Resolves a key (the decoded path below the mount point: `/` and the segments joined with
 * `/`) to an entry, or `null` when it names no regular file under the root. Parts of
 * `previous` whose file is unchanged (same real path, size and mtime) are reused, bodies
 * included.
 */
export async function resolveEntry(
  config: ResolveConfig,
  key: string,
  previous: Entry | null,
): Promise<Entry | null> {
  const checkedAt = clock.now();
  const path = key.slice(1);
  // 1. the file itself; 2. its variants, which must pass the same checks
  const [identity, br, gzip] = await Promise.all([
    find(config, path, previous?.identity ?? null),
    config.precompressed ? find(config, `${path}.br`, previous?.br ?? null) : null,
    config.precompressed ? find(config, `${path}.gz`, previous?.gzip ?? null) : null,
  ]);
  if (identity === null) return null;
  const vary = br !== null || gzip !== null;
  const contentType = contentTypeWithCharset(path);
  const cacheControl = config.cacheControl(path);
  const build = (found: Found, coding: Coding | null, old: Representation | null) =>
    old !== null && old.path === found.path && old.stat === found.stat &&
      hasVary(old) === vary && fieldOf(old.base, "content-type") === contentType
      ? old
      : represent(found, coding, { contentType, cacheControl, vary });
  const reps = {
    identity: build(identity, null, previous?.identity ?? null),
    br: br === null ? null : build(br, "br", previous?.br ?? null),
    gzip: gzip === null ? null : build(gzip, "gzip", previous?.gzip ?? null),
  };
  const size = ENTRY_OVERHEAD + held(reps.identity) + held(reps.br) + held(reps.gzip);
  return { ...reps, checkedAt, size, hot: false };
}

// A held string costs at most two bytes per UTF-16 unit (V8 keeps Latin-1 strings in one).
function held(rep: Representation | null): number {
  if (rep === null || rep.body === null) return 0;
  return rep.body.length + (rep.text === null ? 0 : rep.text.length * 2);
}

// What a representation was built with, read back by field name.
function hasVary(rep: Representation): boolean {
  return fieldOf(rep.validators, "vary") !== undefined;
}

function fieldOf(list: HeaderList, name: string): string | undefined {
  for (const [field, value] of list) if (field === name) return value;
  return undefined;
}

// 1. realpath, 2. under the real root, 3. no dotfile on the real path, 4. a regular file,
// 5. small files read whole from the open file, whose fstat gives the validators.
async function find(
  config: ResolveConfig,
  key: string,
  previous: Representation | null,
): Promise<Found | null> {
  const { fs, base } = config;
  const real = await fs.realPath(base + key);
  if (real === null || !isUnderRoot(base, real)) return null;
  if (config.dotfiles === "deny" && hasDotSegment(real, base.length)) return null;
  const stat = await fs.stat(real);
  if (stat === null || !stat.isFile) return null;
  if (previous !== null && previous.path === real && sameVersion(previous.stat, stat)) {
    return { path: real, stat: previous.stat, body: previous.body };
  }
  if (stat.size > config.maxFileBytes) return { path: real, stat, body: null };
  const file = await fs.open(real);
  if (file === null) return null;
  try {
    const opened = file.stat;
    if (!opened.isFile) return null;
    if (opened.size > config.maxFileBytes) return { path: real, stat: opened, body: null };
    // A file that shrank while being read is streamed instead of cached half-read.
    return { path: real, stat: opened, body: await readAt(file, 0, opened.size) };
  } finally {
    file.close();
  }
}

/**
 * Reads `length` bytes of an open file from byte `position`.
 *
 * @returns The bytes, or `null` when the file ended first (it shrank after its `fstat`).
 */
export async function readAt(
  file: OpenFile,
  position: number,
  length: number,
): Promise<Uint8Array<ArrayBuffer> | null> {
  const bytes = new Uint8Array(length);
  for (let read = 0; read < length;) {
    const n = await file.read(bytes.subarray(read), position + read);
    if (n === 0) return null;
    read += n;
  }
  return bytes;
}

interface HeaderFacts {
  contentType: string;
  cacheControl: string;
  vary: boolean;
}

function represent(found: Found, coding: Coding | null, facts: HeaderFacts): Representation {
  const { stat } = found;
  let etag = fileEtag(stat.size, stat.mtimeNs);
  if (coding !== null) etag = `${etag.slice(0, -1)}-${coding}"`; // distinct per coding
  const lastModified = formatHttpDate(stat.mtimeMs);
  let text: string | null = null;
  if (found.body !== null && found.body.length > 0) {
    try {
      text = utf8.decode(found.body);
    } catch {
      // not UTF-8: sent as bytes
    }
  }
  const validators: HeaderList = [
    ["etag", etag],
    ["last-modified", lastModified],
    ["cache-control", facts.cacheControl],
  ];
  if (facts.vary) validators.push(["vary", "Accept-Encoding"]);
  const base: HeaderList = [["content-type", facts.contentType]];
  if (coding !== null) base.push(["content-encoding", coding]);
  base.push(...validators, ["accept-ranges", "bytes"]);
  return {
    path: found.path,
    stat,
    etag,
    coding,
    body: found.body,
    text,
    headers: [...base, ["content-length", String(stat.size)]],
    base,
    validators,
    prebuilt: {},
  };
}
