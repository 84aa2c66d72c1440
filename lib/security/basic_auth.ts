/**
 * `basicAuth()`: HTTP Basic authentication (RFC 7617), and `basicUsers()` for a fixed list of
 * users.
 *
 * @module
 */
import type { Context } from "../context.ts";
import { problem } from "../http/problem.ts";
import { realmParameter } from "../http/_realm.ts";
import { automaticPreflight } from "../middleware/_preflight.ts";
import type { Middleware } from "../types.ts";
import { sha256, timingSafeEqual } from "./_crypto.ts";

/**
 * Checks a user-id and password: returns the user (any value but `null`, `undefined` and
 * `false`; `true` stands for the user-id itself), or a falsy value to refuse. A throw is an
 * internal error (500).
 */
export type BasicVerifier = (username: string, password: string, ctx: Context) => unknown;

/** Options of {@linkcode basicAuth}. */
export interface BasicAuthOptions {
  /** Decides whether the credentials are valid and whom they belong to. */
  verify: BasicVerifier;
  /**
   * The protection space named in the challenge (RFC 7617 §2).
   *
   * @default {"weft"}
   */
  realm?: string;
  /**
   * Whether a CORS preflight without credentials that the router answers itself (its automatic
   * 204 with `Allow`, for `basicAuth()` in a group's middleware) goes on to that answer:
   * browsers never send credentials on a preflight, so refusing it makes every cross-origin call
   * fail. Any other preflight (one an `options()` route or a handler would take, or one that
   * meets `basicAuth()` in a chain in front of the router) gets the 401, and nothing runs.
   *
   * @default {true}
   */
  allowPreflight?: boolean;
}

const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;
// deno-lint-ignore no-control-regex
const CONTROL = /[\x00-\x1f\x7f]/;

type Parsed =
  | { kind: "missing" }
  | { kind: "malformed"; detail: string }
  | { kind: "credentials"; username: string; password: string };

function parse(header: string | null): Parsed {
  if (header !== null && header.length === 5 && header.toLowerCase() === "basic") {
    return { kind: "malformed", detail: "The Basic credentials are empty" };
  }
  // RFC 9110 §11.1: the scheme is case-insensitive, followed by one or more spaces.
  if (header === null || header.length < 6 || header.slice(0, 6).toLowerCase() !== "basic ") {
    return { kind: "missing" };
  }
  const token = header.slice(6).trim();
  if (!BASE64.test(token) || token.length % 4 !== 0) {
    return { kind: "malformed", detail: "The Basic credentials are not base64" };
  }
  const binary = atob(token);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  let text: string;
  try {
    // RFC 7617 §2.1: charset="UTF-8" announces that the server expects UTF-8.
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    return { kind: "malformed", detail: "The Basic credentials are not UTF-8" };
  }
  // RFC 7617 §2: user-pass = user-id ":" password; the user-id holds no colon, neither holds
  // control characters.
  const colon = text.indexOf(":");
  if (colon === -1) {
    return { kind: "malformed", detail: "The Basic credentials have no colon" };
  }
  if (CONTROL.test(text)) {
    return { kind: "malformed", detail: "The Basic credentials contain control characters" };
  }
  return { kind: "credentials", username: text.slice(0, colon), password: text.slice(colon + 1) };
}

/**
 * Authenticates requests with HTTP Basic credentials (RFC 7617). A valid pair sets `ctx.var.user`
 * to what `verify` returned (the user-id when it returned `true`). Refusals are
 * `application/problem+json` with the challenge `Basic realm="…", charset="UTF-8"`:
 *
 * - no Basic credentials: 401;
 * - credentials that are not base64, not UTF-8, without a colon or with control characters:
 *   400;
 * - credentials `verify` refuses: 401.
 *
 * In a group, a CORS preflight without credentials goes on to the router's automatic answer
 * (see {@linkcode BasicAuthOptions.allowPreflight}).
 *
 * Basic credentials are a password in clear text: use HTTPS.
 *
 * @param options The verifier and the realm.
 * @returns The middleware.
 * @throws {TypeError} When `verify` is not a function or `realm` has control characters or
 * characters outside Latin-1 (a header value cannot carry them).
 *
 * @example
 * ```ts
 * import { get, router } from "../../mod.ts";
 * import { basicAuth, basicUsers } from "./basic_auth.ts";
 * import assert from "node:assert/strict";
 *
 * const admin = basicAuth({ verify: basicUsers({ ada: "lovelace" }), realm: "admin" });
 * const app = router([get("/", [admin], (ctx) => ctx.json({ user: ctx.var.user }))]);
 * const ok = await app.fetch(new Request("http://localhost/", {
 *   headers: { authorization: `Basic ${btoa("ada:lovelace")}` },
 * }));
 * assert.deepEqual(await ok.json(), { user: "ada" });
 * const missing = await app.fetch(new Request("http://localhost/"));
 * assert.equal(missing.status, 401);
 * assert.equal(missing.headers.get("www-authenticate"), 'Basic realm="admin", charset="UTF-8"');
 * ```
 */
export function basicAuth(options: BasicAuthOptions): Middleware<{ user: unknown }> {
  const verify = options?.verify;
  if (typeof verify !== "function") {
    throw new TypeError("Cannot create basicAuth(): verify must be a function");
  }
  const realm = realmParameter(options.realm ?? "weft", "basicAuth()");
  const challenge = { "www-authenticate": `Basic ${realm}, charset="UTF-8"` };
  const allowPreflight = options.allowPreflight ?? true;
  const required = () =>
    problem({ status: 401, detail: "Basic authentication is required" }, challenge);

  return async function basicAuth(ctx, next) {
    const header = ctx.header("authorization");
    if (header === null && allowPreflight && automaticPreflight(ctx)) return await next();
    const parsed = parse(header);
    if (parsed.kind === "missing") return required();
    if (parsed.kind === "malformed") {
      return problem({ status: 400, detail: parsed.detail }, challenge);
    }
    const user = await verify(parsed.username, parsed.password, ctx);
    if (user === null || user === undefined || user === false) {
      return problem({ status: 401, detail: "The user-id or password is not valid" }, challenge);
    }
    ctx.var.user = user === true ? parsed.username : user;
    return await next();
  };
}

/**
 * Builds a verifier for a fixed list of users. The candidate `user-id:password` and every
 * known pair are compared as SHA-256 digests, byte by byte and pair by pair without stopping
 * early, so the time taken says nothing about which part matched.
 *
 * @param users User-ids and their passwords.
 * @returns A verifier for {@linkcode BasicAuthOptions.verify}: the user-id or `null`.
 * @throws {TypeError} When a user-id contains a colon or a value is not a string.
 *
 * @example
 * ```ts
 * import { basicUsers } from "./basic_auth.ts";
 * import assert from "node:assert/strict";
 *
 * const verify = basicUsers({ ada: "lovelace" });
 * assert.equal(await verify("ada", "lovelace"), "ada");
 * assert.equal(await verify("ada", "babbage"), null);
 * ```
 */
export function basicUsers(
  users: Readonly<Record<string, string>>,
): (username: string, password: string) => Promise<string | null> {
  const entries = Object.entries(users);
  for (const [user, password] of entries) {
    if (typeof password !== "string" || user.includes(":")) {
      throw new TypeError(
        `Cannot create basicUsers(): user "${user}" must have no colon and a string password`,
      );
    }
  }
  let known: Promise<Uint8Array[]> | undefined;
  return async function basicUsers(username: string, password: string): Promise<string | null> {
    known ??= Promise.all(entries.map(([user, pass]) => sha256(`${user}:${pass}`)));
    const [candidate, digests] = await Promise.all([sha256(`${username}:${password}`), known]);
    let found = -1;
    for (let i = 0; i < digests.length; i++) {
      if (timingSafeEqual(digests[i], candidate) && found === -1) found = i;
    }
    return found === -1 ? null : entries[found][0];
  };
}
