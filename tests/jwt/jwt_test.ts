// jwt() against tokens minted two ways: by jose (the library that verifies them) and by
// node:crypto by hand (an independent signer), for HS256, RS256, ES256 and EdDSA.
import assert from "node:assert/strict";
import { createHmac, generateKeyPairSync, type KeyObject, sign as nodeSign } from "node:crypto";
import { exportJWK, generateKeyPair, type JWK, SignJWT } from "jose";
import { chain, get, router, serve } from "../../mod.ts";
import { jwt, type JwtOptions, jwtPayload } from "../../lib/jwt/mod.ts";
import { withDeadline } from "../_deadline.ts";

const SECRET = "a-jwt-secret-of-at-least-thirty-two-bytes";
const REALM = 'Bearer realm="api"';

// Where the app's onError hook sends errors that became 500s, while a test listens.
let reportTo: ((error: unknown) => void) | undefined;

function app(options: JwtOptions) {
  return chain(
    [jwt(options)],
    router([get("/me", (ctx) => ctx.json({ sub: jwtPayload(ctx)?.sub ?? null }))], {
      onError: (error) => void reportTo?.(error),
    }),
  );
}

async function call(a: ReturnType<typeof app>, authorization?: string) {
  const res = await a.fetch(
    new Request("http://localhost/me", { headers: authorization ? { authorization } : {} }),
  );
  return {
    status: res.status,
    challenge: res.headers.get("www-authenticate"),
    body: await res.json(),
  };
}

const b64 = (data: string | Uint8Array) => Buffer.from(data).toString("base64url");
const now = () => Math.floor(Date.now() / 1000);

// A compact JWS made with node:crypto only.
function nodeToken(
  alg: string,
  key: KeyObject | string,
  claims: Record<string, unknown> = {},
  header: Record<string, unknown> = {},
): string {
  const input = `${b64(JSON.stringify({ alg, typ: "JWT", ...header }))}.${
    b64(JSON.stringify({ sub: "node", exp: now() + 60, ...claims }))
  }`;
  let signature: Buffer;
  if (alg === "HS256") signature = createHmac("sha256", key as string).update(input).digest();
  else if (alg === "RS256") signature = nodeSign("sha256", Buffer.from(input), key as KeyObject);
  else if (alg === "ES256") {
    signature = nodeSign("sha256", Buffer.from(input), {
      key: key as KeyObject,
      dsaEncoding: "ieee-p1363",
    });
  } else signature = nodeSign(null, Buffer.from(input), key as KeyObject); // EdDSA
  return `${input}.${b64(signature)}`;
}

// A token over any signing input, HMAC-signed with SECRET.
function signedRaw(input: string): string {
  return `${input}.${b64(createHmac("sha256", SECRET).update(input).digest())}`;
}

function nodePair(alg: "RS256" | "ES256" | "EdDSA") {
  const pair = alg === "RS256"
    ? generateKeyPairSync("rsa", { modulusLength: 2048 })
    : alg === "ES256"
    ? generateKeyPairSync("ec", { namedCurve: "P-256" })
    : generateKeyPairSync("ed25519");
  return {
    privateKey: pair.privateKey,
    publicKey: pair.publicKey,
    jwk: pair.publicKey.export({ format: "jwk" }) as JWK,
  };
}

Deno.test("jwt() accepts HS256, RS256, ES256 and EdDSA tokens minted by jose and by node:crypto", async () => {
  // HS256
  const hs = app({ secret: SECRET, algorithms: ["HS256"] });
  const joseHs = await new SignJWT({ sub: "jose" }).setProtectedHeader({ alg: "HS256" })
    .setExpirationTime("1m").sign(new TextEncoder().encode(SECRET));
  assert.deepEqual((await call(hs, `Bearer ${joseHs}`)).body, { sub: "jose" });
  assert.deepEqual((await call(hs, `Bearer ${nodeToken("HS256", SECRET)}`)).body, { sub: "node" });

  for (const alg of ["RS256", "ES256", "EdDSA"] as const) {
    // minted by node:crypto, verified with the public JWK
    const { privateKey, jwk } = nodePair(alg);
    const withKey = app({ key: jwk, algorithms: [alg] });
    const byNode = await call(withKey, `Bearer ${nodeToken(alg, privateKey)}`);
    assert.deepEqual(byNode.body, { sub: "node" }, alg);

    // minted by jose, verified through a key set
    const pair = await generateKeyPair(alg, { extractable: true });
    const publicJwk = { ...await exportJWK(pair.publicKey), kid: "k1", alg };
    const withSet = app({ jwks: { keys: [publicJwk] }, algorithms: [alg] });
    const byJose = await new SignJWT({ sub: "jose" }).setProtectedHeader({ alg, kid: "k1" })
      .setExpirationTime("1m").sign(pair.privateKey);
    assert.deepEqual((await call(withSet, `Bearer ${byJose}`)).body, { sub: "jose" }, alg);
    // a CryptoKey works as key too
    // (a cast: with every test file checked together, two CryptoKey declarations are in scope)
    const key = pair.publicKey as unknown as JwtOptions["key"];
    const withCryptoKey = app({ key, algorithms: [alg] });
    assert.deepEqual((await call(withCryptoKey, `Bearer ${byJose}`)).body, { sub: "jose" });
    // and the other signer's token does not verify under this key
    const other = await call(withSet, `Bearer ${nodeToken(alg, privateKey, {}, { kid: "k1" })}`);
    assert.equal(other.status, 401, alg);
  }
});

Deno.test("jwt() refuses a token re-signed with the public key as HMAC secret", async () => {
  const { privateKey, publicKey, jwk } = nodePair("RS256");
  const a = app({ key: jwk, algorithms: ["RS256"] });
  assert.equal((await call(a, `Bearer ${nodeToken("RS256", privateKey)}`)).status, 200);
  // the attacker knows the public key, in every usual form, and signs HS256 with it
  const publicPem = publicKey.export({ type: "spki", format: "pem" }) as string;
  for (const secret of [publicPem, JSON.stringify(jwk), jwk.n!]) {
    const forged = nodeToken("HS256", secret, { sub: "admin" });
    const res = await call(a, `Bearer ${forged}`);
    assert.equal(res.status, 401);
    assert.equal(
      res.challenge,
      `${REALM}, error="invalid_token", error_description="The token's algorithm is not allowed"`,
    );
  }
  // and such a configuration cannot even be written
  assert.throws(
    () => jwt({ key: jwk, algorithms: ["RS256", "HS256"] }),
    /a public key is never an HMAC secret/,
  );
  assert.throws(
    () => jwt({ secret: SECRET, algorithms: ["HS256", "RS256"] }),
    /a secret goes only/,
  );
  assert.throws(() => jwt({ secret: SECRET, algorithms: ["none" as "HS256"] }), /not a supported/);
  assert.throws(() => jwt({ secret: SECRET, algorithms: [] }), /at least one algorithm/);
  assert.throws(() => jwt({ secret: "short", algorithms: ["HS256"] }), /at least 32 bytes/);
  assert.throws(() => jwt({ algorithms: ["RS256"] }), /exactly one of/);
  assert.throws(
    () => jwt({ key: nodePair("ES256").jwk, jwks: { keys: [] }, algorithms: ["ES256"] }),
    /exactly one/,
  );
  const privateJwk = privateKey.export({ format: "jwk" }) as JWK;
  assert.throws(() => jwt({ key: privateJwk, algorithms: ["RS256"] }), /public key/);
  // a key for encryption verifies no signature: refused, not a 401 for every token
  const encryption = /key is for encryption/;
  assert.throws(() => jwt({ key: { ...jwk, use: "enc" }, algorithms: ["RS256"] }), encryption);
  const wrapping = { ...jwk, key_ops: ["encrypt", "wrapKey"] };
  assert.throws(() => jwt({ key: wrapping, algorithms: ["RS256"] }), encryption);
  const oaep = await crypto.subtle.generateKey(
    {
      name: "RSA-OAEP",
      modulusLength: 2048,
      publicExponent: new Uint8Array([1, 0, 1]),
      hash: "SHA-256",
    },
    true,
    ["encrypt", "decrypt"],
  );
  assert.throws(() => jwt({ key: oaep.publicKey, algorithms: ["RS256"] }), encryption);
  // a signing key with use "sig" or key_ops ["verify"] is taken
  jwt({ key: { ...jwk, use: "sig", key_ops: ["verify"] }, algorithms: ["RS256"] });
  // a PEM string is not a key: refused when the middleware is made, not on every request
  const pem = "-----BEGIN PUBLIC KEY-----\nMIIB\n-----END PUBLIC KEY-----";
  assert.throws(
    () => jwt({ key: pem as never, algorithms: ["RS256"] }),
    /CryptoKey or a public JWK/,
  );
  for (const maxTokenLength of [Number.NaN, 0, -1, 1.5]) {
    assert.throws(
      () => jwt({ secret: SECRET, algorithms: ["HS256"], maxTokenLength }),
      RangeError,
      String(maxTokenLength),
    );
  }
});

Deno.test("jwt() refuses alg none", async () => {
  const a = app({ secret: SECRET, algorithms: ["HS256"] });
  const none = `${b64('{"alg":"none","typ":"JWT"}')}.${b64(`{"sub":"x","exp":${now() + 60}}`)}.`;
  const res = await call(a, `Bearer ${none}`);
  assert.equal(res.status, 401);
  assert.match(
    res.challenge!,
    /error="invalid_token", error_description="The token's algorithm is not allowed"/,
  );
});

Deno.test("jwt() gives each failure its RFC 6750 error and error_description", async () => {
  const a = app({
    secret: SECRET,
    algorithms: ["HS256"],
    issuer: "https://id.example",
    audience: "api",
    clockTolerance: 5,
  });
  const good = { iss: "https://id.example", aud: "api" };
  const cases: [string, string | undefined, number, string | null][] = [
    ["valid", nodeToken("HS256", SECRET, good), 200, null],
    [
      "within the clock tolerance",
      nodeToken("HS256", SECRET, { ...good, exp: now() - 2 }),
      200,
      null,
    ],
    ["no header", undefined, 401, REALM],
    ["another scheme", "Basic YTpi", 401, REALM],
    ["bad b64token", "Bearer a b", 400, `${REALM}, error="invalid_request"`],
    ["expired", nodeToken("HS256", SECRET, { ...good, exp: now() - 60 }), 401, "The token expired"],
    [
      "not yet valid",
      nodeToken("HS256", SECRET, { ...good, nbf: now() + 60 }),
      401,
      "The token is not valid yet",
    ],
    [
      "wrong issuer",
      nodeToken("HS256", SECRET, { ...good, iss: "https://evil" }),
      401,
      "The token's issuer is not accepted",
    ],
    [
      "no issuer",
      nodeToken("HS256", SECRET, { aud: "api" }),
      401,
      "The token's issuer is not accepted",
    ],
    [
      "wrong audience",
      nodeToken("HS256", SECRET, { ...good, aud: "other" }),
      401,
      "The token's audience is not accepted",
    ],
    [
      "no exp",
      nodeToken("HS256", SECRET, { ...good, exp: undefined }),
      401,
      "The token's exp claim is missing or not valid",
    ],
    [
      "wrong secret",
      nodeToken("HS256", SECRET + "!", good),
      401,
      "The token's signature is not valid",
    ],
    [
      "nbf not a number",
      nodeToken("HS256", SECRET, { ...good, nbf: "yesterday" }),
      401,
      "The token's nbf claim is missing or not valid",
    ],
    [
      // JSON.parse reads 1e400 as Infinity: a token that would never expire
      "exp beyond any number",
      `Bearer ${
        signedRaw(
          b64('{"alg":"HS256"}') + "." +
            b64('{"iss":"https://id.example","aud":"api","exp":1e400}'),
        )
      }`,
      401,
      "The token's exp claim is missing or not valid",
    ],
    [
      "iat beyond any number",
      `Bearer ${
        signedRaw(
          b64('{"alg":"HS256"}') + "." +
            b64(`{"iss":"https://id.example","aud":"api","exp":${now() + 60},"iat":1e999}`),
        )
      }`,
      401,
      "The token's iat claim is missing or not valid",
    ],
    ["malformed", "Bearer abc.def.ghi", 401, "The token is malformed"],
    ["two parts", "Bearer abc.def", 401, "The token is malformed"],
    [
      "unsigned garbage",
      `Bearer ${b64('{"alg":"HS256"}')}.${b64("nope")}.${b64("sig")}`,
      401,
      "The token's signature is not valid",
    ],
    [
      "signed, payload not JSON",
      `Bearer ${signedRaw(b64('{"alg":"HS256"}') + "." + b64("nope"))}`,
      401,
      "The token is malformed",
    ],
  ];
  for (const [name, token, status, expected] of cases) {
    const header = token === undefined
      ? undefined
      : token.startsWith("B")
      ? token
      : `Bearer ${token}`;
    const res = await call(a, header);
    assert.equal(res.status, status, name);
    if (expected === null) assert.equal(res.challenge, null, name);
    else if (expected.startsWith("Bearer")) assert.equal(res.challenge, expected, name);
    else {
      assert.equal(
        res.challenge,
        `${REALM}, error="invalid_token", error_description="${expected}"`,
        name,
      );
      assert.equal(res.body.detail, expected, name);
      assert.equal(res.body.status, 401);
    }
  }
});

Deno.test("jwt() checks clockTolerance when it is created, not on every request", async () => {
  const expired = nodeToken("HS256", SECRET, { exp: now() - 20 });
  for (const [tolerance, status] of [[30, 200], ["30s", 200], ["1 minute", 200], ["5 S", 401]]) {
    const a = app({ secret: SECRET, algorithms: ["HS256"], clockTolerance: tolerance });
    assert.equal((await call(a, `Bearer ${expired}`)).status, status, String(tolerance));
  }
  // jose refused these on each verification: every request was a 500
  for (const tolerance of [-5, NaN, Infinity, "abc", "-30s", "1 minute ago", "30s from now", ""]) {
    assert.throws(
      () => jwt({ secret: SECRET, algorithms: ["HS256"], clockTolerance: tolerance }),
      { name: "TypeError", message: /clockTolerance/ },
      String(tolerance),
    );
  }
});

Deno.test("jwt() answers truncated, tampered and oversized tokens with 401, never 500", async () => {
  const a = app({ secret: SECRET, algorithms: ["HS256"] });
  const token = nodeToken("HS256", SECRET);
  for (let cut = 1; cut < token.length; cut += 7) {
    const res = await call(a, `Bearer ${token.slice(0, cut)}`);
    assert.ok(res.status === 401 || res.status === 400, `cut at ${cut}: ${res.status}`);
  }
  const [h, p, s] = token.split(".");
  const tampered = `${h}.${b64(JSON.stringify({ sub: "admin", exp: now() + 60 }))}.${s}`;
  assert.equal((await call(a, `Bearer ${tampered}`)).status, 401);
  assert.equal((await call(a, `Bearer ${h}.${p}.${s.slice(0, -2)}`)).status, 401);
  // a 1 MB payload is refused before it is decoded
  const huge = nodeToken("HS256", SECRET, { pad: "x".repeat(1_000_000) });
  const res = await call(a, `Bearer ${huge}`);
  assert.equal(res.status, 401);
  assert.match(res.challenge!, /error_description="The token is longer than 8192 characters"/);
  const roomy = app({ secret: SECRET, algorithms: ["HS256"], maxTokenLength: 2_000_000 });
  assert.equal((await call(roomy, `Bearer ${huge}`)).status, 200);
});

Deno.test("jwt() tries each key of a set that fits a token without a kid, as during a key rotation", async () => {
  // An issuer that rotates publishes the old key and the new one; a token that names no kid (or a
  // set that lists a kid twice) fits both. jose throws JWKSMultipleMatchingKeys then and leaves
  // trying them to the caller: every such token, valid or not, was a 401 "No key … matches".
  const [old, current, stranger] = [nodePair("ES256"), nodePair("ES256"), nodePair("ES256")];
  const set = { keys: [old.jwk, current.jwk] };
  const twice = { keys: [{ ...old.jwk, kid: "k" }, { ...current.jwk, kid: "k" }] };
  const served = serve(router([get("/jwks.json", (ctx) => ctx.json(set))]), {
    port: 0,
    hostname: "127.0.0.1",
    onListen: () => {},
  });
  try {
    const remote = `http://127.0.0.1:${served.addr.port}/jwks.json`;
    for (const [name, jwks] of [["local", set], ["remote", remote]] as const) {
      const a = app({ jwks, algorithms: ["ES256"] });
      for (const pair of [old, current]) {
        const res = await call(a, `Bearer ${nodeToken("ES256", pair.privateKey)}`);
        assert.equal(res.status, 200, name);
        assert.deepEqual(res.body, { sub: "node" }, name);
      }
      const forged = await call(a, `Bearer ${nodeToken("ES256", stranger.privateKey)}`);
      assert.equal(forged.status, 401, name);
      assert.match(forged.challenge!, /error_description="The token's signature is not valid"/);
      // a failure with the key that fits is the answer: not a signature error
      const expired = nodeToken("ES256", current.privateKey, { exp: now() - 60 });
      assert.match((await call(a, `Bearer ${expired}`)).challenge!, /The token expired/, name);
    }
    const kid = app({ jwks: twice, algorithms: ["ES256"] });
    const token = nodeToken("ES256", current.privateKey, {}, { kid: "k" });
    assert.equal((await call(kid, `Bearer ${token}`)).status, 200);
  } finally {
    await withDeadline(served.shutdown(), 10_000, "the JWKS server to shut down");
  }
});

Deno.test("jwt() fetches a remote key set, and answers 503 when it cannot", async () => {
  const pair = await generateKeyPair("ES256", { extractable: true });
  const keys = { keys: [{ ...await exportJWK(pair.publicKey), kid: "remote", alg: "ES256" }] };
  const jwks = serve(router([get("/jwks.json", (ctx) => ctx.json(keys))]), {
    port: 0,
    hostname: "127.0.0.1",
    onListen: () => {},
  });
  const errors: unknown[] = [];
  reportTo = (error) => errors.push(error);
  try {
    const a = app({ jwks: `http://127.0.0.1:${jwks.addr.port}/jwks.json`, algorithms: ["ES256"] });
    const token = await new SignJWT({ sub: "remote" }).setProtectedHeader({
      alg: "ES256",
      kid: "remote",
    })
      .setExpirationTime("1m").sign(pair.privateKey);
    assert.deepEqual((await call(a, `Bearer ${token}`)).body, { sub: "remote" });
    const unknownKid = await new SignJWT({ sub: "x" }).setProtectedHeader({
      alg: "ES256",
      kid: "nope",
    })
      .setExpirationTime("1m").sign(pair.privateKey);
    const miss = await call(a, `Bearer ${unknownKid}`);
    assert.equal(miss.status, 401);
    assert.match(miss.challenge!, /No key of the key set matches the token/);
    await withDeadline(jwks.shutdown(), 10_000, "the JWKS server to shut down");
    const gone = app({
      jwks: `http://127.0.0.1:${jwks.addr.port}/jwks.json`,
      algorithms: ["ES256"],
    });
    assert.equal((await call(gone, `Bearer ${token}`)).status, 503);
  } finally {
    reportTo = undefined;
    await withDeadline(jwks.shutdown(), 10_000, "the JWKS server to shut down");
  }
});

Deno.test("jwt() with one key answers 401 for a token naming another listed algorithm, never 500", async () => {
  const reported: unknown[] = [];
  reportTo = (error) => reported.push(error);
  try {
    const cases = [
      ["RS256", ["RS256", "RS512"], "RS512"],
      ["RS256", ["RS256", "PS256"], "PS256"],
      ["ES256", ["ES256", "ES384"], "ES384"],
      ["EdDSA", ["EdDSA", "ES256"], "ES256"],
    ] as const;
    for (const [alg, algorithms, forged] of cases) {
      const pair = await generateKeyPair(alg, { extractable: true });
      const good = await new SignJWT({ sub: "a" }).setProtectedHeader({ alg })
        .setExpirationTime("1m").sign(pair.privateKey);
      const [, payload, signature] = good.split(".");
      const token = `${b64(JSON.stringify({ alg: forged }))}.${payload}.${signature}`;
      const jwk = await exportJWK(pair.publicKey);
      const keys = [
        pair.publicKey as unknown as JwtOptions["key"],
        jwk,
        { ...jwk, alg },
      ];
      for (const key of keys) {
        const a = app({ key, algorithms: [...algorithms] });
        const res = await call(a, `Bearer ${token}`);
        assert.equal(res.status, 401, `${alg} key, ${forged} token`);
        assert.match(res.challenge ?? "", /error="invalid_token"/);
        // the genuine token still verifies under the same key
        assert.deepEqual((await call(a, `Bearer ${good}`)).body, { sub: "a" }, alg);
      }
    }
    assert.deepEqual(reported, []);
  } finally {
    reportTo = undefined;
  }
});

Deno.test("jwt() lets a CORS preflight reach the router's automatic answer unless told not to", async () => {
  const preflight = () =>
    new Request("http://localhost/me", {
      method: "OPTIONS",
      headers: { origin: "https://a.example", "access-control-request-method": "GET" },
    });
  const open = await app({ secret: SECRET, algorithms: ["HS256"] }).fetch(preflight());
  assert.equal(open.status, 204);
  assert.equal(open.headers.get("allow"), "GET, HEAD, OPTIONS");
  const strict = app({ secret: SECRET, algorithms: ["HS256"], allowPreflight: false });
  const refused = await strict.fetch(preflight());
  assert.equal(refused.status, 401);
  assert.equal(refused.headers.get("www-authenticate"), REALM);
});

Deno.test("jwt() accepts a token in its one spelling only: no padding, no other spare bits", async () => {
  const a = app({ secret: SECRET, algorithms: ["HS256"] });
  const token = nodeToken("HS256", SECRET);
  assert.equal((await call(a, `Bearer ${token}`)).status, 200);
  const [h, p, s] = token.split(".");
  // a 32-byte HMAC-SHA-256 is 43 characters: the last one carries 2 bits no byte uses
  const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
  const last = alphabet.indexOf(s.at(-1)!);
  const respelled = [1, 2, 3].map((bits) => s.slice(0, -1) + alphabet[last ^ bits]);
  for (const variant of [`${h}.${p}.${s}=`, ...respelled.map((sig) => `${h}.${p}.${sig}`)]) {
    const res = await call(a, `Bearer ${variant}`);
    assert.equal(res.status, 401, variant);
    assert.match(
      res.challenge!,
      /error="invalid_token", error_description="The token is malformed"/,
    );
  }
});
