/**
 * `secureHeaders()`: response headers that switch on the browser's protections, with a
 * per-request Content-Security-Policy nonce.
 *
 * @module
 */
import type { Middleware } from "../types.ts";

/** The variable {@linkcode secureHeaders} sets when the policy has a nonce. */
export interface CspVariables {
  /** The nonce of this response's Content-Security-Policy, if it has one. */
  "csp.nonce"?: string;
}
import { randomToken } from "./_crypto.ts";

/** The key under which `secureHeaders()` stores the request's CSP nonce. */
export const CSP_NONCE_KEY = "csp.nonce";

/**
 * The placeholder for the request's nonce in a CSP directive: `secureHeaders()` replaces it
 * with `'nonce-…'`, a fresh value per request.
 */
export const NONCE = "'nonce'";

/** Content-Security-Policy directives: names to source lists (`true` for a bare directive). */
export type CspDirectives = Readonly<Record<string, readonly string[] | string | true>>;

/** Options of {@linkcode secureHeaders}; `false` leaves a header out. */
export interface SecureHeadersOptions {
  /**
   * `X-Content-Type-Options: nosniff`: no guessing a script or style from content.
   *
   * @default {true}
   */
  contentTypeOptions?: boolean;
  /**
   * `Referrer-Policy`.
   *
   * @default {"strict-origin-when-cross-origin"}
   */
  referrerPolicy?: string | false;
  /**
   * `Strict-Transport-Security` (RFC 6797), sent only on requests that came over HTTPS (§7.2:
   * a host must not send it over plain HTTP).
   *
   * @default {"max-age=31536000; includeSubDomains"}
   */
  strictTransportSecurity?: string | false;
  /**
   * `Cross-Origin-Opener-Policy`.
   *
   * @default {"same-origin"}
   */
  crossOriginOpenerPolicy?: string | false;
  /**
   * `X-Frame-Options` for browsers without CSP `frame-ancestors`.
   *
   * @default {"SAMEORIGIN"}
   */
  frameOptions?: string | false;
  /**
   * `Content-Security-Policy`; a directive listing {@linkcode NONCE} gets the request's nonce,
   * which {@linkcode cspNonce} returns for the page's `<script nonce="…">`.
   *
   * @default {false}
   */
  contentSecurityPolicy?: CspDirectives | false;
  /**
   * Sends the policy as `Content-Security-Policy-Report-Only` instead.
   *
   * @default {false}
   */
  reportOnly?: boolean;
}

// deno-lint-ignore no-control-regex
const UNSAFE_VALUE = /[\x00-\x1f\x7f;,]/;
const DIRECTIVE_NAME = /^[a-z0-9-]+$/i;

function compilePolicy(directives: CspDirectives): { text: string; nonce: boolean } {
  const parts: string[] = [];
  let nonce = false;
  for (const [name, value] of Object.entries(directives)) {
    if (!DIRECTIVE_NAME.test(name)) {
      throw new TypeError(`Cannot create secureHeaders(): "${name}" is not a CSP directive name`);
    }
    if (value === true) {
      parts.push(name);
      continue;
    }
    const sources = typeof value === "string" ? [value] : value;
    for (const source of sources) {
      if (typeof source !== "string" || UNSAFE_VALUE.test(source)) {
        throw new TypeError(
          `Cannot create secureHeaders(): the source ${
            JSON.stringify(source)
          } of "${name}" has a control character, ";" or ","`,
        );
      }
      if (source === NONCE) nonce = true;
    }
    parts.push([name, ...sources].join(" "));
  }
  return { text: parts.join("; "), nonce };
}

/**
 * Reads the request's Content-Security-Policy nonce, to put into the page's own
 * `<script nonce="…">` and `<style nonce="…">` tags (template data, for instance).
 *
 * @param ctx The request context.
 * @returns The nonce, or `undefined` when the policy has no {@linkcode NONCE}.
 *
 * @example
 * ```ts
 * import { chain, get, html, router } from "../../mod.ts";
 * import { cspNonce, NONCE, secureHeaders } from "./secure_headers.ts";
 * import assert from "node:assert/strict";
 *
 * const app = chain(
 *   [secureHeaders({ contentSecurityPolicy: { "script-src": ["'self'", NONCE] } })],
 *   router([get("/", (ctx) =>
 *     new Response(`<script nonce="${cspNonce(ctx)}">go()</script>`, {
 *       headers: { "content-type": "text/html" },
 *     }))]),
 * );
 * const res = await app.fetch(new Request("http://localhost/"));
 * const nonce = /nonce="([^"]+)"/.exec(await res.text())![1];
 * assert.equal(res.headers.get("content-security-policy"), `script-src 'self' 'nonce-${nonce}'`);
 * ```
 */
export function cspNonce(ctx: { readonly var: CspVariables | object }): string | undefined {
  return (ctx.var as CspVariables)[CSP_NONCE_KEY];
}

/**
 * Sets security headers on every response (as defaults: a header the handler set itself
 * wins): `X-Content-Type-Options`, `Referrer-Policy`, `Strict-Transport-Security` (HTTPS
 * requests only), `Cross-Origin-Opener-Policy`, `X-Frame-Options` and, when configured,
 * `Content-Security-Policy` with a fresh nonce per request (16 random bytes).
 *
 * HTTPS is recognised from the request URL's scheme: behind a proxy that ends TLS, set HSTS
 * at the proxy.
 *
 * @param options Which headers, and their values.
 * @returns The middleware.
 * @throws {TypeError} When a CSP directive name or source is malformed, or a header value has
 * control characters.
 *
 * @example
 * ```ts
 * import { chain, get, router } from "../../mod.ts";
 * import { secureHeaders } from "./secure_headers.ts";
 * import assert from "node:assert/strict";
 *
 * const app = chain([secureHeaders()], router([get("/", () => new Response("hi"))]));
 * const plain = await app.fetch(new Request("http://localhost/"));
 * assert.equal(plain.headers.get("x-content-type-options"), "nosniff");
 * assert.equal(plain.headers.get("strict-transport-security"), null);
 * const tls = await app.fetch(new Request("https://localhost/"));
 * assert.equal(tls.headers.get("strict-transport-security"), "max-age=31536000; includeSubDomains");
 * ```
 */
export function secureHeaders(options: SecureHeadersOptions = {}): Middleware<CspVariables> {
  const fixed: [string, string][] = [];
  const hsts: [string, string][] = []; // HTTPS requests only
  const add = (
    to: [string, string][],
    name: string,
    value: string | boolean | undefined,
    fallback: string,
  ) => {
    if (value === false) return;
    const text = typeof value === "string" ? value : fallback;
    // deno-lint-ignore no-control-regex
    if (/[\x00-\x1f\x7f]/.test(text)) {
      throw new TypeError(
        `Cannot create secureHeaders(): the ${name} value has control characters`,
      );
    }
    to.push([name, text]);
  };
  add(fixed, "x-content-type-options", options.contentTypeOptions, "nosniff");
  add(fixed, "referrer-policy", options.referrerPolicy, "strict-origin-when-cross-origin");
  add(fixed, "cross-origin-opener-policy", options.crossOriginOpenerPolicy, "same-origin");
  add(fixed, "x-frame-options", options.frameOptions, "SAMEORIGIN");
  add(
    hsts,
    "strict-transport-security",
    options.strictTransportSecurity,
    "max-age=31536000; includeSubDomains",
  );
  const csp = options.contentSecurityPolicy ? compilePolicy(options.contentSecurityPolicy) : null;
  const cspHeader = options.reportOnly
    ? "content-security-policy-report-only"
    : "content-security-policy";

  return async function secureHeaders(ctx, next) {
    for (const [name, value] of fixed) ctx.setHeader(name, value);
    if (hsts.length > 0 && ctx.req.url.startsWith("https:")) ctx.setHeader(hsts[0][0], hsts[0][1]);
    if (csp !== null) {
      let policy = csp.text;
      if (csp.nonce) {
        const nonce = randomToken(16);
        ctx.set(CSP_NONCE_KEY, nonce);
        policy = policy.replaceAll(NONCE, `'nonce-${nonce}'`);
      }
      ctx.setHeader(cspHeader, policy);
    }
    return await next();
  };
}
