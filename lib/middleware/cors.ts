/**
 * `cors()`: Cross-Origin Resource Sharing headers (Fetch standard §3.2) on every response.
 *
 * @module
 */
import type { Context } from "../context.ts";
import type { Middleware } from "../types.ts";
import { appendVary, editHeaders, isToken, parseList } from "./_headers.ts";

/**
 * Which origins may read responses: `"*"` (any, without credentials), one origin, a list of
 * origins, a RegExp tested against the `Origin` header, or a function that decides.
 */
export type CorsOrigin =
  | string
  | readonly string[]
  | RegExp
  | ((origin: string, ctx: Context) => boolean | Promise<boolean>);

/** Options of {@linkcode cors}. */
export interface CorsOptions {
  /**
   * The allowed origins. A string other than `"*"` or a list is compared with the request's
   * `Origin` (ASCII case-insensitively) and reflected when it matches; a RegExp is tested
   * against the `Origin` (anchor it: `/^https:\/\/[a-z]+\.example\.com$/`); a function
   * receives the `Origin` and the context and returns whether to allow it. The opaque origin
   * `"null"` (sandboxed frames, `file:` pages, some redirects) is never matched by a string,
   * list or RegExp; only a function can allow it. A listed origin must be written as browsers
   * send it (`scheme://host[:port]`: no path, no default port, a name past ASCII as punycode).
   *
   * @default {"*"}
   */
  origin?: CorsOrigin;
  /**
   * The methods a preflight allows (`Access-Control-Allow-Methods`).
   *
   * @default {["GET", "HEAD", "PUT", "PATCH", "POST", "DELETE"]}
   */
  methods?: readonly string[];
  /**
   * The request headers a preflight allows (`Access-Control-Allow-Headers`). When absent, the
   * field names listed in the preflight's `Access-Control-Request-Headers` are reflected.
   *
   * @default {undefined}
   */
  allowHeaders?: readonly string[];
  /**
   * The response headers scripts may read (`Access-Control-Expose-Headers`).
   *
   * @default {[]}
   */
  exposeHeaders?: readonly string[];
  /**
   * Whether responses to requests with credentials (cookies, `Authorization`, TLS client
   * certificates) may be read (`Access-Control-Allow-Credentials: true`). Cannot be combined
   * with `origin: "*"`.
   *
   * @default {false}
   */
  credentials?: boolean;
  /**
   * How many seconds a browser may cache a preflight's answer (`Access-Control-Max-Age`);
   * when absent the header is not sent and browsers use their default (5 seconds).
   *
   * @default {undefined}
   */
  maxAge?: number;
}

type Match = (origin: string, ctx: Context) => boolean | Promise<boolean>;

const DEFAULT_METHODS = ["GET", "HEAD", "PUT", "PATCH", "POST", "DELETE"] as const;

function fail(detail: string): never {
  throw new TypeError(`Cannot create cors(): ${detail}`);
}

function tokenList(name: string, values: readonly string[]): string {
  if (!Array.isArray(values)) fail(`${name} must be an array of strings`);
  for (const value of values) {
    if (typeof value !== "string" || !isToken(value)) {
      fail(`${name} contains ${JSON.stringify(value)}, which is not an HTTP token`);
    }
  }
  return values.join(", ");
}

function compileOrigin(origin: CorsOrigin): Match {
  if (typeof origin === "function") {
    // Awaited whatever it returns, so a thenable is never mistaken for a refusal or a yes.
    return async (value, ctx) => await origin(value, ctx);
  }
  if (origin instanceof RegExp) {
    // A global or sticky RegExp keeps state between test() calls; use a stateless copy.
    const re = new RegExp(origin.source, origin.flags.replace(/[gy]/g, ""));
    return (value) => value !== "null" && re.test(value);
  }
  const list = typeof origin === "string" ? [origin] : origin;
  if (!Array.isArray(list)) fail("origin must be a string, an array, a RegExp or a function");
  const allowed = new Set<string>();
  for (const entry of list) {
    if (typeof entry !== "string") fail(`origin ${JSON.stringify(entry)} is not a string`);
    if (entry === "*") fail(`"*" cannot be part of a list; use origin: "*" alone`);
    // Browsers serialize origins in lower case without a trailing slash.
    const normalized = entry.toLowerCase().replace(/\/$/, "");
    if (normalized === "null") continue;
    // An entry that is not an origin as browsers write it would never match: a path, a default
    // port ("https://app.example:443"), a name past ASCII (sent as punycode).
    let serialized: string | undefined;
    try {
      const url = new URL(normalized);
      serialized = url.origin !== "null" ? url.origin : /^[a-z][a-z0-9+.-]*:\/\/[^/?#]+$/
          .test(normalized)
        ? normalized // a scheme the URL standard gives no origin (chrome-extension://id)
        : undefined;
    } catch {
      // not a URL at all
    }
    if (serialized !== normalized) {
      fail(
        `origin ${
          JSON.stringify(entry)
        } is not an origin as browsers send it (scheme://host[:port]` +
          (serialized === undefined ? ")" : `); write ${JSON.stringify(serialized)}`),
      );
    }
    allowed.add(normalized);
  }
  return (value) => allowed.has(value.toLowerCase());
}

/**
 * Adds CORS headers to every response. Preflight requests (`OPTIONS` with
 * `Access-Control-Request-Method`) are answered by the router's automatic OPTIONS handling
 * (204 with `Allow`) or by the route's own OPTIONS handler; this middleware never
 * short-circuits, it adds `Access-Control-Allow-Methods`, `-Allow-Headers` and `-Max-Age` to
 * that answer. Whenever `Access-Control-Allow-Origin` depends on the request (every
 * configuration but `"*"`), `Origin` is merged into the response's `Vary`, for disallowed and
 * non-CORS requests too, so caches never serve one origin's answer to another. Put it in a
 * chain or a group, whose middleware wrap the router's OPTIONS answers: as the middleware of a
 * route of another method it never sees the preflight, which then carries no CORS headers.
 *
 * @param options Allowed origins, methods and headers, credentials, preflight cache time.
 * @returns The middleware.
 * @throws {TypeError} When `credentials: true` is combined with `origin: "*"` or with `"*"` in
 * `methods`, `allowHeaders` or `exposeHeaders` (a browser reads it as a name then, not as a
 * wildcard), when a listed origin is not written as browsers send it, or an option is
 * malformed.
 * @throws {RangeError} When `maxAge` is not a non-negative integer.
 *
 * @example Allow one origin, with credentials
 * ```ts
 * import { chain, get, router } from "../../mod.ts";
 * import { cors } from "./cors.ts";
 * import assert from "node:assert/strict";
 *
 * const app = chain(
 *   [cors({ origin: ["https://app.example"], credentials: true })],
 *   router([get("/", () => new Response("hi"))]),
 * );
 * const res = await app.fetch(
 *   new Request("http://localhost/", { headers: { origin: "https://app.example" } }),
 * );
 * assert.equal(res.headers.get("access-control-allow-origin"), "https://app.example");
 * assert.equal(res.headers.get("access-control-allow-credentials"), "true");
 * assert.equal(res.headers.get("vary"), "Origin");
 * ```
 *
 * @example A preflight is answered by the router; cors adds its headers
 * ```ts
 * import { chain, put, router } from "../../mod.ts";
 * import { cors } from "./cors.ts";
 * import assert from "node:assert/strict";
 *
 * const app = chain(
 *   [cors({ origin: "https://app.example", allowHeaders: ["x-api-version"], maxAge: 600 })],
 *   router([put("/items/:id", () => new Response("saved"))]),
 * );
 * const res = await app.fetch(new Request("http://localhost/items/1", {
 *   method: "OPTIONS",
 *   headers: { origin: "https://app.example", "access-control-request-method": "PUT" },
 * }));
 * assert.equal(res.status, 204);
 * assert.equal(res.headers.get("allow"), "PUT, OPTIONS");
 * assert.equal(res.headers.get("access-control-allow-headers"), "x-api-version");
 * assert.equal(res.headers.get("access-control-max-age"), "600");
 * ```
 */
export function cors(options?: CorsOptions): Middleware;
export function cors(options: CorsOptions = {}): Middleware {
  // 1. validate and prepare everything once
  const origin = options.origin ?? "*";
  const credentials = options.credentials === true;
  const any = origin === "*";
  if (any && credentials) {
    fail('credentials: true cannot be combined with origin: "*"; list the allowed origins');
  }
  const match = any ? undefined : compileOrigin(origin);
  const methods = tokenList("methods", options.methods ?? DEFAULT_METHODS);
  const allowHeaders = options.allowHeaders === undefined
    ? undefined
    : tokenList("allowHeaders", options.allowHeaders);
  const exposeHeaders = tokenList("exposeHeaders", options.exposeHeaders ?? []);
  // The Fetch standard reads "*" as a wildcard only for requests without credentials: with
  // them, a browser takes it as a header or method named "*", and refuses every call.
  if (credentials) {
    for (const [name, list] of [["methods", methods], ["allowHeaders", allowHeaders]] as const) {
      if (list?.split(", ").includes("*")) {
        fail(`${name} "*" is no wildcard with credentials: true; list the names`);
      }
    }
    if (exposeHeaders.split(", ").includes("*")) {
      fail('exposeHeaders "*" is no wildcard with credentials: true; list the names');
    }
  }
  const maxAge = options.maxAge;
  if (maxAge !== undefined && (!Number.isSafeInteger(maxAge) || maxAge < 0)) {
    throw new RangeError(`Cannot create cors(): maxAge ${maxAge} is not a non-negative integer`);
  }
  const maxAgeValue = maxAge === undefined ? undefined : String(maxAge);

  return async function cors(ctx, next) {
    // 2. decide on the request as it arrived
    const requestOrigin = ctx.header("origin");
    let allowOrigin: string | null = null;
    if (any) allowOrigin = "*";
    else if (requestOrigin !== null) {
      let ok = match!(requestOrigin, ctx);
      if (ok instanceof Promise) ok = await ok;
      if (ok === true) allowOrigin = requestOrigin;
    }
    const preflight = allowOrigin !== null && requestOrigin !== null &&
      ctx.req.method === "OPTIONS" && ctx.header("access-control-request-method") !== null;
    const requestedHeaders = preflight && allowHeaders === undefined
      ? ctx.header("access-control-request-headers")
      : null;

    // 3. let the chain answer (never short-circuit), then add the headers
    const res = await next();
    return editHeaders(res, (headers) => {
      if (!any) appendVary(headers, "Origin");
      if (allowOrigin === null) return;
      headers.set("access-control-allow-origin", allowOrigin);
      if (credentials) headers.set("access-control-allow-credentials", "true");
      if (preflight) {
        headers.set("access-control-allow-methods", methods);
        const allowed = allowHeaders ?? reflectHeaders(requestedHeaders);
        if (allowed !== "") headers.set("access-control-allow-headers", allowed);
        if (maxAgeValue !== undefined) headers.set("access-control-max-age", maxAgeValue);
      } else if (exposeHeaders !== "") {
        headers.set("access-control-expose-headers", exposeHeaders);
      }
    });
  };
}

// The field names of Access-Control-Request-Headers that are valid tokens, in one linear pass.
function reflectHeaders(requested: string | null): string {
  if (requested === null) return "";
  let out = "";
  for (const name of parseList(requested)) {
    if (isToken(name)) out = out === "" ? name : `${out}, ${name}`;
  }
  return out;
}
