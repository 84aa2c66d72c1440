/**
 * `csrf()`: refuses cross-site requests with unsafe methods, from the `Sec-Fetch-Site` and
 * `Origin` headers browsers send, with a double-submit token for clients that send neither.
 *
 * @module
 */
import type { Context } from "../context.ts";
import { HttpError } from "../http/http_error.ts";
import { problem } from "../http/problem.ts";
import { isToken } from "../middleware/_headers.ts";
import { concat } from "../http/read_limited.ts";
import { parseContentDisposition } from "../multipart/_disposition.ts";
import { MultipartParser } from "../multipart/_parser.ts";
import type { Middleware } from "../types.ts";

/** The variable {@linkcode csrf} sets: the double-submit token of the request. */
export interface CsrfVariables {
  /** The token to put in forms (the same as the cookie's). */
  "csrf.token": string;
}
import { type CookieOptions, getCookie, serializeCookie, setCookie } from "./cookie.ts";
import { randomToken, timingSafeEqual, utf8 } from "./_crypto.ts";

/** The key under which `csrf()` stores the request's token (see {@linkcode csrfToken}). */
export const CSRF_TOKEN_KEY = "csrf.token";

/** Options of {@linkcode csrf}. */
export interface CsrfOptions {
  /**
   * Origins besides the request's own that may send unsafe requests (`"https://app.example"`),
   * or a function deciding from the `Origin` header.
   *
   * @default {[]}
   */
  origin?: readonly string[] | ((origin: string, ctx: Context) => boolean);
  /**
   * The double-submit token's cookie: its name and attributes. Over HTTPS prefer a `__Host-`
   * name with `secure: true`. Not `httpOnly`, so a page's script can copy it into the header.
   *
   * @default {{ name: "csrf_token", path: "/", sameSite: "Strict" }}
   */
  cookie?: CookieOptions & { name?: string };
  /**
   * The request header that carries the token.
   *
   * @default {"x-csrf-token"}
   */
  header?: string;
  /**
   * The form field that carries the token in `application/x-www-form-urlencoded` and
   * `multipart/form-data` bodies.
   *
   * @default {"_csrf"}
   */
  field?: string;
  /**
   * How many bytes at the start of a form body are searched for the token field. The field is
   * read from a copy of the body, so only this much of an upload is held twice; a token
   * further on, or after a file part of a multipart form, is not seen (put the hidden field
   * first in the form, or send the header).
   *
   * @default {65536}
   */
  formBytes?: number;
}

// RFC 9110 §9.2.1: safe methods have no side effects a server should guard.
const SAFE = /* @__PURE__ */ new Set(["GET", "HEAD", "OPTIONS", "TRACE"]);
const TOKEN_BYTES = 32;
const TOKEN_SHAPE = /^[A-Za-z0-9_-]{43}$/;

/**
 * Reads the double-submit token of the request (to render into a form's hidden `_csrf`
 * field). `csrf()` issues one on a request that has none.
 *
 * @param ctx The request context.
 * @returns The token, or `undefined` when no `csrf()` middleware ran.
 *
 * @example
 * ```ts
 * import { chain, get, router } from "../../mod.ts";
 * import { csrf, csrfToken } from "./csrf.ts";
 * import assert from "node:assert/strict";
 *
 * const app = chain([csrf()], router([get("/form", (ctx) => ctx.json({ token: csrfToken(ctx) }))]));
 * const res = await app.fetch(new Request("http://localhost/form"));
 * const { token } = await res.json();
 * assert.match(res.headers.getSetCookie()[0], new RegExp(`^csrf_token=${token};`));
 * ```
 */
export function csrfToken(ctx: { readonly var: CsrfVariables | object }): string | undefined {
  return (ctx.var as Partial<CsrfVariables>)[CSRF_TOKEN_KEY];
}

/**
 * Protects against cross-site request forgery. Safe methods (GET, HEAD, OPTIONS, TRACE) always
 * pass. An unsafe request passes when:
 *
 * 1. `Sec-Fetch-Site` is `same-origin` or `none` (Fetch Metadata, sent by current browsers);
 * 2. otherwise, its `Origin` is the request's own origin or an allowed one;
 * 3. otherwise, when it carries neither header (an old browser, or not a browser), its
 *    double-submit token in the `x-csrf-token` header or the `_csrf` form field equals the
 *    token cookie. The field is looked for in the first 64 KiB of the body
 *    ({@linkcode CsrfOptions.formBytes}), before any file of a multipart form, and read from a
 *    copy that stops there, so the handler still gets the whole body.
 *
 * Everything else is refused with a 403 problem, before the handler runs. A body that cannot
 * be read while the field is looked for keeps its own error: the 413 of the body limit, or a
 * 400 when the client broke off. The token is exposed with {@linkcode csrfToken} and its
 * cookie set when the request has none.
 *
 * @param options Extra allowed origins, the token's cookie, header and form field, and how
 * much of a form is searched.
 * @returns The middleware.
 * @throws {TypeError} When an origin is not a serialised origin (`scheme://host[:port]`), the
 * cookie's name or attributes would be refused by `setCookie()` (a `__Host-` name without
 * `secure: true`, say), or `header` is no header name.
 * @throws {RangeError} When `formBytes` is not a non-negative integer.
 *
 * @example
 * ```ts
 * import { chain, post, router } from "../../mod.ts";
 * import { csrf } from "./csrf.ts";
 * import assert from "node:assert/strict";
 *
 * const app = chain([csrf()], router([post("/transfer", () => new Response("done"))]));
 * const same = await app.fetch(new Request("https://bank.example/transfer", {
 *   method: "POST", headers: { origin: "https://bank.example", "sec-fetch-site": "same-origin" },
 * }));
 * assert.equal(same.status, 200);
 * const cross = await app.fetch(new Request("https://bank.example/transfer", {
 *   method: "POST", headers: { origin: "https://evil.example", "sec-fetch-site": "cross-site" },
 * }));
 * assert.equal(cross.status, 403);
 * ```
 */
export function csrf(options: CsrfOptions = {}): Middleware<CsrfVariables> {
  const allowed = options.origin ?? [];
  if (typeof allowed !== "function") {
    for (const origin of allowed) {
      if (typeof origin !== "string" || new URL(origin).origin !== origin) {
        throw new TypeError(
          `Cannot create csrf(): "${origin}" is not an origin (scheme://host[:port], no path)`,
        );
      }
    }
  }
  const isAllowed = typeof allowed === "function"
    ? allowed
    : (origin: string) => allowed.includes(origin);
  const { name = "csrf_token", ...attributes } = options.cookie ?? {};
  const cookie: CookieOptions = { path: "/", sameSite: "Strict", ...attributes };
  // checked here, once: otherwise each request without a token cookie would fail with a 500
  try {
    serializeCookie(name, "", cookie);
  } catch (error) {
    throw new TypeError(`Cannot create csrf(): ${(error as Error).message}`);
  }
  const header = options.header ?? "x-csrf-token";
  if (typeof header !== "string" || !isToken(header)) {
    throw new TypeError(`Cannot create csrf(): header ${JSON.stringify(header)} is no header name`);
  }
  const field = options.field ?? "_csrf";
  if (typeof field !== "string" || field === "") {
    throw new TypeError("Cannot create csrf(): field must be a non-empty string");
  }
  const formBytes = options.formBytes ?? 65_536;
  if (!Number.isSafeInteger(formBytes) || formBytes < 0) {
    throw new RangeError(
      `Cannot create csrf(): formBytes ${formBytes} is not a non-negative integer`,
    );
  }
  const form = { field, bytes: formBytes };

  return async function csrf(ctx, next) {
    let token = getCookie(ctx, name);
    if (token !== undefined && !TOKEN_SHAPE.test(token)) token = undefined;
    if (token === undefined) {
      token = randomToken(TOKEN_BYTES);
      setCookie(ctx, name, token, cookie);
    }
    ctx.set(CSRF_TOKEN_KEY, token);
    if (SAFE.has(ctx.req.method)) return await next();

    const refusal = await check(ctx, token, isAllowed, header, form, getCookie(ctx, name));
    if (refusal !== undefined) return problem({ status: 403, detail: refusal });
    return await next();
  };
}

// Why the unsafe request is refused, or undefined when it may pass.
async function check(
  ctx: Context,
  token: string,
  isAllowed: (origin: string, ctx: Context) => boolean,
  header: string,
  form: FormSearch,
  sent: string | undefined,
): Promise<string | undefined> {
  // 1. Fetch Metadata
  const site = ctx.header("sec-fetch-site");
  if (site === "same-origin" || site === "none") return undefined;
  // 2. Origin
  const origin = ctx.header("origin");
  if (origin !== null) {
    if (origin !== "null" && (origin === ownOrigin(ctx) || isAllowed(origin, ctx))) {
      return undefined;
    }
    return `Cross-site request refused: the origin ${JSON.stringify(origin)} is not allowed`;
  }
  if (site !== null) {
    return `Cross-site request refused: Sec-Fetch-Site is ${JSON.stringify(site)}`;
  }
  // 3. double-submit token, for clients that send neither header
  if (sent === undefined || sent !== token) {
    return "Request refused: it has no Origin header and no CSRF token cookie";
  }
  const submitted = ctx.header(header) ?? await formField(ctx, form);
  if (submitted === CUT) {
    return `Request refused: its CSRF token must come in the ${header} header, or in the ` +
      `${form.field} field within the first ${form.bytes} bytes of the body and before any file`;
  }
  if (submitted === undefined || !timingSafeEqual(utf8(token), utf8(submitted))) {
    return "Request refused: its CSRF token does not match the token cookie";
  }
  return undefined;
}

function ownOrigin(ctx: Context): string {
  const url = ctx.req.url;
  const end = url.indexOf("/", url.indexOf("//") + 2);
  return end === -1 ? url : url.slice(0, end);
}

// Where the token is looked for in a form body: the field, within the first `bytes` bytes.
interface FormSearch {
  field: string;
  bytes: number;
}

// What formField() finds when it stopped before the field: past the bytes it reads, or at a
// file part.
const CUT: unique symbol = /* @__PURE__ */ Symbol("weft.csrfCut");

// The token from a form body, read from a copy (a tee of the body) so that the handler can
// still read the body whole. The copy is read no further than `form.bytes` and cancelled when
// the search ends: left open, it would be sent every chunk the handler reads and keep them all,
// holding a large upload twice.
async function formField(
  ctx: Context,
  form: FormSearch,
): Promise<string | typeof CUT | undefined> {
  const type = ctx.header("content-type") ?? "";
  const lower = type.toLowerCase();
  let boundary: string | undefined;
  if (lower.startsWith("multipart/form-data")) {
    boundary = parseContentDisposition(type).params.boundary;
    if (boundary === undefined || boundary === "") return undefined; // no parts to look in
  } else if (!lower.startsWith("application/x-www-form-urlencoded")) return undefined;
  let copy: ReadableStream<Uint8Array> | null;
  try {
    copy = ctx.req.clone().body;
  } catch {
    return undefined; // the body was already read (by an earlier middleware): no token in it
  }
  if (copy === null) return undefined;
  // an urlencoded pair that ends at the limit is closed by the "&" after it: that byte is read
  const prefix = cut(copy, form.bytes, boundary === undefined ? 0x26 : undefined);
  try {
    return boundary === undefined
      ? await urlencodedField(prefix.stream, form.field)
      : await multipartField(prefix.stream, boundary, form.field);
  } catch {
    // the body's own failure is the request's answer, as it would be in the handler: the 413
    // of the body limit, or a 400 when the client broke off; never a 403 that hides it
    if (prefix.failure !== undefined) {
      const cause = prefix.failure.error;
      if (cause instanceof HttpError) throw cause;
      throw new HttpError(400, "The request body could not be read", { cause });
    }
    if (prefix.past) return CUT;
    return undefined; // a malformed form has no token; the handler meets the same body
  } finally {
    prefix.cancel();
  }
}

// The first `max` bytes of `body` as a stream that fails once the body goes on beyond them
// (and `past` is then set); `failure` keeps an error of the body itself. The byte after them
// is let through too when it is `closer`.
function cut(body: ReadableStream<Uint8Array>, max: number, closer?: number) {
  const reader = body.getReader();
  let seen = 0;
  const prefix = {
    past: false,
    failure: undefined as { error: unknown } | undefined,
    stream: null as unknown as ReadableStream<Uint8Array>,
    cancel() {
      reader.cancel().catch(() => {});
    },
  };
  prefix.stream = new ReadableStream<Uint8Array>({
    async pull(controller) {
      for (;;) {
        if (seen > max) {
          prefix.past = true;
          controller.error(new RangeError(`The form goes on past its first ${max} bytes`));
          return;
        }
        let result: ReadableStreamReadResult<Uint8Array>;
        try {
          result = await reader.read();
        } catch (error) {
          prefix.failure = { error };
          controller.error(error);
          return;
        }
        if (result.done) {
          controller.close();
          return;
        }
        const bytes = result.value;
        let room = max - seen;
        if (room >= 0 && room < bytes.byteLength && bytes[room] === closer) room++;
        seen += bytes.byteLength;
        if (room > 0 && bytes.byteLength > 0) {
          controller.enqueue(bytes.byteLength > room ? bytes.subarray(0, room) : bytes);
          return;
        }
      }
    },
    cancel(reason) {
      return reader.cancel(reason);
    },
  }, { highWaterMark: 0 });
  return prefix;
}

// The first value of `field` in an application/x-www-form-urlencoded body. Only pairs that an
// "&" or the end of the body closes are parsed, so that a value cut at the end of the prefix
// is never taken for the whole; each piece of text is searched once.
async function urlencodedField(
  body: ReadableStream<Uint8Array>,
  field: string,
): Promise<string | undefined> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let rest = ""; // the pair the previous pieces left open
  for (;;) {
    const { done, value } = await reader.read();
    const piece = done ? decoder.decode() : decoder.decode(value, { stream: true });
    const end = done ? piece.length : piece.lastIndexOf("&");
    if (end === -1) {
      rest += piece;
      continue;
    }
    const found = new URLSearchParams(rest + piece.slice(0, end)).get(field);
    if (found !== null) return found;
    if (done) return undefined;
    rest = piece.slice(end + 1);
  }
}

// The value of `field` in a multipart/form-data body, when it comes before any file part (a
// file would be the upload itself); CUT at a file part. Parts before the field are skipped as
// they stream by.
async function multipartField(
  body: ReadableStream<Uint8Array>,
  boundary: string,
  field: string,
): Promise<string | typeof CUT | undefined> {
  // the prefix bounds what is read: the parser's own limits need not
  const parser = new MultipartParser(body, boundary, {
    totalBytes: Infinity,
    headerBytes: Infinity,
  });
  try {
    for (;;) {
      while (parser.inBody) await parser.nextData();
      const event = await parser.next();
      if (event.type !== "part") return undefined; // the close delimiter: no such field
      const header = event.headers.find(([name]) => name === "content-disposition");
      const disposition = parseContentDisposition(header?.[1] ?? "");
      const { name, filename, "filename*": extended } = disposition.params;
      if (filename !== undefined || extended !== undefined) return CUT;
      if (disposition.type !== "form-data" || name !== field) continue;
      const chunks: Uint8Array[] = [];
      let size = 0;
      for (let bytes; (bytes = await parser.nextData()) !== null;) {
        chunks.push(bytes);
        size += bytes.byteLength;
      }
      return new TextDecoder().decode(concat(chunks, size));
    }
  } finally {
    parser.cancel();
  }
}
