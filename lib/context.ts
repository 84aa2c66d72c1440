/**
 * The request context passed to every handler and middleware.
 *
 * @module
 */
import { HttpError } from "./http/http_error.ts";
import { readLimited, tooLarge } from "./http/read_limited.ts";
import type { Decodable, DecodeResult } from "./json/json_error.ts";
import type { Params } from "./types.ts";
import { type ConnInfo, REQUEST_TARGET as TARGET_KEY } from "./server/types.ts";
import { decodePath } from "./router/_path.ts";
import { bound } from "./_bounded_request.ts";
import { SAFE } from "./_settled.ts";

/** The default limit of {@linkcode Context.body}: 1 MiB. */
export const DEFAULT_BODY_LIMIT = 1_048_576;

/** The response status and headers that responses built by Weft inherit. */
export interface ResponseState {
  /** The default status of `ctx.json()` and friends. */
  status: number;
  /** Headers set by middleware and handlers with `ctx.setHeader()`. */
  readonly headers: Headers;
}

const EMPTY_INFO: ConnInfo = {};
// Imported bindings are read through a cell on every use; module constants are folded into the
// compiled code.
const REQUEST_TARGET: typeof TARGET_KEY = TARGET_KEY;

/**
 * The request context: the request, its path params, the response state that built responses
 * inherit, the authenticated user and string-keyed entries.
 *
 * @example
 * ```ts
 * import { Context } from "./context.ts";
 * import assert from "node:assert/strict";
 *
 * const ctx = new Context(new Request("http://localhost/users/7?tab=posts"));
 * assert.equal(ctx.path, "/users/7");
 * assert.equal(ctx.query("tab"), "posts");
 * ctx.set("auth.token", "abc");
 * assert.equal(ctx.get("auth.token"), "abc");
 * ```
 */
export class Context<P extends Params = Params> {
  /** Connection facts (peer address) from the server. */
  readonly info: ConnInfo;
  /** The authenticated user, set by the auth middleware. */
  user: unknown = undefined;
  /** The largest body {@linkcode Context.body} reads, in bytes. */
  bodyLimit: number = DEFAULT_BODY_LIMIT;
  /** The error a handler or middleware threw, once it was turned into a response. */
  error: unknown = undefined;
  /**
   * The pattern of the route that matched (`"/users/:id"`), set by the router; `undefined`
   * before routing and when no route matched.
   */
  route: string | undefined = undefined;
  #req: Request;
  #bounded = false;
  #params: P | undefined;
  #path: string | undefined;
  #decodedPath: string | undefined;
  #query: URLSearchParams | undefined;
  #res: ResponseState | undefined;
  #entries: Map<string, unknown> | undefined;
  #body: Promise<Uint8Array<ArrayBuffer>> | undefined;

  /**
   * Creates the context of one request.
   *
   * @param request The incoming request.
   * @param info Connection facts from the server.
   */
  constructor(request: Request, info: ConnInfo = EMPTY_INFO) {
    this.#req = request;
    this.info = info;
    // The chain's own field (lib/_app.ts), kept out of the public type.
    (this as unknown as { [SAFE]: unknown })[SAFE] = undefined;
  }

  /** Path params of the matched route, decoded once (empty until a route with params matched). */
  get params(): P {
    return this.#params ??= {} as P;
  }
  set params(params: P) {
    this.#params = params;
  }

  /**
   * The request; middleware may replace it. Its body is bounded by
   * {@linkcode Context.bodyLimit} like {@linkcode Context.body}: `text()`, `formData()`,
   * `json()`, `arrayBuffer()`, `blob()`, `bytes()` and the `body` stream fail with a 413
   * `HttpError` as soon as more bytes than the limit arrived (GET and HEAD bodies are left as
   * they are).
   */
  get req(): Request {
    if (this.#bounded) return this.#req;
    this.#bounded = true;
    return this.#req = bound(this.#req, this);
  }
  set req(request: Request) {
    this.#req = request;
    this.#bounded = false;
    this.#path = undefined;
    this.#decodedPath = undefined;
    this.#query = undefined;
    this.#body = undefined;
  }

  /**
   * The request path as the router matches it: percent-escapes decoded, except `%2F` and
   * `%25`, which stay encoded so that `/a%2Fb` remains one segment. Authorise on this path (or
   * better, put the guard in a group's middleware), never on {@linkcode Context.path}:
   * `/%61dmin` is `/admin` here and to the router, but not in `ctx.path`.
   *
   * @throws {HttpError} 400 when the path has a malformed escape or is not UTF-8.
   */
  get decodedPath(): string {
    if (this.#decodedPath === undefined) {
      try {
        this.#decodedPath = decodePath(this.path);
      } catch (error) {
        throw new HttpError(400, "The request path has a malformed percent-encoding", {
          cause: error,
        });
      }
    }
    return this.#decodedPath;
  }

  /**
   * The request path without the query string, as sent (not percent-decoded; see
   * {@linkcode Context.decodedPath} for the path the router matches).
   */
  get path(): string {
    if (this.#path === undefined) {
      const target = (this.#req as { [REQUEST_TARGET]?: string })[REQUEST_TARGET];
      if (target !== undefined) {
        const end = target.indexOf("?");
        return this.#path = end === -1 ? target : target.slice(0, end);
      }
      const url = this.#req.url;
      // the authority starts after "http://" or "https://" (an indexOf is a builtin call)
      const authority = url.charCodeAt(4) === 58
        ? 7
        : url.charCodeAt(5) === 58
        ? 8
        : url.indexOf(":") + 3;
      const start = url.indexOf("/", authority);
      if (start === -1) return this.#path = "/";
      const end = url.indexOf("?", start);
      this.#path = end === -1 ? url.slice(start) : url.slice(start, end);
    }
    return this.#path;
  }

  /**
   * Reads a query parameter.
   *
   * @param name The parameter name.
   * @returns The first value, or `null` when absent.
   */
  query(name: string): string | null {
    if (this.#query === undefined) {
      const url = this.#req.url;
      const start = url.indexOf("?");
      this.#query = new URLSearchParams(start === -1 ? "" : url.slice(start + 1));
    }
    return this.#query.get(name);
  }

  /** The response state (status and headers) that responses built by Weft inherit. */
  get res(): ResponseState {
    return this.#res ??= { status: 200, headers: new Headers() };
  }

  /** Whether any middleware or handler touched {@linkcode Context.res}. */
  get hasResponseState(): boolean {
    return this.#res !== undefined;
  }

  /**
   * Reads a request header.
   *
   * @param name The header name (case-insensitive).
   * @returns The value, or `null` when absent.
   */
  header(name: string): string | null {
    return this.#req.headers.get(name);
  }

  /**
   * Sets a response header that the response will carry.
   *
   * @param name The header name.
   * @param value The value; `Set-Cookie` values are appended, others replace.
   */
  setHeader(name: string, value: string): void {
    const headers = this.res.headers;
    if (name.toLowerCase() === "set-cookie") headers.append(name, value);
    else headers.set(name, value);
  }

  /**
   * Stores an entry (for example `auth.token`).
   *
   * @param key The entry's key.
   * @param value Any value.
   */
  set(key: string, value: unknown): void {
    (this.#entries ??= new Map()).set(key, value);
  }

  /**
   * Reads an entry stored with {@linkcode Context.set}.
   *
   * @param key The entry's key.
   * @returns The value, or `undefined`.
   */
  get<T = unknown>(key: string): T | undefined {
    return this.#entries?.get(key) as T | undefined;
  }

  /**
   * Reads the whole request body, at most {@linkcode Context.bodyLimit} bytes. Throws an
   * `HttpError` 413 when a declared `Content-Length` or the bytes read exceed the limit (so
   * chunked bodies are bounded too), and 400 when the body cannot be read.
   *
   * @returns The body bytes (empty when there is no body); the same promise on every call.
   */
  body(): Promise<Uint8Array<ArrayBuffer>> {
    return this.#body ??= readBody(this.#req, this.bodyLimit);
  }

  /**
   * Reads the body (within {@linkcode Context.bodyLimit}) and decodes it as JSON into the
   * schema's type, without an intermediate string copy. Answer a failure with
   * `jsonErrorResponse()`. The decoder comes with the schema, so bundlers keep it whenever an
   * app decodes.
   *
   * @param target A Weft schema, or any Standard Schema v1 validator (zod, valibot, arktype)
   * wrapped with `schema.standard(validator)`.
   * @returns `{ ok: true, value }` or `{ ok: false, error }` with a `JsonError`.
   * @throws {HttpError} 415 when a Content-Type is given and is not JSON (`application/json`
   * or `…+json`); a body without one is decoded.
   *
   * @example
   * ```ts
   * import { Context } from "./context.ts";
   * import { schema } from "./json/mod.ts";
   * import assert from "node:assert/strict";
   *
   * const headers = { "content-type": "application/json" };
   * const ctx = new Context(new Request("http://localhost/", { method: "POST", headers, body: '{"name":"Ada"}' }));
   * const result = await ctx.decode(schema.object({ name: schema.string() }));
   * assert.deepEqual(result, { ok: true, value: { name: "Ada" } });
   * ```
   */
  async decode<T>(target: Decodable<T>): Promise<DecodeResult<T>> {
    const decode = target?.["~decode"];
    if (typeof decode !== "function") {
      throw new TypeError(
        "Cannot decode the body: the target is not a Weft schema; wrap a Standard Schema validator with schema.standard()",
      );
    }
    return decode(await this.body(), this.#req.headers.get("content-type"));
  }

  /**
   * Builds a JSON response from a value; it inherits {@linkcode Context.res}.
   *
   * @param value Any JSON-serializable value.
   * @param status The status; `ctx.res.status` by default.
   */
  json(value: unknown, status?: number): Response {
    if (this.#res === undefined) {
      return status === undefined ? Response.json(value) : Response.json(value, { status });
    }
    return this.respond(JSON.stringify(value), "application/json", status);
  }

  /**
   * Builds a response that inherits {@linkcode Context.res} headers and status.
   *
   * @param body The body.
   * @param contentType The `Content-Type`, unless `null`.
   * @param status The status; `ctx.res.status` by default.
   */
  respond(body: BodyInit | null, contentType: string | null, status?: number): Response {
    const state = this.#res;
    if (state === undefined) {
      return new Response(
        body,
        contentType === null
          ? { status: status ?? 200 }
          : { status: status ?? 200, headers: { "content-type": contentType } },
      );
    }
    const headers = new Headers(state.headers);
    if (contentType !== null && !headers.has("content-type")) {
      headers.set("content-type", contentType);
    }
    return new Response(body, { status: status ?? state.status, headers });
  }
}

async function readBody(request: Request, limit: number): Promise<Uint8Array<ArrayBuffer>> {
  const declared = request.headers.get("content-length");
  if (declared !== null && Number(declared) > limit) throw tooLarge(limit);
  let body: Uint8Array<ArrayBuffer> | null;
  try {
    body = await readLimited(request.body, limit);
  } catch (error) {
    if (error instanceof HttpError) throw error; // a limit enforced by the stream itself
    throw new HttpError(400, "The request body could not be read", { cause: error });
  }
  if (body === null) throw tooLarge(limit);
  return body;
}
