/**
 * Cookies (RFC 6265bis): `getCookie()`, `getCookies()`, `setCookie()`, `deleteCookie()`, and
 * the pure `parseCookies()` / `serializeCookie()` they are built on.
 *
 * Values are percent-encoded with `encodeURIComponent` when set and decoded with
 * `decodeURIComponent` when read, so any string round-trips; a value that is not valid
 * percent-encoding is returned as it was sent. Parsing and serialisation agree with the
 * `cookie` package from npm (tests/security/cookie_differential_test.ts checks it on generated
 * inputs); the code is Weft's own so that the core keeps zero runtime dependencies and so that
 * the prefix rules are enforced where the cookie is set.
 *
 * @module
 */
import type { Context } from "../context.ts";

/** The attributes of a `Set-Cookie` header (RFC 6265bis §5.7 and CHIPS' `Partitioned`). */
export interface CookieOptions {
  /** `Domain`: the cookie is sent to this host and its subdomains; host-only when absent. */
  domain?: string;
  /**
   * `Path`: the cookie is sent for this path and those under it; it starts with `/` (a browser
   * replaces any other with the request's own directory).
   *
   * @default {"/"}
   */
  path?: string;
  /**
   * `Expires`: when the browser drops the cookie (prefer `maxAge`); a date in the years 1601 to
   * 9999, the ones a browser reads (RFC 6265bis §5.1.1).
   */
  expires?: Date;
  /**
   * `Max-Age` in whole seconds, up to 2^53 - 1 (browsers cap it at 400 days); `0` or less
   * deletes the cookie.
   */
  maxAge?: number;
  /** `Secure`: only sent over HTTPS (required by `__Secure-`, `__Host-`, `SameSite=None`). */
  secure?: boolean;
  /** `HttpOnly`: hidden from `document.cookie`. */
  httpOnly?: boolean;
  /** `SameSite`: whether cross-site requests carry the cookie. */
  sameSite?: "Strict" | "Lax" | "None" | "strict" | "lax" | "none";
  /** `Partitioned` (CHIPS): stored per top-level site; requires `secure`. */
  partitioned?: boolean;
}

/** The most bytes of name plus value a browser stores (RFC 6265bis §5.7, step 3). */
export const MAX_COOKIE_SIZE = 4096;
// RFC 6265bis §5.7: an attribute value longer than 1024 octets is ignored by the browser.
const MAX_ATTRIBUTE_SIZE = 1024;

// RFC 9110 §5.6.2 token: the cookie-name of RFC 6265bis §4.1.1.
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
// RFC 6265bis §4.1.1 cookie-octet, what encodeURIComponent leaves is always within it.
const COOKIE_VALUE = /^[\x21\x23-\x2b\x2d-\x3a\x3c-\x5b\x5d-\x7e]*$/;
// RFC 1034 §3.5 labels (letters, digits, hyphens inside), an optional leading dot.
const DOMAIN =
  /^\.?[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$/i;
// RFC 6265bis §4.1.1 path-value: any CHAR except CTLs and ";", starting with "/" (§5.7: a
// browser replaces any other path with the default path, the request's directory).
const PATH = /^\/[\x20-\x3a\x3c-\x7e]*$/;

function invalid(name: string, detail: string): TypeError {
  return new TypeError(`Cannot set cookie "${name}": ${detail}`);
}

/**
 * Parses a `Cookie` request header into names and values (RFC 6265bis §5.6's cookie-string,
 * as servers read it): pairs are split on `;`, blanks around names and values are trimmed, a
 * pair without `=` or with an empty name is ignored, the first of duplicate names wins (the
 * browser sends the most specific path first) and values are percent-decoded when they are
 * valid percent-encoding. The time taken grows linearly with the header's length.
 *
 * @param header The `Cookie` header value.
 * @returns A prototype-less record of the cookies.
 *
 * @example
 * ```ts
 * import { parseCookies } from "./cookie.ts";
 * import assert from "node:assert/strict";
 *
 * const cookies = parseCookies("theme=dark; greeting=hello%20world; theme=light; broken");
 * assert.deepEqual({ ...cookies }, { theme: "dark", greeting: "hello world" });
 * ```
 */
export function parseCookies(header: string): Record<string, string> {
  const cookies: Record<string, string> = Object.create(null);
  eachPair(header, (start, eq, end) => {
    // the name, blanks trimmed; the first occurrence wins
    const name = trim(header, start, eq);
    if (name !== "" && cookies[name] === undefined) {
      cookies[name] = decode(trim(header, eq + 1, end));
    }
    return false;
  });
  return cookies;
}

/**
 * Reads one cookie from a `Cookie` header, by the rules of {@linkcode parseCookies} (the first
 * pair with that name wins), without building a record of the others: names are compared in
 * place, so a header of thousands of cookies costs one pass and no allocation per pair.
 *
 * @param header The `Cookie` header value.
 * @param name The cookie name.
 * @returns The decoded value, or `undefined` when the header has no such cookie.
 *
 * @example
 * ```ts
 * import { findCookie } from "./cookie.ts";
 * import assert from "node:assert/strict";
 *
 * assert.equal(findCookie("a=1; theme = dark ; theme=light", "theme"), "dark");
 * assert.equal(findCookie("a=1", "theme"), undefined);
 * ```
 */
export function findCookie(header: string, name: string): string | undefined {
  if (name === "") return undefined;
  let found: string | undefined;
  eachPair(header, (start, eq, end) => {
    let nameEnd = eq;
    while (start < nameEnd && isBlank(header.charCodeAt(start))) start++;
    while (nameEnd > start && isBlank(header.charCodeAt(nameEnd - 1))) nameEnd--;
    if (nameEnd - start !== name.length || !header.startsWith(name, start)) return false;
    found = decode(trim(header, eq + 1, end));
    return true;
  });
  return found;
}

/**
 * The one walk over a `Cookie` header's pairs: `visit(start, eq, end)` gets each pair that has
 * an "=" (the pair is `[start, end)`, its "=" at `eq`) until it returns `true`. Pairs are split
 * on ";"; the first "=" at or after a pair's start is found once and kept while it lies beyond
 * the pairs without one, so the whole header is searched once.
 */
function eachPair(
  header: string,
  visit: (start: number, eq: number, end: number) => boolean,
): void {
  const length = header.length;
  let start = 0;
  let eq = -1;
  while (start < length) {
    let end = header.indexOf(";", start);
    if (end === -1) end = length;
    if (eq < start) {
      eq = header.indexOf("=", start);
      if (eq === -1) return; // no pair after this one has a value
    }
    if (eq < end && visit(start, eq, end)) return;
    start = end + 1;
  }
}

// The slice [start, end) without leading and trailing SP and HTAB.
function trim(text: string, start: number, end: number): string {
  while (start < end && isBlank(text.charCodeAt(start))) start++;
  while (end > start && isBlank(text.charCodeAt(end - 1))) end--;
  return text.slice(start, end);
}

function isBlank(code: number): boolean {
  return code === 0x20 || code === 0x09;
}

// What decodeURIComponent() decodes without throwing: characters other than `%`, and escapes
// that spell whole UTF-8 sequences (RFC 3629 §4: no overlong forms, no surrogates, nothing
// above U+10FFFF). Checked first because a throw costs far more than the check: a 64 KiB
// header of malformed values took 31 ms to parse on Deno with a throw per value.
// By lead byte: 00–7F; C2–DF; E0 A0–BF; E1–EC, EE–EF; ED 80–9F; F0 90–BF; F1–F3; F4 80–8F;
// each followed by its continuation bytes (80–BF).
const UTF8_ESCAPES =
  /^(?:[^%]|%[0-7][0-9a-f]|%(?:c[2-9a-f]|d[0-9a-f])%[89ab][0-9a-f]|%e0%[ab][0-9a-f]%[89ab][0-9a-f]|%e[1-9a-cef](?:%[89ab][0-9a-f]){2}|%ed%[89][0-9a-f]%[89ab][0-9a-f]|%f0%[9ab][0-9a-f](?:%[89ab][0-9a-f]){2}|%f[1-3](?:%[89ab][0-9a-f]){3}|%f4%8[0-9a-f](?:%[89ab][0-9a-f]){2})*$/i;

function decode(value: string): string {
  if (value.indexOf("%") === -1 || !UTF8_ESCAPES.test(value)) return value;
  try {
    return decodeURIComponent(value);
  } catch {
    return value; // not UTF-8 that Weft wrote: the value as the browser sent it
  }
}

/**
 * Builds a `Set-Cookie` header value, checking the name, the value and every attribute,
 * including the prefix rules of RFC 6265bis §4.1.3: a `__Secure-` cookie needs `secure`; a
 * `__Host-` cookie needs `secure`, no `domain` and the path `/`. `SameSite=None` and
 * `Partitioned` need `secure` too (browsers drop such cookies otherwise).
 *
 * @param name The cookie name: an RFC 9110 token.
 * @param value The value; percent-encoded with `encodeURIComponent`.
 * @param options The attributes; `path` defaults to `/`.
 * @returns The header value.
 * @throws {TypeError} When the name, the value or an attribute is invalid (an `expires`
 * outside the years 1601 to 9999 among them), a prefix rule is broken, or name and value exceed
 * 4096 bytes (the browser would drop the cookie).
 *
 * @example
 * ```ts
 * import { serializeCookie } from "./cookie.ts";
 * import assert from "node:assert/strict";
 *
 * assert.equal(
 *   serializeCookie("__Host-id", "a b", { secure: true, httpOnly: true, sameSite: "Lax" }),
 *   "__Host-id=a%20b; Path=/; HttpOnly; Secure; SameSite=Lax",
 * );
 * assert.throws(() => serializeCookie("__Host-id", "x", { domain: "example.com", secure: true }), TypeError);
 * ```
 */
export function serializeCookie(name: string, value: string, options: CookieOptions = {}): string {
  if (typeof name !== "string" || !TOKEN.test(name)) {
    throw new TypeError(
      `Cannot set cookie ${JSON.stringify(String(name))}: the name is not an RFC 9110 token`,
    );
  }
  let encoded: string;
  try {
    encoded = encodeURIComponent(String(value));
  } catch {
    throw invalid(name, "the value is not well-formed Unicode (it has a lone surrogate)");
  }
  if (!COOKIE_VALUE.test(encoded)) throw invalid(name, "the value has invalid characters");
  if (name.length + encoded.length > MAX_COOKIE_SIZE) {
    throw invalid(
      name,
      `name and encoded value are ${
        name.length + encoded.length
      } bytes, over the ${MAX_COOKIE_SIZE} bytes a browser stores (RFC 6265bis §5.7)`,
    );
  }
  const { domain, expires, maxAge, secure, httpOnly, partitioned } = options;
  const path = options.path ?? "/";
  const sameSite = options.sameSite === undefined
    ? undefined
    : sameSiteValue(name, options.sameSite);

  // RFC 6265bis §4.1.3: the prefixes are matched case-insensitively.
  const lower = name.toLowerCase();
  if (lower.startsWith("__secure-") && !secure) {
    throw invalid(name, "a __Secure- cookie needs secure: true");
  }
  if (lower.startsWith("__host-")) {
    if (!secure) throw invalid(name, "a __Host- cookie needs secure: true");
    if (domain !== undefined) throw invalid(name, "a __Host- cookie cannot have a domain");
    if (path !== "/") throw invalid(name, `a __Host- cookie needs path "/", not "${path}"`);
  }
  if (sameSite === "None" && !secure) {
    throw invalid(name, "SameSite=None needs secure: true (browsers reject it otherwise)");
  }
  if (partitioned && !secure) throw invalid(name, "a Partitioned cookie needs secure: true");

  let cookie = `${name}=${encoded}`;
  if (maxAge !== undefined) {
    // past 2^53 a number prints in exponent form ("1e+300"), which is no delta-seconds: a
    // browser would drop the attribute and keep the cookie for the session only
    if (!Number.isSafeInteger(maxAge)) {
      throw invalid(name, `maxAge ${maxAge} is not an integer of at most 2^53 - 1`);
    }
    cookie += `; Max-Age=${maxAge}`;
  }
  if (domain !== undefined) {
    if (typeof domain !== "string" || !DOMAIN.test(domain) || domain.length > MAX_ATTRIBUTE_SIZE) {
      throw invalid(name, `the domain ${JSON.stringify(domain)} is not a host name`);
    }
    cookie += `; Domain=${domain}`;
  }
  if (typeof path !== "string" || !PATH.test(path) || path.length > MAX_ATTRIBUTE_SIZE) {
    throw invalid(
      name,
      `the path ${
        JSON.stringify(path)
      } does not start with "/" or has characters a path cannot have`,
    );
  }
  cookie += `; Path=${path}`;
  if (expires !== undefined) {
    if (!(expires instanceof Date) || !Number.isFinite(expires.getTime())) {
      throw invalid(name, "expires is not a valid Date");
    }
    // RFC 6265bis §5.1.1: a browser reads a year of 2 to 4 digits, fails one before 1601 and
    // takes 0–69 for 2000–2069; a date outside 1601–9999 (written "Sat, 01 Jan 10000" or
    // "Fri, 01 Jan 0050") would be ignored, or read as 2050, not refused
    const year = expires.getUTCFullYear();
    if (year < 1601 || year > 9999) {
      throw invalid(name, `expires ${expires.toISOString()} is outside the years 1601 to 9999`);
    }
    cookie += `; Expires=${expires.toUTCString()}`;
  }
  if (httpOnly) cookie += "; HttpOnly";
  if (secure) cookie += "; Secure";
  if (partitioned) cookie += "; Partitioned";
  if (sameSite !== undefined) cookie += `; SameSite=${sameSite}`;
  return cookie;
}

function sameSiteValue(name: string, value: string): "Strict" | "Lax" | "None" {
  switch (typeof value === "string" ? value.toLowerCase() : value) {
    case "strict":
      return "Strict";
    case "lax":
      return "Lax";
    case "none":
      return "None";
  }
  throw invalid(name, `sameSite ${JSON.stringify(value)} is not "Strict", "Lax" or "None"`);
}

/**
 * Reads every cookie of the request (see {@linkcode parseCookies} for the rules).
 *
 * @param ctx The request context.
 * @returns A prototype-less record of names and decoded values.
 *
 * @example
 * ```ts
 * import { Context } from "../context.ts";
 * import { getCookies } from "./cookie.ts";
 * import assert from "node:assert/strict";
 *
 * const ctx = new Context(new Request("http://localhost/", { headers: { cookie: "a=1; b=2" } }));
 * assert.deepEqual({ ...getCookies(ctx) }, { a: "1", b: "2" });
 * ```
 */
export function getCookies(ctx: Context): Record<string, string> {
  return parseCookies(ctx.header("cookie") ?? "");
}

/**
 * Reads one cookie of the request.
 *
 * @param ctx The request context.
 * @param name The cookie name.
 * @returns The decoded value, or `undefined` when the request has no such cookie.
 *
 * @example
 * ```ts
 * import { Context } from "../context.ts";
 * import { getCookie } from "./cookie.ts";
 * import assert from "node:assert/strict";
 *
 * const ctx = new Context(new Request("http://localhost/", { headers: { cookie: "theme=dark" } }));
 * assert.equal(getCookie(ctx, "theme"), "dark");
 * assert.equal(getCookie(ctx, "lang"), undefined);
 * ```
 */
export function getCookie(ctx: Context, name: string): string | undefined {
  return findCookie(ctx.header("cookie") ?? "", name);
}

/**
 * Sets a cookie on the response with `ctx.setHeader("set-cookie", …)`: every call adds its own
 * `Set-Cookie` header, and the response the handler returns carries all of them.
 *
 * @param ctx The request context.
 * @param name The cookie name: an RFC 9110 token.
 * @param value The value; percent-encoded when it needs it.
 * @param options The attributes (see {@linkcode serializeCookie} for the checks).
 * @throws {TypeError} When the cookie is invalid or breaks a prefix rule.
 *
 * @example
 * ```ts
 * import { chain, get, router } from "../../mod.ts";
 * import { setCookie } from "./cookie.ts";
 * import assert from "node:assert/strict";
 *
 * const app = chain([], router([get("/", (ctx) => {
 *   setCookie(ctx, "theme", "dark", { maxAge: 3600, sameSite: "Lax" });
 *   setCookie(ctx, "__Host-id", "42", { secure: true, httpOnly: true });
 *   return ctx.json({ ok: true });
 * })]));
 * const res = await app.fetch(new Request("http://localhost/"));
 * assert.deepEqual(res.headers.getSetCookie(), [
 *   "theme=dark; Max-Age=3600; Path=/; SameSite=Lax",
 *   "__Host-id=42; Path=/; HttpOnly; Secure",
 * ]);
 * ```
 */
export function setCookie(
  ctx: Context,
  name: string,
  value: string,
  options?: CookieOptions,
): void {
  ctx.setHeader("set-cookie", serializeCookie(name, value, options));
}

/**
 * Tells the browser to drop a cookie: an empty value with `Max-Age=0` and an `Expires` in
 * the past. `path` and `domain` must be those the cookie was set with; `secure` is implied
 * for `__Secure-` and `__Host-` cookies.
 *
 * @param ctx The request context.
 * @param name The cookie name.
 * @param options The `path`, `domain` and other attributes the cookie was set with.
 *
 * @example
 * ```ts
 * import { Context } from "../context.ts";
 * import { deleteCookie } from "./cookie.ts";
 * import assert from "node:assert/strict";
 *
 * const ctx = new Context(new Request("http://localhost/"));
 * deleteCookie(ctx, "theme");
 * assert.deepEqual(ctx.res.headers.getSetCookie(), [
 *   "theme=; Max-Age=0; Path=/; Expires=Thu, 01 Jan 1970 00:00:00 GMT",
 * ]);
 * ```
 */
export function deleteCookie(
  ctx: Context,
  name: string,
  options: Omit<CookieOptions, "maxAge" | "expires"> = {},
): void {
  const prefixed = /^__(secure|host)-/i.test(name);
  setCookie(ctx, name, "", {
    ...options,
    secure: options.secure ?? (prefixed || undefined),
    maxAge: 0,
    expires: new Date(0),
  });
}
