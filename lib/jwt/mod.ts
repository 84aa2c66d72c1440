/**
 * `weft/jwt`: JSON Web Token bearer authentication (RFC 7519, RFC 6750), verified by `jose`.
 * Its own entry point, so that the core keeps zero runtime dependencies.
 *
 * @example
 * ```ts
 * import { get, router } from "../../mod.ts";
 * import { jwt } from "./mod.ts";
 * import { SignJWT } from "jose";
 * import assert from "node:assert/strict";
 *
 * const secret = "a-secret-of-at-least-thirty-two-characters";
 * const requireToken = jwt({ secret, algorithms: ["HS256"], issuer: "https://id.example" });
 * const app = router([get("/me", [requireToken], (ctx) => ctx.json({ sub: ctx.var.user.sub }))]);
 * const token = await new SignJWT({ sub: "ada" })
 *   .setProtectedHeader({ alg: "HS256" })
 *   .setIssuer("https://id.example")
 *   .setExpirationTime("5m")
 *   .sign(new TextEncoder().encode(secret));
 * const res = await app.fetch(new Request("http://localhost/me", {
 *   headers: { authorization: `Bearer ${token}` },
 * }));
 * assert.deepEqual(await res.json(), { sub: "ada" });
 * ```
 *
 * @module
 */
import {
  createLocalJWKSet,
  createRemoteJWKSet,
  errors,
  exportJWK,
  type JSONWebKeySet,
  type JWK,
  type JWTPayload,
  jwtVerify,
  type JWTVerifyGetKey,
  type JWTVerifyOptions,
} from "jose";
import { HttpError } from "../http/http_error.ts";
import { auth, type AuthVariables, BearerError } from "../middleware/auth.ts";
import { fromBase64Url } from "../security/_crypto.ts";
import type { Middleware } from "../types.ts";

export type { JWTPayload } from "jose";

/** A JSON Web Key Set (RFC 7517 §5): `{ keys: [...] }`. */
export interface JsonWebKeySet {
  /** The public keys, with `kid` and `alg` where the issuer gives them. */
  keys: JsonWebKey[];
}

/** The signature algorithms `jwt()` accepts in its allow-list (never `none`). */
export type JwtAlgorithm =
  | "HS256"
  | "HS384"
  | "HS512"
  | "RS256"
  | "RS384"
  | "RS512"
  | "PS256"
  | "PS384"
  | "PS512"
  | "ES256"
  | "ES384"
  | "ES512"
  | "EdDSA"
  | "Ed25519";

const SYMMETRIC = /* @__PURE__ */ new Set(["HS256", "HS384", "HS512"]);
const ALL = /* @__PURE__ */ new Set<string>([
  ...SYMMETRIC,
  "RS256",
  "RS384",
  "RS512",
  "PS256",
  "PS384",
  "PS512",
  "ES256",
  "ES384",
  "ES512",
  "EdDSA",
  "Ed25519",
]);

/** Options of {@linkcode jwt}: exactly one of `secret`, `key` and `jwks`. */
export interface JwtOptions {
  /** The HMAC secret (HS256/384/512 only), at least 32 bytes. */
  secret?: string | Uint8Array;
  /** One public key (a `CryptoKey` or a public JWK), for the asymmetric algorithms. */
  key?: CryptoKey | JsonWebKey;
  /**
   * A JSON Web Key Set: its URL (fetched and cached by `jose`, refetched for an unknown `kid`)
   * or the set itself.
   */
  jwks?: URL | string | JsonWebKeySet;
  /**
   * The algorithms a token may be signed with: an explicit list, either all HMAC (with
   * `secret`) or all asymmetric (with `key` or `jwks`), so that a public key can never be
   * used as an HMAC secret.
   */
  algorithms: readonly JwtAlgorithm[];
  /** The accepted `iss` claim value(s); when set, a token without it is refused. */
  issuer?: string | readonly string[];
  /** The accepted `aud` claim value(s); when set, a token without it is refused. */
  audience?: string | readonly string[];
  /**
   * Clock skew allowed for `exp` and `nbf`: a non-negative number of seconds, or a `jose`
   * duration (`"30s"`, `"2 minutes"`).
   *
   * @default {0}
   */
  clockTolerance?: number | string;
  /** Claims a token must have besides `exp` (for example `["sub"]`). */
  requiredClaims?: readonly string[];
  /**
   * The longest token accepted, in characters; a longer one is refused before any decoding.
   *
   * @default {8192}
   */
  maxTokenLength?: number;
  /**
   * The realm of the `WWW-Authenticate` challenges.
   *
   * @default {"api"}
   */
  realm?: string;
  /**
   * Whether CORS preflights pass without a token, answered only without content: as
   * `auth()`'s option of the same name.
   *
   * @default {true}
   */
  allowPreflight?: boolean;
}

/**
 * Reads the verified JWT payload of the request.
 *
 * @param ctx The request context.
 * @returns The payload `jwt()` verified (its type parameter is the claims' type), or
 * `undefined` when no token was verified.
 *
 * @example
 * ```ts
 * import { Context } from "../context.ts";
 * import { jwtPayload } from "./mod.ts";
 * import assert from "node:assert/strict";
 *
 * const ctx = new Context(new Request("http://localhost/"));
 * assert.equal(jwtPayload(ctx), undefined);
 * ```
 */
export function jwtPayload<T extends JWTPayload = JWTPayload>(
  ctx: { readonly var: object },
): T | undefined {
  return (ctx.var as { user?: T }).user;
}

function keyResolver(options: JwtOptions): Uint8Array | JWTVerifyGetKey {
  const given = [options.secret, options.key, options.jwks].filter((v) => v !== undefined);
  if (given.length !== 1) {
    throw new TypeError("Cannot create jwt(): give exactly one of secret, key and jwks");
  }
  if (options.secret !== undefined) {
    const bytes = typeof options.secret === "string"
      ? new TextEncoder().encode(options.secret)
      : options.secret;
    if (!(bytes instanceof Uint8Array) || bytes.length < 32) {
      throw new TypeError("Cannot create jwt(): the secret must be at least 32 bytes");
    }
    return bytes;
  }
  if (options.key !== undefined) {
    const given: unknown = options.key;
    // a PEM string (a common slip) would fail every request: import it with jose's importSPKI()
    if (
      !(given instanceof CryptoKey) &&
      (typeof given !== "object" || given === null || !("kty" in given))
    ) {
      throw new TypeError("Cannot create jwt(): key must be a CryptoKey or a public JWK");
    }
    const key = options.key as { type?: string; d?: unknown; k?: unknown };
    if (key.type === "secret" || key.type === "private" || key.d !== undefined) {
      throw new TypeError("Cannot create jwt(): key must be a public key");
    }
    if (key.k !== undefined) throw new TypeError("Cannot create jwt(): key must be a public key");
    // A key for encryption (a JWK with use "enc" or key_ops without "verify", an RSA-OAEP,
    // ECDH or X25519 key) verifies no signature: every token would be a 401 blaming the token.
    const { use, key_ops, algorithm } = options.key as {
      use?: unknown;
      key_ops?: unknown;
      algorithm?: { name?: unknown };
    };
    if (
      use === "enc" ||
      (Array.isArray(key_ops) && !key_ops.includes("verify")) ||
      /^(?:RSA-OAEP|ECDH|X25519)$/.test(String(algorithm?.name))
    ) {
      throw new TypeError("Cannot create jwt(): key is for encryption; it verifies no signature");
    }
    return singleKey(options.key as CryptoKey | JWK);
  }
  const jwks = options.jwks!;
  if (typeof jwks !== "string" && !(jwks instanceof URL)) {
    return createLocalJWKSet(jwks as JSONWebKeySet);
  }
  const remote = createRemoteJWKSet(new URL(jwks));
  return async function remoteKey(header, token) {
    try {
      return await remote(header, token);
    } catch (error) {
      if (describe(error) !== undefined) throw error; // no key for this token: the token's fault
      // the key set could not be fetched or read: the server's problem, not the token's
      throw new HttpError(503, "The key set to verify the token is not available", {
        cause: error,
      });
    }
  };
}

// One public key, looked up as a key set of one: jose's key-set lookup checks that the token's
// `alg` fits the key (its type and curve, and a JWK's own `alg`), where verifying with the key
// as it is would throw a TypeError, a 500, for a token naming another listed algorithm
// (RS512 against an RS256 key). The token's `kid` names no other key here, so it is not
// looked at. A CryptoKey becomes its JWK on first use (public keys are always extractable).
function singleKey(key: CryptoKey | JWK): JWTVerifyGetKey {
  let set: Promise<ReturnType<typeof createLocalJWKSet>> | undefined;
  return async function singleKey(header, token) {
    set ??=
      (typeof (key as JWK).kty === "string"
        ? Promise.resolve(key as JWK)
        : exportJWK(key as CryptoKey))
        .then((jwk) => createLocalJWKSet({ keys: [jwk] }));
    try {
      return await (await set)({ alg: header.alg }, token);
    } catch (error) {
      if (error instanceof errors.JWKSNoMatchingKey) {
        throw new errors.JOSEAlgNotAllowed("The token's algorithm does not fit the key");
      }
      throw error;
    }
  };
}

// jose's duration grammar (its lib/jwt_claims_set.js), less the signs and "ago"/"from now" that
// make no tolerance: a number, then a unit.
const DURATION =
  /^(\d+|\d+\.\d+) ?(seconds?|secs?|s|minutes?|mins?|m|hours?|hrs?|h|days?|d|weeks?|w|years?|yrs?|y)$/i;
const UNIT_SECONDS: Record<string, number> = {
  s: 1,
  m: 60,
  h: 3600,
  d: 86_400,
  w: 604_800,
  y: 31_557_600,
};

// The clock tolerance in seconds, checked when jwt() is created: jose checks it on every
// verification, so a malformed one answered every request with a 500.
function toleranceSeconds(tolerance: number | string | undefined): number {
  if (tolerance === undefined) return 0;
  if (typeof tolerance === "number") {
    if (Number.isFinite(tolerance) && tolerance >= 0) return tolerance;
  } else if (typeof tolerance === "string") {
    const match = DURATION.exec(tolerance);
    if (match !== null) {
      const seconds = Math.round(Number(match[1]) * UNIT_SECONDS[match[2][0].toLowerCase()]);
      if (Number.isFinite(seconds)) return seconds;
    }
  }
  throw new TypeError(
    `Cannot create jwt(): clockTolerance ${
      JSON.stringify(tolerance) ?? String(tolerance)
    } is not a non-negative number of seconds or a duration such as "30s"`,
  );
}

// The verified payload. When several keys of a key set fit the token (it names no kid, or a kid
// the set lists twice, as while an issuer rotates its keys), jose throws JWKSMultipleMatchingKeys
// and leaves trying them to the caller (its documentation shows this loop): each is tried in turn
// until one verifies the signature. Any other failure with a key (an expired token) is the answer.
async function verify(
  token: string,
  key: Uint8Array | JWTVerifyGetKey,
  options: JWTVerifyOptions,
): Promise<JWTPayload> {
  try {
    return typeof key === "function"
      ? (await jwtVerify(token, key, options)).payload
      : (await jwtVerify(token, key, options)).payload;
  } catch (error) {
    if (!(error instanceof errors.JWKSMultipleMatchingKeys)) throw error;
    for await (const candidate of error as unknown as AsyncIterable<CryptoKey>) {
      try {
        return (await jwtVerify(token, candidate, options)).payload;
      } catch (failure) {
        if (!(failure instanceof errors.JWSSignatureVerificationFailed)) throw failure;
      }
    }
    throw new errors.JWSSignatureVerificationFailed();
  }
}

// What each failure of jose's verification tells the client (RFC 6750 §3.1 invalid_token).
function describe(error: unknown): string | undefined {
  if (!(error instanceof errors.JOSEError)) return undefined;
  switch (error.code) {
    case "ERR_JWT_EXPIRED":
      return "The token expired";
    case "ERR_JWT_CLAIM_VALIDATION_FAILED": {
      const { claim, reason } = error as errors.JWTClaimValidationFailed;
      // a check that failed, not an nbf that is no number: that one is not valid at all
      if (claim === "nbf" && reason === "check_failed") return "The token is not valid yet";
      if (claim === "iss") return "The token's issuer is not accepted";
      if (claim === "aud") return "The token's audience is not accepted";
      if (claim === "iat") return "The token's issue time is not valid";
      return `The token's ${claim} claim is missing or not valid`;
    }
    case "ERR_JOSE_ALG_NOT_ALLOWED":
      return "The token's algorithm is not allowed";
    case "ERR_JWS_SIGNATURE_VERIFICATION_FAILED":
      return "The token's signature is not valid";
    case "ERR_JWKS_NO_MATCHING_KEY":
    case "ERR_JWKS_MULTIPLE_MATCHING_KEYS":
      return "No key of the key set matches the token";
    case "ERR_JWS_INVALID":
    case "ERR_JWT_INVALID":
    case "ERR_JOSE_NOT_SUPPORTED":
    case "ERR_JWK_INVALID":
      return "The token is malformed";
  }
  return undefined;
}

/**
 * Authenticates requests with a JWT bearer token (RFC 7519 over RFC 6750), built on `auth()`:
 * a missing or malformed `Authorization` header gets the same 401/400 as there, and a token
 * that fails verification a 401 with `error="invalid_token"` and an `error_description`
 * saying why: expired, not valid yet, wrong issuer or audience, wrong signature, algorithm not
 * allowed, malformed, too long. `exp` is required. A verified token's payload becomes
 * `ctx.var.user` (also read typed with {@linkcode jwtPayload}).
 *
 * The algorithms are an explicit allow-list checked against the token's `alg` before the
 * signature: `none` cannot be listed, and HMAC algorithms go only with a `secret`, asymmetric
 * ones only with a `key` or `jwks`, so a token signed with a public key as HMAC secret is
 * refused. When a JWKS URL cannot be fetched the answer is a 503.
 *
 * @param options The key (`secret`, `key` or `jwks`), the algorithms and the claim checks.
 * @returns The middleware.
 * @throws {TypeError} When the options mix key kinds and algorithms, list no or unknown
 * algorithms, give no key or more than one, a `key` that is neither a `CryptoKey` nor a
 * public JWK, a key for encryption, or a `clockTolerance` that is negative or no duration.
 * @throws {RangeError} When `maxTokenLength` is not a positive integer.
 */
export function jwt(options: JwtOptions): Middleware<AuthVariables<JWTPayload>> {
  const algorithms = options?.algorithms;
  if (!Array.isArray(algorithms) || algorithms.length === 0) {
    throw new TypeError("Cannot create jwt(): algorithms must list at least one algorithm");
  }
  for (const alg of algorithms) {
    if (!ALL.has(alg)) {
      throw new TypeError(`Cannot create jwt(): "${alg}" is not a supported signature algorithm`);
    }
  }
  const symmetric = algorithms.filter((alg) => SYMMETRIC.has(alg));
  if (options.secret !== undefined && symmetric.length !== algorithms.length) {
    throw new TypeError("Cannot create jwt(): a secret goes only with HS256, HS384 or HS512");
  }
  if (options.secret === undefined && symmetric.length > 0) {
    throw new TypeError(
      `Cannot create jwt(): ${symmetric[0]} needs a secret; a public key is never an HMAC secret`,
    );
  }
  const key = keyResolver(options);
  const maxLength = options.maxTokenLength ?? 8192;
  if (!Number.isInteger(maxLength) || maxLength < 1) {
    throw new RangeError(
      `Cannot create jwt(): maxTokenLength ${maxLength} is not a positive integer`,
    );
  }
  const requiredClaims = ["exp", ...(options.requiredClaims ?? [])];
  const verifyOptions = {
    algorithms: [...algorithms],
    issuer: options.issuer as string | string[] | undefined,
    audience: options.audience as string | string[] | undefined,
    clockTolerance: toleranceSeconds(options.clockTolerance),
    requiredClaims,
  };

  return auth({
    realm: options.realm,
    allowPreflight: options.allowPreflight,
    async validate(token) {
      if (token.length > maxLength) {
        throw new BearerError(`The token is longer than ${maxLength} characters`);
      }
      // One spelling per token: jose also takes padding and other values of the spare bits of a
      // segment's last character, and a deny-list or replay cache keyed on the token would
      // miss such a copy of it.
      const segments = token.split(".");
      if (segments.length !== 3 || !segments.every((part) => fromBase64Url(part) !== undefined)) {
        throw new BearerError("The token is malformed");
      }
      try {
        const payload = await verify(token, key, verifyOptions);
        // jose takes any number for a NumericDate, and JSON.parse reads 1e400 as Infinity: a
        // token that never expires (RFC 7519 §2: seconds since the epoch, a finite count)
        for (const claim of ["exp", "nbf", "iat"] as const) {
          const value = payload[claim];
          if (value !== undefined && !Number.isFinite(value)) {
            throw new BearerError(`The token's ${claim} claim is missing or not valid`);
          }
        }
        return payload;
      } catch (error) {
        if (error instanceof BearerError) throw error;
        const description = describe(error);
        if (description !== undefined) {
          throw new BearerError(description, "invalid_token", { cause: error });
        }
        throw error;
      }
    },
  });
}
