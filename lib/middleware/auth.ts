/**
 * `auth()`: OAuth 2.0 bearer-token authentication (RFC 6750 §2.1 and §3), and
 * `bearerTokens()` for a fixed set of tokens.
 *
 * @module
 */
import type { Context } from "../context.ts";
import { problem } from "../http/problem.ts";
import { realmParameter } from "../http/_realm.ts";
import { isPreflight, passPreflight } from "./_preflight.ts";
import type { Middleware, Params } from "../types.ts";

/**
 * Checks a bearer token: returns the user it belongs to (any value but `null`, `undefined`
 * and `false`), or `null`/`undefined`/`false` when the token is not valid. Throwing a
 * {@linkcode BearerError} refuses the token with that error and description; any other throw
 * (or a rejected promise) is an internal error: the client gets a 500, never a 401.
 */
export type BearerValidator = (
  token: string,
  ctx: Context<Params, { "auth.token": string }>,
) => unknown;

/** The user a validator vouches for: what it returns or resolves to, less `null`/`undefined`/`false`. */
export type ValidatedUser<F extends BearerValidator> = Exclude<
  Awaited<ReturnType<F>>,
  null | undefined | false
>;

/**
 * The variables {@linkcode auth} sets: `user`, what the validator returned, and
 * `"auth.token"`, the bearer token.
 *
 * @example
 * ```ts
 * import { auth, type AuthVariables, type Middleware, type ValidatedUser } from "../../mod.ts";
 *
 * const validate = (token: string) => token === "t" ? { name: "ada" } : null;
 * type User = ValidatedUser<typeof validate>; // { name: string }
 * const requireUser: Middleware<AuthVariables<User>> = auth({ validate });
 * ```
 */
export interface AuthVariables<U> {
  /** The user the token belongs to. */
  user: U;
  /** The bearer token as sent. */
  "auth.token": string;
}

/** Options of {@linkcode auth}. */
export interface AuthOptions<F extends BearerValidator = BearerValidator> {
  /** Decides whether a token is valid and whom it belongs to. */
  validate: F;
  /**
   * The protection space named in `WWW-Authenticate` challenges.
   *
   * @default {"api"}
   */
  realm?: string;
  /**
   * Whether CORS preflight requests (`OPTIONS` with `Origin` and
   * `Access-Control-Request-Method`) pass without a token. Browsers never send credentials
   * on a preflight (Fetch standard §4.8), so requiring one there makes every cross-origin
   * call with an `Authorization` header fail; the router answers the preflight itself and
   * the real request that follows is authenticated as usual. Only an answer without content
   * goes back to such a preflight (the router's automatic 204 with `Allow`, or a preflight
   * handler's own empty answer): anything else that took the request without a user (an
   * `options()` route, a handler of every method) is answered with the 401 of a request
   * without credentials, so no content leaves unauthenticated. (Such a handler still runs, as
   * any handler of a safe method may: answer preflights in front of `auth()` if it must not.)
   *
   * @default {true}
   */
  allowPreflight?: boolean;
}

// RFC 6750 §3: error_description = 1*( %x20-21 / %x23-5B / %x5D-7E )
const DESCRIPTION_UNSAFE = /[^\x20-\x21\x23-\x5b\x5d-\x7e]/g;

/**
 * Thrown by a {@linkcode BearerValidator} to refuse a token with an RFC 6750 §3.1 error code
 * and a description: `invalid_token` answers 401, `insufficient_scope` 403, `invalid_request`
 * 400, each with `error` and `error_description` in the challenge and `detail` in the body.
 *
 * @example
 * ```ts
 * import { chain, get, router } from "../../mod.ts";
 * import { auth, BearerError } from "./auth.ts";
 * import assert from "node:assert/strict";
 *
 * const app = chain([auth({ validate: () => { throw new BearerError("The token expired"); } })],
 *   router([get("/", () => new Response("hi"))]));
 * const res = await app.fetch(new Request("http://localhost/", { headers: { authorization: "Bearer x" } }));
 * assert.equal(res.status, 401);
 * assert.equal(
 *   res.headers.get("www-authenticate"),
 *   'Bearer realm="api", error="invalid_token", error_description="The token expired"',
 * );
 * ```
 */
export class BearerError extends Error {
  /** The RFC 6750 §3.1 error code. */
  readonly error: "invalid_token" | "insufficient_scope" | "invalid_request";

  /**
   * Creates the refusal.
   *
   * @param description The `error_description`; characters RFC 6750 does not allow there
   * become `?`.
   * @param error The error code.
   * @param options The cause.
   */
  constructor(
    description: string,
    error: "invalid_token" | "insufficient_scope" | "invalid_request" = "invalid_token",
    options?: ErrorOptions,
  ) {
    super(String(description).replace(DESCRIPTION_UNSAFE, "?"), options);
    this.name = "BearerError";
    this.error = error;
  }
}

const STATUS_OF = { invalid_token: 401, insufficient_scope: 403, invalid_request: 400 } as const;

// RFC 6750 §2.1: b64token = 1*( ALPHA / DIGIT / "-" / "." / "_" / "~" / "+" / "/" ) *"="
const B64TOKEN = /^[A-Za-z0-9\-._~+/]+=*$/;

/**
 * What an `Authorization` header holds for the Bearer scheme: no bearer credentials at all
 * (header absent or another scheme), a malformed bearer header, or a syntactically valid token.
 */
type Parsed = { kind: "missing" } | { kind: "malformed"; detail: string } | {
  kind: "token";
  token: string;
};

const MISSING: Parsed = { kind: "missing" };

function parseAuthorization(header: string | null): Parsed {
  // 1. the scheme, case-insensitively (RFC 9110 §11.1), followed by 1*SP or nothing
  if (header === null || header.length < 6) return MISSING;
  if (header.slice(0, 6).toLowerCase() !== "bearer") return MISSING;
  if (header.length === 6) {
    return { kind: "malformed", detail: "The Bearer credentials are empty" };
  }
  const separator = header.charCodeAt(6);
  if (separator !== 0x20) {
    // "Bearerabc" names another scheme; "Bearer\tabc" is a Bearer header with a bad separator.
    if (separator !== 0x09) return MISSING;
    return { kind: "malformed", detail: "The Bearer scheme must be followed by a space" };
  }
  let start = 7;
  while (start < header.length && header.charCodeAt(start) === 0x20) start++;
  // 2. the token: RFC 6750's b64token (RFC 9110's token68), nothing after it
  const token = header.slice(start);
  if (token === "") return { kind: "malformed", detail: "The Bearer token is empty" };
  if (!B64TOKEN.test(token)) {
    return {
      kind: "malformed",
      detail: "The Bearer token contains characters outside RFC 6750's b64token",
    };
  }
  return { kind: "token", token };
}

/**
 * Authenticates requests with an OAuth 2.0 bearer token (RFC 6750). The `Authorization`
 * scheme `Bearer` is matched case-insensitively; the token is stored as
 * `ctx.var["auth.token"]` and passed to `validate`; a valid token sets `ctx.var.user` to what
 * `validate` returned (typed: the handler behind it sees `ctx.var.user: U`) and the chain
 * continues. Every refusal is an
 * `application/problem+json` response with a `WWW-Authenticate` challenge (RFC 6750 §3):
 *
 * - no bearer credentials (no header, or another scheme): 401, `Bearer realm="…"`;
 * - a malformed header (empty token, characters outside b64token, a second token): 400,
 *   `Bearer realm="…", error="invalid_request"`;
 * - a token `validate` rejects: 401, `Bearer realm="…", error="invalid_token"`;
 * - a token `validate` refuses by throwing a {@linkcode BearerError}: its status (401, 403 or
 *   400), `error` and `error_description` (`weft/jwt` says this way why a token failed).
 *
 * When `validate` throws, the error takes the chain's normal error path: a 500 problem, and
 * the error reporter logs it (an `HttpError` keeps its own status).
 *
 * @param options The validator, the realm and the preflight policy.
 * @returns The middleware.
 * @throws {TypeError} When `validate` is not a function or `realm` holds control characters or
 * characters outside Latin-1 (a header value cannot carry them).
 *
 * @example
 * ```ts
 * import { chain } from "../../mod.ts";
 * import { auth, bearerTokens } from "./auth.ts";
 * import assert from "node:assert/strict";
 *
 * const app = chain(
 *   [auth({ validate: bearerTokens(["s3cr3t"]), realm: "example" })],
 *   (ctx) => ctx.json({ user: ctx.var.user, token: ctx.get("auth.token") }),
 * );
 * const ok = await app.fetch(
 *   new Request("http://localhost/me", { headers: { authorization: "Bearer s3cr3t" } }),
 * );
 * assert.deepEqual(await ok.json(), { user: true, token: "s3cr3t" });
 *
 * const missing = await app.fetch(new Request("http://localhost/me"));
 * assert.equal(missing.status, 401);
 * assert.equal(missing.headers.get("www-authenticate"), 'Bearer realm="example"');
 *
 * const wrong = await app.fetch(
 *   new Request("http://localhost/me", { headers: { authorization: "Bearer nope" } }),
 * );
 * assert.equal(wrong.headers.get("www-authenticate"), 'Bearer realm="example", error="invalid_token"');
 * ```
 */
export function auth<F extends BearerValidator>(
  options: AuthOptions<F>,
): Middleware<AuthVariables<ValidatedUser<F>>> {
  const validate = options?.validate;
  if (typeof validate !== "function") {
    throw new TypeError("Cannot create auth(): validate must be a function");
  }
  const challenge = `Bearer ${realmParameter(options.realm ?? "api", "auth()")}`;
  const allowPreflight = options.allowPreflight ?? true;
  const invalidRequest = `${challenge}, error="invalid_request"`;
  const invalidToken = `${challenge}, error="invalid_token"`;
  const required = () =>
    problem({ status: 401, detail: "Bearer authentication is required" }, {
      "www-authenticate": challenge,
    });

  return async function auth(ctx, next) {
    // a preflight carries no credentials (one that does is authenticated)
    if (allowPreflight && isPreflight(ctx) && ctx.header("authorization") === null) {
      return await passPreflight(next, required);
    }
    const parsed = parseAuthorization(ctx.header("authorization"));
    // RFC 6750 §3.1: no error code when the request carries no authentication information.
    if (parsed.kind === "missing") return required();
    if (parsed.kind === "malformed") {
      return problem({ status: 400, detail: parsed.detail }, {
        "www-authenticate": invalidRequest,
      });
    }
    ctx.set("auth.token", parsed.token);
    // A throw or a rejection takes the chain's error path (500); any thenable is awaited.
    let user: unknown;
    try {
      user = await validate(parsed.token, ctx);
    } catch (error) {
      if (!(error instanceof BearerError)) throw error;
      const description = error.message;
      return problem({ status: STATUS_OF[error.error] ?? 401, detail: description }, {
        "www-authenticate": `${challenge}, error="${error.error}"` +
          (description === "" ? "" : `, error_description="${description}"`),
      });
    }
    if (user === null || user === undefined || user === false) {
      return problem({ status: 401, detail: "The Bearer token is not valid" }, {
        "www-authenticate": invalidToken,
      });
    }
    ctx.var.user = user as ValidatedUser<F>;
    return await next();
  };
}

const encoder = /* @__PURE__ */ new TextEncoder();

async function digest(text: string): Promise<Uint8Array> {
  return new Uint8Array(await crypto.subtle.digest("SHA-256", encoder.encode(text)));
}

/**
 * Builds a validator for a fixed set of bearer tokens. The candidate and every known token
 * are compared as SHA-256 digests, byte by byte and entry by entry without stopping early, so
 * the time taken says nothing about how much of a token matched or how long the tokens are;
 * tokens of any length compare without throwing.
 *
 * @param tokens The accepted tokens; with a `Map`, each token's value becomes `ctx.var.user`.
 * @returns A validator for {@linkcode AuthOptions.validate}: the user (`true` for a list) or
 * `null`.
 * @throws {TypeError} When a token is not a valid RFC 6750 b64token (it could never be sent).
 *
 * @example
 * ```ts
 * import { bearerTokens } from "./auth.ts";
 * import assert from "node:assert/strict";
 *
 * const validate = bearerTokens(new Map([["t0k3n", { name: "ci" }]]));
 * assert.deepEqual(await validate("t0k3n"), { name: "ci" });
 * assert.equal(await validate("t0k3n-but-longer"), null);
 * ```
 */
export function bearerTokens<U = true>(
  tokens: readonly string[] | ReadonlyMap<string, U>,
): (token: string) => Promise<U | null> {
  const entries: [string, U][] = Array.isArray(tokens)
    ? tokens.map((token) => [token, true as U])
    : [...(tokens as ReadonlyMap<string, U>)];
  entries.forEach(([token], i) => {
    if (typeof token !== "string" || !B64TOKEN.test(token)) {
      throw new TypeError(`Cannot create bearerTokens(): token ${i} is not an RFC 6750 b64token`);
    }
  });
  const users = entries.map(([, user]) => user);
  let known: Promise<Uint8Array[]> | undefined;
  return async function bearerTokens(token: string): Promise<U | null> {
    known ??= Promise.all(entries.map(([value]) => digest(value)));
    const [candidate, digests] = await Promise.all([digest(String(token)), known]);
    let found = -1;
    for (let i = 0; i < digests.length; i++) {
      const expected = digests[i];
      let diff = 0;
      for (let j = 0; j < 32; j++) diff |= expected[j] ^ candidate[j];
      // diff is 0..255: (diff - 1) >>> 31 is 1 exactly when diff === 0.
      const equal = ((diff - 1) >>> 31) & 1;
      found = found + equal * (i - found);
    }
    return found === -1 ? null : users[found];
  };
}
