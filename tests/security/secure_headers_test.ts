import assert from "node:assert/strict";
import { chain, get, router } from "../../mod.ts";
import {
  cspNonce,
  NONCE,
  secureHeaders,
  type SecureHeadersOptions,
} from "../../lib/security/secure_headers.ts";

function app(options?: SecureHeadersOptions) {
  return chain(
    [secureHeaders(options)],
    router([
      get("/", (ctx) => ctx.json({ nonce: cspNonce(ctx) ?? null })),
      get("/own", () => new Response("x", { headers: { "referrer-policy": "no-referrer" } })),
      get("/throw", () => {
        throw new Error("boom");
      }),
    ]),
  );
}

Deno.test("secureHeaders() sets its defaults, HSTS only over HTTPS", async () => {
  const a = app();
  const plain = await a.fetch(new Request("http://localhost/"));
  assert.equal(plain.headers.get("x-content-type-options"), "nosniff");
  assert.equal(plain.headers.get("referrer-policy"), "strict-origin-when-cross-origin");
  assert.equal(plain.headers.get("cross-origin-opener-policy"), "same-origin");
  assert.equal(plain.headers.get("x-frame-options"), "SAMEORIGIN");
  assert.equal(plain.headers.get("strict-transport-security"), null);
  assert.equal(plain.headers.get("content-security-policy"), null);
  const tls = await a.fetch(new Request("https://localhost/"));
  assert.equal(tls.headers.get("strict-transport-security"), "max-age=31536000; includeSubDomains");
});

Deno.test("secureHeaders() headers reach error responses, and a handler's own header wins", async () => {
  const a = app();
  const failed = await a.fetch(new Request("https://localhost/throw"));
  assert.equal(failed.status, 500);
  assert.equal(failed.headers.get("x-content-type-options"), "nosniff");
  const own = await a.fetch(new Request("https://localhost/own"));
  assert.equal(own.headers.get("referrer-policy"), "no-referrer");
});

Deno.test("secureHeaders() options change or leave out each header", async () => {
  const res = await app({
    contentTypeOptions: false,
    referrerPolicy: "no-referrer",
    strictTransportSecurity: "max-age=63072000; includeSubDomains; preload",
    crossOriginOpenerPolicy: false,
    frameOptions: "DENY",
  }).fetch(new Request("https://localhost/"));
  assert.equal(res.headers.get("x-content-type-options"), null);
  assert.equal(res.headers.get("referrer-policy"), "no-referrer");
  assert.equal(
    res.headers.get("strict-transport-security"),
    "max-age=63072000; includeSubDomains; preload",
  );
  assert.equal(res.headers.get("cross-origin-opener-policy"), null);
  assert.equal(res.headers.get("x-frame-options"), "DENY");
  const off = await app({ strictTransportSecurity: false }).fetch(new Request("https://l/"));
  assert.equal(off.headers.get("strict-transport-security"), null);
});

Deno.test("secureHeaders() puts a fresh nonce per request into the CSP and exposes it", async () => {
  const a = app({
    contentSecurityPolicy: {
      "default-src": "'self'",
      "script-src": ["'self'", NONCE],
      "style-src": [NONCE],
      "upgrade-insecure-requests": true,
    },
  });
  const nonces = new Set<string>();
  for (let i = 0; i < 3; i++) {
    const res = await a.fetch(new Request("http://localhost/"));
    const { nonce } = await res.json();
    assert.match(nonce, /^[A-Za-z0-9_-]{22}$/);
    assert.equal(
      res.headers.get("content-security-policy"),
      `default-src 'self'; script-src 'self' 'nonce-${nonce}'; style-src 'nonce-${nonce}'; ` +
        "upgrade-insecure-requests",
    );
    nonces.add(nonce);
  }
  assert.equal(nonces.size, 3);
  const noNonce = await app({ contentSecurityPolicy: { "default-src": "'self'" } })
    .fetch(new Request("http://localhost/"));
  assert.deepEqual(await noNonce.json(), { nonce: null });
  const reportOnly = await app({
    contentSecurityPolicy: { "default-src": "'self'" },
    reportOnly: true,
  })
    .fetch(new Request("http://localhost/"));
  assert.equal(reportOnly.headers.get("content-security-policy-report-only"), "default-src 'self'");
  assert.equal(reportOnly.headers.get("content-security-policy"), null);
});

Deno.test("secureHeaders() refuses malformed policies and values when created", () => {
  assert.throws(() => secureHeaders({ contentSecurityPolicy: { "a b": "x" } }), /directive name/);
  assert.throws(
    () => secureHeaders({ contentSecurityPolicy: { "script-src": "'self'; img-src *" } }),
    /control character, ";" or ","/,
  );
  assert.throws(() => secureHeaders({ referrerPolicy: "a\r\nb" }), /control characters/);
  assert.throws(
    () => secureHeaders({ strictTransportSecurity: "max-age=1\r\nX-Evil: 1" }),
    /strict-transport-security value has control characters/,
  );
});
