/**
 * Signed cookies: `setSignedCookie()` / `getSignedCookie()` with HMAC-SHA-256 (WebCrypto) and
 * key rotation.
 *
 * @module
 */
import type { Context } from "../context.ts";
import { type CookieOptions, getCookie, setCookie } from "./cookie.ts";
import { fromBase64Url, timingSafeEqual, toBase64Url, utf8 } from "./_crypto.ts";

/**
 * One secret, or several for rotation: the first signs, every one verifies. Each must be at
 * least 32 characters (for example 32 random bytes as base64url, from a secret store).
 */
export type Secrets = string | readonly string[];

/** The fewest characters a secret may have. */
export const MIN_SECRET_LENGTH = 32;
const MAX_CACHED_KEYS = 64;
const SIGNATURE_LENGTH = 43; // 32 bytes of HMAC-SHA-256 as unpadded base64url

const keys = /* @__PURE__ */ new Map<string, Promise<CryptoKey>>();

/** The secrets as a checked list, first one first; `what` names the caller in the error. */
export function secretList(secrets: Secrets, what: string): readonly string[] {
  const list = typeof secrets === "string" ? [secrets] : secrets;
  if (!Array.isArray(list) || list.length === 0) {
    throw new TypeError(`Cannot ${what}: the secret must be a string or a non-empty list`);
  }
  for (const secret of list) {
    if (typeof secret !== "string" || secret.length < MIN_SECRET_LENGTH) {
      throw new TypeError(
        `Cannot ${what}: every secret must be a string of at least ${MIN_SECRET_LENGTH} characters`,
      );
    }
  }
  return list;
}

function hmacKey(secret: string): Promise<CryptoKey> {
  let key = keys.get(secret);
  if (key === undefined) {
    if (keys.size >= MAX_CACHED_KEYS) keys.clear();
    key = crypto.subtle.importKey("raw", utf8(secret), { name: "HMAC", hash: "SHA-256" }, false, [
      "sign",
    ]);
    keys.set(secret, key);
  }
  return key;
}

async function mac(secret: string, data: string): Promise<Uint8Array> {
  return new Uint8Array(await crypto.subtle.sign("HMAC", await hmacKey(secret), utf8(data)));
}

/**
 * Signs `value` for the cookie `name`: `value.signature`, where the signature is the
 * HMAC-SHA-256 of `name=value` under the first secret, so a value signed for one cookie is
 * not accepted for another.
 *
 * @param name The cookie name the value is bound to.
 * @param value The value.
 * @param secrets The secrets; the first signs.
 * @returns The signed value.
 */
export async function sign(name: string, value: string, secrets: Secrets): Promise<string> {
  const [first] = secretList(secrets, "sign a cookie");
  return `${value}.${toBase64Url(await mac(first, `${name}=${value}`))}`;
}

/**
 * Checks a value made by {@linkcode sign} against every secret, comparing MACs in constant
 * time and without stopping at the first match.
 *
 * @param name The cookie name.
 * @param signed The signed value.
 * @param secrets The secrets; any of them may have signed.
 * @returns The value, or `false` when the signature is missing or wrong.
 */
export async function unsign(
  name: string,
  signed: string,
  secrets: Secrets,
): Promise<string | false> {
  const list = secretList(secrets, "verify a cookie");
  const dot = signed.lastIndexOf(".");
  if (dot === -1 || signed.length - dot - 1 !== SIGNATURE_LENGTH) return false;
  const signature = fromBase64Url(signed.slice(dot + 1));
  if (signature === undefined) return false;
  const value = signed.slice(0, dot);
  const expected = await Promise.all(list.map((secret) => mac(secret, `${name}=${value}`)));
  let valid = false;
  for (const candidate of expected) valid = timingSafeEqual(candidate, signature) || valid;
  return valid ? value : false;
}

/**
 * Sets a cookie whose value is signed with HMAC-SHA-256 (WebCrypto), so that the client can
 * read it but not change it. The value is readable by the client: keep secrets out, or use an
 * encrypted `session()`. The signature covers the name and the value, not `maxAge` or
 * `expires`, which a client may ignore: a copy of the cookie verifies for as long as its secret
 * is listed, so sign an expiry into the value when it must end (as `session()` does).
 *
 * @param ctx The request context.
 * @param name The cookie name.
 * @param value The value.
 * @param secrets The secrets; the first signs.
 * @param options The cookie's attributes (see `setCookie()`).
 * @throws {TypeError} When a secret is shorter than 32 characters or the cookie is invalid.
 *
 * @example
 * ```ts
 * import { Context } from "../context.ts";
 * import { getSignedCookie, setSignedCookie } from "./signed_cookie.ts";
 * import assert from "node:assert/strict";
 *
 * const secret = "a-secret-of-at-least-thirty-two-characters";
 * const out = new Context(new Request("http://localhost/"));
 * await setSignedCookie(out, "uid", "42", secret, { httpOnly: true });
 * const sent = out.res.headers.getSetCookie()[0].split(";")[0]; // "uid=42.<signature>"
 *
 * const back = new Context(new Request("http://localhost/", { headers: { cookie: sent } }));
 * assert.equal(await getSignedCookie(back, "uid", secret), "42");
 * const forged = new Context(new Request("http://localhost/", { headers: { cookie: sent.replace("42", "43") } }));
 * assert.equal(await getSignedCookie(forged, "uid", secret), false);
 * ```
 */
export async function setSignedCookie(
  ctx: Context,
  name: string,
  value: string,
  secrets: Secrets,
  options?: CookieOptions,
): Promise<void> {
  setCookie(ctx, name, await sign(name, value, secrets), options);
}

/**
 * Reads a cookie set by {@linkcode setSignedCookie} and checks its signature against every
 * secret (key rotation: the newest first, older ones still verify).
 *
 * @param ctx The request context.
 * @param name The cookie name.
 * @param secrets The secrets.
 * @returns The value; `undefined` when the request has no such cookie; `false` when its
 * signature is missing or wrong (the cookie must then be ignored).
 * @throws {TypeError} When a secret is shorter than 32 characters.
 *
 * @example
 * ```ts
 * import { Context } from "../context.ts";
 * import { getSignedCookie } from "./signed_cookie.ts";
 * import assert from "node:assert/strict";
 *
 * const ctx = new Context(new Request("http://localhost/", { headers: { cookie: "uid=42" } }));
 * assert.equal(await getSignedCookie(ctx, "uid", "a-secret-of-at-least-thirty-two-characters"), false);
 * ```
 */
export async function getSignedCookie(
  ctx: Context,
  name: string,
  secrets: Secrets,
): Promise<string | false | undefined> {
  const signed = getCookie(ctx, name);
  if (signed === undefined) {
    secretList(secrets, "verify a cookie");
    return undefined;
  }
  return await unsign(name, signed, secrets);
}
