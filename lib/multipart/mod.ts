/**
 * Streaming `multipart/form-data` uploads (RFC 7578), with no dependency: fields arrive as
 * strings, files as streams the handler pipes where it wants, and every limit is enforced while
 * the body is read (413), so an upload is never held in memory whole.
 *
 * @example Save uploaded files under a directory
 * ```ts
 * import { chain, post, router } from "../../mod.ts";
 * import { multipart } from "./mod.ts";
 * import assert from "node:assert/strict";
 *
 * const dir = Deno.makeTempDirSync();
 * const app = chain([], router([
 *   post("/upload", async (ctx) => {
 *     const saved: string[] = [];
 *     for await (const part of multipart(ctx, { fileBytes: 1_000_000 })) {
 *       if (part.kind === "file" && part.filename !== "") {
 *         await part.stream.pipeTo((await Deno.create(`${dir}/${part.filename}`)).writable);
 *         saved.push(part.filename);
 *       }
 *     }
 *     return Response.json(saved);
 *   }),
 * ]));
 *
 * const form = new FormData();
 * form.append("title", "holiday");
 * form.append("photo", new File(["..."], "../../etc/passwd"));
 * const res = await app.fetch(new Request("http://localhost/upload", { method: "POST", body: form }));
 * assert.deepEqual(await res.json(), ["passwd"]);
 * assert.equal(Deno.readTextFileSync(`${dir}/passwd`), "...");
 * Deno.removeSync(dir, { recursive: true });
 * ```
 *
 * @module
 */
import type { Context } from "../context.ts";
import { HttpError } from "../http/http_error.ts";
import { expectUncoded } from "../http/_uncoded.ts";
import { concat } from "../http/read_limited.ts";
import { utf8Length } from "../http/_utf8.ts";
import { MultipartParser } from "./_parser.ts";
import { parseContentDisposition } from "./_disposition.ts";

export { parseContentDisposition };
export type { ContentDisposition } from "./_disposition.ts";

/** Limits of {@linkcode multipart}; passing one is a 413 while the body is read. */
export interface MultipartOptions {
  /**
   * Parts in all (fields and files).
   *
   * @default {1000}
   */
  parts?: number;
  /**
   * Bytes of one field's value.
   *
   * @default {1048576}
   */
  fieldBytes?: number;
  /**
   * Bytes of one file.
   *
   * @default {Infinity}
   */
  fileBytes?: number;
  /**
   * Bytes of the whole body. From a `Context`, `ctx.bodyLimit` bounds the body as well (raise
   * it for the route with `bodyLimit(bytes, { chunked: "stream" })`, which also keeps chunked
   * uploads streaming instead of read ahead).
   *
   * @default {ctx.bodyLimit, or 1048576 for a Request}
   */
  totalBytes?: number;
  /**
   * Bytes of one part's header block.
   *
   * @default {16384}
   */
  headerBytes?: number;
}

/**
 * A part without a filename: a form field, its value decoded by the `charset` of its
 * `Content-Type`, else by the one a `_charset_` field before it named (RFC 7578 §4.4, §4.6),
 * else as UTF-8; a charset the runtime does not know counts as UTF-8.
 */
export interface MultipartField {
  /** What the part is. */
  readonly kind: "field";
  /**
   * The field name from `Content-Disposition`, with `%22`, `%0D` and `%0A` (how browsers and
   * curl write `"`, CR and LF) decoded.
   */
  readonly name: string;
  /** The value. */
  readonly value: string;
  /** The part's `Content-Type` (`text/plain` when it has none, RFC 7578 §4.4). */
  readonly contentType: string;
}

/** A part with a filename: an uploaded file, its bytes as a stream. */
export interface MultipartFile {
  /** What the part is. */
  readonly kind: "file";
  /**
   * The field name from `Content-Disposition`, with `%22`, `%0D` and `%0A` (how browsers and
   * curl write `"`, CR and LF) decoded.
   */
  readonly name: string;
  /**
   * The file name, safe to use as one path component: {@linkcode sanitizeFilename} of the name
   * sent (`filename*` before `filename`). Empty when nothing usable is left (or none was sent,
   * as browsers do for an empty file input): choose a name yourself then.
   */
  readonly filename: string;
  /**
   * The file name as sent (`%22`, `%0D` and `%0A` decoded, as in {@linkcode MultipartFile.name});
   * never use it as a path.
   */
  readonly rawFilename: string;
  /** The part's `Content-Type` (`text/plain` when it has none, RFC 7578 §4.4). */
  readonly contentType: string;
  /**
   * The file's bytes. Read it before asking for the next part: the parts of a body come one
   * after another, so asking for the next one discards what is left of this one (and this
   * stream then fails). It fails with a 413 `HttpError` once the file passes `fileBytes`.
   * Leaving the loop at a file (`break`, or `return new Response(part.stream)`) keeps it
   * readable; the rest of the body is cancelled once its stream ends or is cancelled.
   */
  readonly stream: ReadableStream<Uint8Array>;
}

/** A part of a multipart body. */
export type MultipartPart = MultipartField | MultipartFile;

const DEFAULT_BODY_LIMIT = 1_048_576;
// RFC 2046 §5.1.1: 1 to 70 of these, the last one not a space.
const BCHARS = /^[0-9A-Za-z'()+_,\-./:=? ]{0,69}[0-9A-Za-z'()+_,\-./:=?]$/;
const utf8 = /* @__PURE__ */ new TextDecoder();
const encoder = /* @__PURE__ */ new TextEncoder();

// Browsers and curl write `"`, CR and LF in a name or file name as %22, %0D and %0A (the HTML
// form encoding); they are decoded as the Fetch standard's multipart/form-data parser does.
function unescapeName(name: string): string {
  return name.includes("%")
    ? name.replace(
      /%(?:22|0D|0A)/g,
      (escape) => escape === "%22" ? '"' : escape === "%0D" ? "\r" : "\n",
    )
    : name;
}

// windows-1252's 0x80–0x9F (WHATWG Encoding), which Node 20's decoder reads as Latin-1's C1
// controls (and with them iso-8859-1, latin1 and ascii, which name windows-1252 there).
const CP1252 =
  "\u20ac\x81\u201a\u0192\u201e\u2026\u2020\u2021\u02c6\u2030\u0160\u2039\u0152\x8d\u017d\x8f" +
  "\x90\u2018\u2019\u201c\u201d\u2022\u2013\u2014\u02dc\u2122\u0161\u203a\u0153\x9d\u017e\u0178";

// Decodes `bytes` by a charset label (WHATWG Encoding names and aliases); UTF-8 for none or
// an unknown one.
function decode(bytes: Uint8Array, label: string | undefined): string {
  let decoder = utf8;
  if (label !== undefined) {
    try {
      decoder = new TextDecoder(label.trim());
    } catch {
      // an unknown charset
    }
  }
  const text = decoder.decode(bytes);
  return decoder.encoding === "windows-1252"
    ? text.replace(/[\x80-\x9f]/g, (c) => CP1252[c.charCodeAt(0) - 0x80])
    : text;
}

function limit(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== "number" || !(value >= 0)) {
    throw new RangeError(`Cannot read the multipart body: ${name} must be a non-negative number`);
  }
  return value;
}

function tooLarge(what: string, bytes: number): HttpError {
  return new HttpError(413, `${what} exceeds the limit of ${bytes}`);
}

/**
 * The boundary of a `multipart/form-data` Content-Type.
 *
 * @throws {HttpError} 415 for another media type, 400 for a missing or invalid boundary.
 */
function boundaryOf(contentType: string | null): string {
  const disposition = parseContentDisposition(contentType ?? "");
  if (disposition.type !== "multipart/form-data") {
    throw new HttpError(415, "The request body is not multipart/form-data");
  }
  const boundary = disposition.params.boundary;
  if (boundary === undefined) {
    throw new HttpError(400, "The multipart Content-Type has no boundary");
  }
  if (boundary.length > 70) {
    throw new HttpError(400, "The multipart boundary is longer than 70 characters");
  }
  if (!BCHARS.test(boundary)) throw new HttpError(400, "The multipart boundary is invalid");
  return boundary;
}

// Characters Windows refuses in a file name (besides `/`, `\` and `:`, which cut it).
const WINDOWS_RESERVED = '"<>|?*';

// Windows device names, which name a device, not a file, in any folder and with any extension.
const DEVICE = /^(?:con|prn|aux|nul|com[0-9¹²³]|lpt[0-9¹²³])(?:\.|$)/i;

/**
 * Returns a file name that is safe as one path component on POSIX and Windows: the part after
 * the last `/`, `\` or `:` (so `../../etc/passwd` is `passwd`, `C:\x\y` is `y` and `C:a.txt`,
 * an alternate data stream on Windows, is `a.txt`), without control characters (NUL, CR, LF,
 * DEL, C1), the characters Windows refuses in a name (`"`, `<`, `>`, `|`, `?`, `*`),
 * bidirectional overrides (which make `x\u202Etxt.exe` look like `xexe.txt`) and surrounding
 * spaces or trailing dots (which Windows drops), and at most 255 bytes long in UTF-8 (cut
 * before its extension: file systems refuse longer names); `.` and `..` become empty, and a
 * Windows device name (`CON`, `nul.txt`, `COM1`) gets a `_` in front.
 *
 * @param name A file name as a client sent it.
 * @returns The sanitised name, possibly empty.
 *
 * @example
 * ```ts
 * import { sanitizeFilename } from "./mod.ts";
 * import assert from "node:assert/strict";
 *
 * assert.equal(sanitizeFilename("../../etc/passwd"), "passwd");
 * assert.equal(sanitizeFilename("C:\\x\\y"), "y");
 * assert.equal(sanitizeFilename("C:evil.txt"), "evil.txt");
 * assert.equal(sanitizeFilename("a\u0000b.txt"), "ab.txt");
 * assert.equal(sanitizeFilename('He said "hi"?.txt'), "He said hi.txt");
 * assert.equal(sanitizeFilename("x\u202Etxt.exe"), "xtxt.exe");
 * assert.equal(sanitizeFilename("nul.txt"), "_nul.txt");
 * assert.equal(sanitizeFilename("report.pdf. "), "report.pdf");
 * assert.equal(sanitizeFilename(".."), "");
 * ```
 */
export function sanitizeFilename(name: string): string {
  const cut = Math.max(name.lastIndexOf("/"), name.lastIndexOf("\\"), name.lastIndexOf(":"));
  let out = "";
  for (const char of name.slice(cut + 1)) {
    const c = char.charCodeAt(0);
    const control = c < 0x20 || (c >= 0x7f && c <= 0x9f);
    const bidi = (c >= 0x202a && c <= 0x202e) || (c >= 0x2066 && c <= 0x2069);
    if (!control && !bidi && !WINDOWS_RESERVED.includes(char)) out += char;
  }
  out = trimEnd(shorten(trimEnd(out.trim())));
  return DEVICE.test(out) ? `_${out}` : out;
}

// Without the trailing dots and spaces, which Windows drops.
function trimEnd(name: string): string {
  let end = name.length;
  while (end > 0 && (name[end - 1] === "." || name[end - 1] === " ")) end--;
  return name.slice(0, end);
}

// The longest name file systems take is 255 bytes (NAME_MAX on Linux and macOS) or 255 UTF-16
// units (NTFS): a longer one is cut to 255 bytes of UTF-8, which fit both, its extension (up
// to 16 bytes) kept.
function shorten(name: string): string {
  if (utf8Length(name, 255) <= 255) return name;
  const dot = name.lastIndexOf(".");
  let extension = dot > 0 ? name.slice(dot) : "";
  if (utf8Length(extension, 16) > 16) extension = "";
  let room = 255 - encoder.encode(extension).byteLength;
  let stem = "";
  for (const char of extension === "" ? name : name.slice(0, dot)) {
    room -= encoder.encode(char).byteLength;
    if (room < 0) break;
    stem += char;
  }
  return stem + extension;
}

/**
 * Reads a `multipart/form-data` body part by part, as it arrives. Iterate it with
 * `for await`; read each file's `stream` before asking for the next part.
 *
 * Errors are `HttpError`s, which become problem responses when they leave the handler: 415
 * when the body is not `multipart/form-data`; 400 for a missing, over-long (71+ characters) or
 * invalid boundary, a part without `Content-Disposition: form-data; name=…`, or a body that
 * ends early; 413 when a limit of {@linkcode MultipartOptions} is passed, as soon as it is.
 * Request bodies are never decompressed: one with a `Content-Encoding` other than `identity` is
 * a 415 with `Accept-Encoding: identity`.
 *
 * @param source The request, or the context whose (bounded) `ctx.req` to read.
 * @param options Limits.
 * @returns The parts, in order.
 * @throws {HttpError} At once when the Content-Type is not multipart/form-data with a valid
 * boundary, or a declared Content-Length is over `totalBytes`.
 *
 * @example Fields and a file
 * ```ts
 * import { multipart } from "./mod.ts";
 * import assert from "node:assert/strict";
 *
 * const form = new FormData();
 * form.append("name", "Ada");
 * form.append("cv", new File(["hello"], "cv.txt", { type: "text/plain" }));
 * const request = new Request("http://localhost/", { method: "POST", body: form });
 * const seen: string[] = [];
 * for await (const part of multipart(request)) {
 *   if (part.kind === "field") seen.push(`${part.name}=${part.value}`);
 *   else seen.push(`${part.name}:${part.filename}:${await new Response(part.stream).text()}`);
 * }
 * assert.deepEqual(seen, ["name=Ada", "cv:cv.txt:hello"]);
 * ```
 */
export function multipart(
  source: Context | Request,
  options: MultipartOptions = {},
): AsyncIterableIterator<MultipartPart> {
  const request = source instanceof Request ? source : source.req;
  const totalBytes = limit(
    "totalBytes",
    options.totalBytes,
    source instanceof Request ? DEFAULT_BODY_LIMIT : source.bodyLimit,
  );
  const limits = {
    parts: limit("parts", options.parts, 1000),
    fieldBytes: limit("fieldBytes", options.fieldBytes, 1_048_576),
    fileBytes: limit("fileBytes", options.fileBytes, Infinity),
    totalBytes,
    headerBytes: limit("headerBytes", options.headerBytes, 16_384),
  };
  const boundary = boundaryOf(request.headers.get("content-type"));
  expectUncoded(request.headers.get("content-encoding"));
  const declared = request.headers.get("content-length");
  if (declared !== null && Number(declared) > totalBytes) {
    throw tooLarge("The multipart body", totalBytes);
  }
  const body = request.body;
  if (body === null) throw new HttpError(400, "The multipart body is empty");
  return parts(new MultipartParser(body, boundary, limits), limits);
}

async function* parts(
  parser: MultipartParser,
  limits: { parts: number; fieldBytes: number; fileBytes: number },
): AsyncGenerator<MultipartPart> {
  // The parser is read by this generator and by the stream of the current file; reads are
  // serialised so that a file read concurrently with the next part cannot interleave.
  let queue: Promise<unknown> = Promise.resolve();
  function serial<T>(read: () => Promise<T>): Promise<T> {
    const result = queue.then(read);
    queue = result.catch(() => {});
    return result;
  }
  let count = 0;
  let previous: FileState | undefined;
  // the charset of fields without one of their own, once a `_charset_` field named it
  let charset: string | undefined;
  let finished = false;
  try {
    for (;;) {
      // 1. what the handler left of the previous file is discarded
      const event = await serial(async () => {
        if (previous !== undefined) previous.abandoned = true;
        while (parser.inBody) await parser.nextData();
        return await parser.next();
      });
      if (event.type === "done") {
        finished = true;
        return;
      }
      if (event.type !== "part") throw new TypeError(`Unexpected multipart event ${event.type}`);
      // 2. the part's headers
      if (++count > limits.parts) {
        const error = tooLarge("The number of multipart parts", limits.parts);
        parser.fail(error);
        throw error;
      }
      let dispositionValue: string | undefined;
      let contentType: string | undefined;
      for (const [name, value] of event.headers) {
        if (name === "content-disposition") dispositionValue ??= value;
        else if (name === "content-type") contentType ??= value;
      }
      const disposition = parseContentDisposition(dispositionValue ?? "");
      const sent = disposition.params.name;
      if (disposition.type !== "form-data" || sent === undefined) {
        const error = new HttpError(
          400,
          "A multipart part has no Content-Disposition: form-data with a name",
        );
        parser.fail(error);
        throw error;
      }
      const name = unescapeName(sent);
      // A part with a filename parameter is a file, even when `filename*` could not be decoded
      // (then `filename`, if any, names it); RFC 7578 §4.2.
      const { filename, "filename*": extended } = disposition.params;
      const rawFilename = extended !== undefined && extended !== ""
        ? extended
        : filename === undefined
        ? extended
        : unescapeName(filename);
      // 3. a field is read whole, within its limit; a file is handed out as a stream
      if (rawFilename === undefined) {
        const chunks: Uint8Array[] = [];
        let size = 0;
        await serial(async () => {
          for (let bytes; (bytes = await parser.nextData()) !== null;) {
            size += bytes.byteLength;
            if (size > limits.fieldBytes) {
              const error = tooLarge(`The multipart field "${name}"`, limits.fieldBytes);
              parser.fail(error);
              throw error;
            }
            chunks.push(bytes);
          }
        });
        const own = contentType === undefined
          ? undefined
          : parseContentDisposition(contentType).params.charset;
        const value = decode(concat(chunks, size), own ?? charset);
        if (name === "_charset_") charset = value;
        yield { kind: "field", name, value, contentType: contentType ?? "text/plain" };
        continue;
      }
      const state = { abandoned: false, last: false };
      previous = state;
      yield {
        kind: "file",
        name,
        filename: sanitizeFilename(rawFilename),
        rawFilename,
        contentType: contentType ?? "text/plain",
        stream: fileStream(parser, serial, state, name, limits.fileBytes),
      };
    }
  } finally {
    // the handler left the loop: the body is cancelled, unless it left at a file it may still
    // read (a `break` or `return` with the part at hand), whose stream then cancels it at its end
    if (!finished) {
      if (previous !== undefined && !previous.abandoned && parser.inBody) previous.last = true;
      else parser.cancel();
    }
  }
}

// The current file's standing: `abandoned` once the next part was asked for, `last` once the
// handler left the loop while the file was still unread.
interface FileState {
  abandoned: boolean;
  last: boolean;
}

function fileStream(
  parser: MultipartParser,
  serial: <T>(read: () => Promise<T>) => Promise<T>,
  state: FileState,
  name: string,
  fileBytes: number,
): ReadableStream<Uint8Array> {
  let size = 0;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const bytes = await serial(() => {
        if (state.abandoned) {
          throw new TypeError(
            `Cannot read the file of part "${name}": the next part was asked for first`,
          );
        }
        return parser.nextData();
      });
      if (bytes === null) {
        controller.close();
        if (state.last) parser.cancel();
        return;
      }
      size += bytes.byteLength;
      if (size > fileBytes) {
        const error = tooLarge(`The multipart file "${name}"`, fileBytes);
        parser.fail(error);
        throw error;
      }
      controller.enqueue(bytes);
    },
    cancel() {
      if (state.last) parser.cancel();
    },
  }, { highWaterMark: 0 });
}
