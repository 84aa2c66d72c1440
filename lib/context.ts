/**
 * The request context passed to every handler and middleware.
 *
 * @module
 */
import { HttpError } from "./http/http_error.ts";
import { readLimited, tooLarge } from "./http/read_limited.ts";
import type { Decodable, DecodeOptions, DecodeResult } from "./json/json_error.ts";
import type { Params, Variables } from "./_params.ts";
import { type ConnInfo, REQUEST_TARGET as TARGET_KEY } from "./server/types.ts";
import { decodePath } from "./router/_path.ts";
import { bound } from "./_bounded_request.ts";
import { BUILT, HOOKS, ON_ERROR, ON_VALUE, READING, SAFE } from "./_settled.ts";

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
 * inherit, and the variables middleware set (`ctx.var`, typed by `V` and {@linkcode Variables}).
 *
 * @example
 * ```ts
 * import { Context } from "./context.ts";
 * import assert from "node:assert/strict";
 *
 * const ctx = new Context(new Request("http://localhost/users/7?tab=posts"));
 * assert.equal(ctx.path, "/users/7");
 * assert.equal(ctx.query("tab"), "posts");
 * ```
 */
export class Context<P extends Params = Params, V extends object = Record<never, never>> {
  /** Connection facts (peer address) from the server. */
  readonly info: ConnInfo;
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
  #vars: (Variables & V) | undefined;
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
    const own = this as unknown as Record<
      | typeof SAFE
      | typeof HOOKS
      | typeof BUILT
      | typeof ON_VALUE
      | typeof ON_ERROR
      | typeof READING,
      unknown
    >;
    own[SAFE] =
      own[HOOKS] =
      own[BUILT] =
      own[ON_VALUE] =
      own[ON_ERROR] =
      own[READING] =
        undefined;
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
   * they are). A copy made with `new Request(ctx.req, init)` reads the runtime's own body,
   * which the limit does not see, until it is assigned to `ctx.req`.
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
   * `%25`, which stay encoded so that `/a%2Fb` remains one segment, and dot segments resolved
   * (`/x/../admin` and `/%2e%2e/admin` are `/admin`, as a URL parser makes them). Authorise on
   * this path (or better, put the guard in a group's middleware), never on
   * {@linkcode Context.path}: `/%61dmin` is `/admin` here and to the router, but not in
   * `ctx.path`.
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
      const end = url.indexOf("?", authority);
      // a "?" before the first "/": the path is empty, which is "/" (RFC 3986 §3.3), as a runtime
      // may hand over an absolute-form target ("http://a?x=/admin" is not /admin). Looking for a
      // "#" too, which no target may carry, cost 2 % of a request's instructions.
      if (start === -1 || end < start && end !== -1) return this.#path = "/";
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
    // Reached once a response was built from it (a middleware setting a cookie after next()):
    // the app entry point applies it to that response again; what is there already wins.
    (this as unknown as { [BUILT]: undefined })[BUILT] = undefined;
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
   * The variables middleware set for this request: typed by the middleware before the handler
   * (`Middleware<{ user: User }>` gives `ctx.var.user: User`) and by the app-wide
   * {@linkcode Variables}. Reading one that no middleware declares is a compile error.
   *
   * @example
   * ```ts
   * import { chain, type Middleware } from "../mod.ts";
   * import assert from "node:assert/strict";
   *
   * const tenant: Middleware<{ tenant: string }> = (ctx, next) => {
   *   ctx.var.tenant = ctx.header("x-tenant") ?? "public";
   *   return next();
   * };
   * const app = chain([tenant], (ctx) => new Response(ctx.var.tenant.toUpperCase()));
   * const res = await app.fetch(new Request("http://localhost/", { headers: { "x-tenant": "acme" } }));
   * assert.equal(await res.text(), "ACME");
   * ```
   */
  get var(): Variables & V {
    return this.#vars ??= {} as Variables & V;
  }

  /**
   * Sets a variable, as `ctx.var[key] = value` does.
   *
   * @param key A variable declared by the middleware or by {@linkcode Variables}.
   * @param value Its value.
   */
  set<K extends keyof (Variables & V)>(key: K, value: (Variables & V)[K]): void {
    this.var[key] = value;
  }

  /**
   * Reads a variable, as `ctx.var[key]` does.
   *
   * @param key A variable declared by the middleware or by {@linkcode Variables}.
   * @returns Its value.
   */
  get<K extends keyof (Variables & V)>(key: K): (Variables & V)[K] {
    return this.var[key];
  }

  /**
   * Reads the whole request body, at most {@linkcode Context.bodyLimit} bytes. Throws an
   * `HttpError` 413 when a declared `Content-Length` or the bytes read exceed the limit (so
   * chunked bodies are bounded too), and 400 when the body cannot be read. Throws a
   * `TypeError` (a 500, the app's error) when the body was already read through `ctx.req`.
   *
   * @returns The body bytes (empty when there is no body); the same promise on every call.
   */
  body(): Promise<Uint8Array<ArrayBuffer>> {
    return this.#body ??= readBody(this.#req, this.bodyLimit, this.#bounded);
  }

  /**
   * Reads the body (within {@linkcode Context.bodyLimit}) and decodes it as JSON into the
   * schema's type, without an intermediate string copy. Answer a failure with
   * `jsonErrorResponse()`. The decoder comes with the schema, so bundlers keep it whenever an
   * app decodes.
   *
   * @param target A Weft schema, or any Standard Schema v1 validator (zod, valibot, arktype)
   * wrapped with `schema.standard(validator)`.
   * @param options `issues: "all"` to get every issue (up to 100) in `issues` as well, for
   * `jsonErrorResponse(result.error, result.issues)`.
   * @returns `{ ok: true, value }` or `{ ok: false, error }` with a `JsonError`.
   * @throws {HttpError} 415 when a Content-Type is given and is not JSON (`application/json`
   * or `…+json`; a body without one is decoded), or the body is in a content coding
   * (`Content-Encoding: gzip`; the 415 says `Accept-Encoding: identity`). A Standard Schema
   * validator that throws or is asynchronous makes it throw too (a 500, reported): a fault of the
   * app, not of the request.
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
  async decode<T>(target: Decodable<T>, options?: DecodeOptions): Promise<DecodeResult<T>> {
    const decode = target?.["~decode"];
    if (typeof decode !== "function") {
      throw new TypeError(
        "Cannot decode the body: the target is not a Weft schema; wrap a Standard Schema validator with schema.standard()",
      );
    }
    return decode(await this.body(), this.#req.headers, options);
  }

  /**
   * Builds a `text/plain` response; it carries {@linkcode Context.res} (status and headers),
   * overridden by `init`.
   *
   * @param body The text.
   * @param init Status and headers of this response.
   *
   * @example
   * ```ts
   * import { Context } from "./context.ts";
   * import assert from "node:assert/strict";
   *
   * const ctx = new Context(new Request("http://localhost/"));
   * const res = ctx.text("created", { status: 201 });
   * assert.equal(res.status, 201);
   * assert.equal(res.headers.get("content-type"), "text/plain; charset=utf-8");
   * ```
   */
  text(body: string, init?: ResponseInit): Response {
    return this.#build(body, "text/plain; charset=utf-8", init);
  }

  /**
   * Builds a `text/html` response; it carries {@linkcode Context.res}, overridden by `init`.
   *
   * @param body The markup (escape what comes from users; compiled templates do).
   * @param init Status and headers of this response.
   *
   * @example
   * ```ts
   * import { Context } from "./context.ts";
   * import assert from "node:assert/strict";
   *
   * const ctx = new Context(new Request("http://localhost/"));
   * ctx.setHeader("cache-control", "no-store");
   * const res = ctx.html("<h1>Hi</h1>");
   * assert.equal(res.headers.get("content-type"), "text/html; charset=utf-8");
   * assert.equal(res.headers.get("cache-control"), "no-store");
   * ```
   */
  html(body: string, init?: ResponseInit): Response {
    return this.#build(body, "text/html; charset=utf-8", init);
  }

  /**
   * Builds a JSON response from a value; it carries {@linkcode Context.res}, overridden by
   * `init`. With `init.schema` (a Weft schema) the value is written by `json.encode`: only the
   * schema's fields go out, so a field the schema does not name never leaks.
   *
   * @param value Any JSON-serializable value (or one of the schema's type).
   * @param init Status and headers of this response, and the schema to write it through.
   *
   * @example
   * ```ts
   * import { Context } from "./context.ts";
   * import { schema } from "./json/mod.ts";
   * import assert from "node:assert/strict";
   *
   * const PublicUser = schema.object({ id: schema.integer(), name: schema.string() });
   * const ctx = new Context(new Request("http://localhost/"));
   * const row = { id: 7, name: "Ada", passwordHash: "x" };
   * const res = ctx.json(row, { schema: PublicUser, status: 201 });
   * assert.equal(res.status, 201);
   * assert.equal(await res.text(), '{"id":7,"name":"Ada"}');
   * ```
   */
  json<T>(value: T, init?: JsonInit<T>): Response {
    if (init === undefined && this.#res === undefined) return Response.json(value);
    const schema = init?.schema;
    // Every Weft schema carries its encoder (lib/json/schema.ts); a wrapped validator does not,
    // and calling it throws a TypeError.
    const text = schema === undefined
      ? JSON.stringify(value)
      : (schema as unknown as { "~encode": (value: T) => string })["~encode"](value);
    return this.#build(text, "application/json", init);
  }

  /**
   * Builds a redirect; it carries the headers of {@linkcode Context.res}.
   *
   * @param location The target URL (absolute, or a path).
   * @param status 301, 302, 303, 307 or 308.
   * @throws {TypeError} For another status, or a location with CR or LF.
   *
   * @example
   * ```ts
   * import { Context } from "./context.ts";
   * import assert from "node:assert/strict";
   *
   * const res = new Context(new Request("http://localhost/old")).redirect("/new", 308);
   * assert.equal(res.status, 308);
   * assert.equal(res.headers.get("location"), "/new");
   * ```
   */
  redirect(location: string, status: RedirectStatus = 302): Response {
    // 301, 302, 303, 307 and 308 only (RFC 9110 §15.4); a CR or LF would split the header.
    if (![301, 302, 303, 307, 308].includes(status) || /[\r\n]/.test(location)) {
      throw new TypeError(
        `Cannot redirect to "${location}" with ${status}: use 301-303, 307 or 308, and no CR or LF`,
      );
    }
    // A Location is a URI (RFC 9110 §10.2.2): a space, control or non-ASCII character is
    // percent-encoded as UTF-8, as browsers do; Headers refused one past U+00FF (a 500).
    location = location.replace(/[^!-~]+/g, (run) => encodeURI(run.toWellFormed()));
    return this.#build(null, null, { status, headers: { location } });
  }

  /**
   * Builds a response that carries {@linkcode Context.res} headers and status.
   *
   * @param body The body.
   * @param contentType The `Content-Type`, unless `null`.
   * @param status The status; `ctx.res.status` by default.
   */
  respond(body: BodyInit | null, contentType: string | null, status?: number): Response {
    return this.#build(body, contentType, status === undefined ? undefined : { status });
  }

  // ctx.res first, then init; the app entry point does not apply ctx.res to it a second time.
  #build(body: BodyInit | null, type: string | null, init: ResponseInit | undefined): Response {
    const state = this.#res;
    const headers = new Headers(state?.headers);
    if (init?.headers !== undefined) {
      for (const [name, value] of new Headers(init.headers)) {
        if (name === "set-cookie") headers.append(name, value);
        else headers.set(name, value);
      }
    }
    if (type !== null && !headers.has("content-type")) headers.set("content-type", type);
    const res = new Response(body, {
      status: init?.status ?? state?.status ?? 200,
      statusText: init?.statusText,
      headers,
    });
    if (state !== undefined) (this as unknown as { [BUILT]: Response })[BUILT] = res;
    return res;
  }
}

/**
 * The statuses {@linkcode Context.redirect} accepts.
 *
 * @example
 * ```ts
 * import type { RedirectStatus } from "../mod.ts";
 * const seeOther: RedirectStatus = 303;
 * ```
 */
export type RedirectStatus = 301 | 302 | 303 | 307 | 308;

/**
 * The options of {@linkcode Context.json}: the response's status and headers, and a schema.
 *
 * @example
 * ```ts
 * import { Context, type JsonInit, schema } from "../mod.ts";
 * import assert from "node:assert/strict";
 *
 * const Id = schema.object({ id: schema.integer() });
 * const init: JsonInit<{ id: number }> = { status: 201, schema: Id };
 * const res = new Context(new Request("http://localhost/")).json({ id: 1 }, init);
 * assert.equal(res.status, 201);
 * ```
 */
export interface JsonInit<T = unknown> extends ResponseInit {
  /** A Weft schema: only its fields are written (through `json.encode`). */
  schema?: Decodable<T>;
}

// `bounded`: read through ctx.req's bounded body, whose `bodyUsed` says whether a reader took
// from it (unbounded, no reader of the app's could have)
async function readBody(
  request: Request,
  limit: number,
  bounded: boolean,
): Promise<Uint8Array<ArrayBuffer>> {
  const declared = request.headers.get("content-length");
  if (declared !== null && Number(declared) > limit) throw tooLarge(limit);
  const stream = request.body;
  // read before, by ctx.req's own methods or a reader: the app's mistake, not the client's
  if (stream?.locked || bounded && request.bodyUsed) {
    throw new TypeError("The request body was already read");
  }
  let body: Uint8Array<ArrayBuffer> | null;
  try {
    body = await readLimited(stream, limit);
  } catch (error) {
    if (error instanceof HttpError) throw error; // a limit enforced by the stream itself
    throw new HttpError(400, "The request body could not be read", { cause: error });
  }
  if (body === null) throw tooLarge(limit);
  return body;
}
