// Answering from a resolved entry: the representation by Accept-Encoding, preconditions
// (RFC 9110 §13.2.2), a single range (§14.2), and the body from memory or streamed from disk.
// With the resolver it re-exports, this is what staticFiles() loads with a dynamic import on
// its first request.
import { evaluatePreconditions } from "../http/conditional.ts";
import { evaluateRange } from "../http/range.ts";
import {
  type Entry,
  type HeaderList,
  type Representation,
  type ResolveConfig,
  sameVersion,
} from "./_static_cache.ts";
import { negotiateCoding } from "./_static_encoding.ts";
import { readAt } from "./_static_resolve.ts";

export { resolveEntry } from "./_static_resolve.ts";

const INIT_200: ResponseInit = { status: 200 };
const INIT_206: ResponseInit = { status: 206 };
const INIT_304: ResponseInit = { status: 304 };

// Prebuilt headers are appended to a new response rather than passed as its `headers` init:
// Deno's WebIDL conversion of a header sequence would dominate a cached hit.
// Content-Type is set, not appended: a string body has one by default.
function reply(body: BodyInit | null, status: number, list: HeaderList): Response {
  const res = new Response(
    body,
    status === 200 ? INIT_200 : status === 206 ? INIT_206 : status === 304 ? INIT_304 : { status },
  );
  const headers = res.headers;
  for (let i = 0; i < list.length; i++) {
    const [name, value] = list[i];
    if (name === "content-type") headers.set(name, value);
    else headers.append(name, value);
  }
  return res;
}

// A 304 or a HEAD answer of one representation is the same every time: it is built once and
// cloned, since Deno clones a response's header list without validating it again. So is the
// 200 of a file kept as a string, where the runtime's clone shares nothing a reader could
// change (on Deno: 61,100 → 49,200 instructions a request for a 1 KiB text file, `deno run -A
// bench/instructions.ts --static`). A byte body is never cloned: a clone shares its bytes,
// which a middleware reading them could change for every later request.
function prebuilt(rep: Representation, kind: "notModified" | "head" | "text"): Response {
  const built = rep.prebuilt[kind] ??= kind === "text"
    ? reply(rep.text, 200, rep.headers)
    : kind === "head"
    ? reply(null, 200, rep.headers)
    : reply(null, 304, rep.validators);
  return built.clone();
}

/**
 * Answers a GET or HEAD from a resolved entry. Resolves with `null` when a streamed file no
 * longer is the version the entry describes: the caller resolves the key again and retries.
 */
export function respond(
  entry: Entry,
  req: Request,
  config: ResolveConfig,
): Response | Promise<Response | null> {
  // 1. the representation: a precompressed variant when the client accepts it
  let rep = entry.identity;
  if (entry.br !== null || entry.gzip !== null) {
    const coding = negotiateCoding(
      req.headers.get("accept-encoding"),
      entry.br !== null,
      entry.gzip !== null,
      config.parseList,
    );
    if (coding !== null) rep = coding === "br" ? entry.br! : entry.gzip!;
  }
  // 2. preconditions (RFC 9110 §13.2.2), then the range (§14.2)
  const { method, headers } = req;
  const { etag, stat } = rep;
  const lastModifiedMs = stat.mtimeMs;
  const precondition = evaluatePreconditions({ method, headers, etag, lastModifiedMs });
  if (precondition === 304) return prebuilt(rep, "notModified");
  if (precondition === 412) return config.problem({ status: 412 }, rep.validators);
  if (method === "HEAD") return prebuilt(rep, "head");
  const range = headers.has("range")
    ? evaluateRange({ method, headers, size: stat.size, etag, lastModifiedMs })
    : undefined;
  if (range === undefined || range.kind === "full") {
    if (rep.text !== null) {
      return config.cloneText ? prebuilt(rep, "text") : reply(rep.text, 200, rep.headers);
    }
    if (rep.body !== null) return reply(rep.body, 200, rep.headers);
    return stream(config, rep, 0, stat.size - 1, 200, rep.headers);
  }
  if (range.kind === "unsatisfiable") {
    return config.problem(
      { status: 416, detail: `The file has ${stat.size} bytes` },
      [...rep.validators, ["content-range", range.contentRange]],
    );
  }
  const { start, end } = range;
  const partial: HeaderList = [
    ...rep.base,
    ["content-range", range.contentRange],
    ["content-length", String(end - start + 1)],
  ];
  if (rep.body !== null) {
    return reply(rep.body.subarray(start, end + 1), 206, partial);
  }
  return stream(config, rep, start, end, 206, partial);
}

/**
 * Parts of a large file up to this size (ranges) are read into memory at once and sent as bytes,
 * with the file closed before the answer, instead of a stream per response: 5–8 % more 1 KiB
 * ranges of a 300 KiB file a second on Deno (the fuzz app, wrk with 16 connections, server and
 * wrk pinned to their own cores, two alternating rounds).
 */
const SMALL_READ = 64 * 1024;

// 3. a large file: check that the path still names the version the headers describe (a
//    stat first, so a file replaced by a FIFO is never opened), open it, check the open
//    file's own fstat, stream (or read, up to SMALL_READ bytes)
async function stream(
  { fs }: ResolveConfig,
  rep: Representation,
  start: number,
  end: number,
  status: number,
  headers: HeaderList,
): Promise<Response | null> {
  if (rep.stat.size === 0) return reply(null, status, headers);
  const current = await fs.stat(rep.path);
  if (current === null || !current.isFile || !sameVersion(current, rep.stat)) return null;
  const file = await fs.open(rep.path);
  if (file === null) return null;
  if (!file.stat.isFile || !sameVersion(file.stat, rep.stat)) {
    file.close();
    return null;
  }
  const length = end - start + 1;
  if (length > SMALL_READ) {
    try {
      return reply(await file.stream(start, end), status, headers);
    } catch (error) {
      file.close();
      throw error;
    }
  }
  // a small part of a large file (a range): read at once, the file closed before the answer
  try {
    const bytes = await readAt(file, start, length);
    return bytes === null ? null : reply(bytes, status, headers); // null: it shrank, look again
  } finally {
    file.close();
  }
}
