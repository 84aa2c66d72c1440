/**
 * `csrf()`: refuses cross-site requests with unsafe methods, from the `Sec-Fetch-Site` and
 * `Origin` headers browsers send, with a double-submit token for clients that send neither.
 *
 * @module
 */
import type { Context } from "../context.ts";
import { problem } from "../http/problem.ts";
import type { Middleware } from "../types.ts";
import { type CookieOptions, getCookie, setCookie } from "./cookie.ts";
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
export function csrfToken(ctx: Context): string | undefined {
  return ctx.get<string>(CSRF_TOKEN_KEY);
}

/**
 * Protects against cross-site request forgery. Safe methods (GET, HEAD, OPTIONS, TRACE) always
 * pass. An unsafe request passes when:
 *
 * 1. `Sec-Fetch-Site` is `same-origin` or `none` (Fetch Metadata, sent by current browsers);
 * 2. otherwise, its `Origin` is the request's own origin or an allowed one;
 * 3. otherwise, when it carries neither header (an old browser, or not a browser), its
 *    double-submit token in the `x-csrf-token` header or the `_csrf` form field equals the
 *    token cookie.
 *
 * Everything else is refused with a 403 problem, before the handler runs. The token is
 * exposed with {@linkcode csrfToken} and its cookie set when the request has none.
 *
 * @param options Extra allowed origins, the token's cookie, header and form field.
 * @returns The middleware.
 * @throws {TypeError} When an origin is not a serialised origin (`scheme://host[:port]`).
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
export function csrf(options: CsrfOptions = {}): Middleware {
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
  const header = options.header ?? "x-csrf-token";
  const field = options.field ?? "_csrf";

  return async function csrf(ctx, next) {
    let token = getCookie(ctx, name);
    if (token !== undefined && !TOKEN_SHAPE.test(token)) token = undefined;
    if (token === undefined) {
      token = randomToken(TOKEN_BYTES);
      setCookie(ctx, name, token, cookie);
    }
    ctx.set(CSRF_TOKEN_KEY, token);
    if (SAFE.has(ctx.req.method)) return await next();

    const refusal = await check(ctx, token, isAllowed, header, field, getCookie(ctx, name));
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
  field: string,
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
  const submitted = ctx.header(header) ?? await formField(ctx, field);
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

// The token from a form body, read from a copy so that the handler can still read the body.
async function formField(ctx: Context, field: string): Promise<string | undefined> {
  const type = ctx.header("content-type")?.toLowerCase() ?? "";
  if (
    !type.startsWith("application/x-www-form-urlencoded") &&
    !type.startsWith("multipart/form-data")
  ) return undefined;
  try {
    const value = (await ctx.req.clone().formData()).get(field);
    return typeof value === "string" ? value : undefined;
  } catch {
    return undefined; // a malformed body has no token; the handler meets the same body
  }
}
