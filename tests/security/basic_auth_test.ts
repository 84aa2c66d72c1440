import assert from "node:assert/strict";
import { chain, get, group, options, router } from "../../mod.ts";
import { basicAuth, basicUsers, type BasicVerifier } from "../../lib/security/basic_auth.ts";
import { preflight } from "../_preflight.ts";

const CHALLENGE = 'Basic realm="admin", charset="UTF-8"';

// Where the app's onError hook sends errors that became 500s, while a test listens.
let reportTo: ((error: unknown) => void) | undefined;

function app(
  verify: BasicVerifier = basicUsers({ ada: "lovelace", "zoë": "pässwörd:with:colons" }),
) {
  const admin = basicAuth({ verify, realm: "admin" });
  return router([get("/", [admin], (ctx) => ctx.json({ user: ctx.var.user }))], {
    onError: (error) => void reportTo?.(error),
  });
}

function utf8Base64(text: string): string {
  return btoa(String.fromCharCode(...new TextEncoder().encode(text)));
}

async function call(authorization?: string, a = app()) {
  const res = await a.fetch(
    new Request("http://localhost/", { headers: authorization ? { authorization } : {} }),
  );
  return {
    status: res.status,
    challenge: res.headers.get("www-authenticate"),
    body: await res.json(),
  };
}

Deno.test("basicAuth() lets valid credentials through, UTF-8 and colons in the password included", async () => {
  assert.deepEqual((await call(`Basic ${btoa("ada:lovelace")}`)).body, { user: "ada" });
  assert.deepEqual((await call(`basic  ${btoa("ada:lovelace")}`)).body, { user: "ada" });
  const zoe = await call(`Basic ${utf8Base64("zoë:pässwörd:with:colons")}`);
  assert.deepEqual(zoe.body, { user: "zoë" });
});

Deno.test("basicAuth() answers 401 with the RFC 7617 challenge for missing or wrong credentials", async () => {
  for (
    const header of [
      undefined,
      "Bearer abc",
      "Basicx",
      `Basic ${btoa("ada:wrong")}`,
      `Basic ${btoa("ada:lovelac")}`,
      `Basic ${btoa("nobody:lovelace")}`,
      `Basic ${btoa("ada:")}`,
      `Basic ${btoa(":lovelace")}`,
    ]
  ) {
    const res = await call(header);
    assert.equal(res.status, 401, String(header));
    assert.equal(res.challenge, CHALLENGE);
    assert.equal(res.body.status, 401);
  }
});

Deno.test("basicAuth() answers 400 for malformed credentials, never 500", async () => {
  for (
    const header of [
      "Basic ",
      "Basic !!!!",
      "Basic YWRh", // "ada": no colon
      "Basic YWRhOmxvdmVsYWNl=", // bad padding
      `Basic ${btoa("\xff\xfe:x")}`, // not UTF-8
      `Basic ${btoa("ada:love\nlace")}`,
      `Basic ${"A".repeat(100_000)}`,
    ]
  ) {
    const res = await call(header);
    assert.equal(res.status, 400, header.slice(0, 40));
    assert.equal(res.challenge, CHALLENGE);
  }
});

Deno.test("basicAuth() passes the verifier's user on, and a throwing verifier is a 500", async () => {
  const custom = app((user, password) => user === "u" && password === "p" ? { id: 1 } : null);
  assert.deepEqual((await call(`Basic ${btoa("u:p")}`, custom)).body, { user: { id: 1 } });
  const errors: unknown[] = [];
  reportTo = (error) => errors.push(error);
  try {
    const broken = app(() => {
      throw new Error("database down");
    });
    assert.equal((await call(`Basic ${btoa("u:p")}`, broken)).status, 500);
    assert.equal(errors.length, 1);
  } finally {
    reportTo = undefined;
  }
});

Deno.test("basicUsers() and basicAuth() check their arguments", () => {
  assert.throws(() => basicUsers({ "a:b": "x" }), /no colon/);
  assert.throws(() => basicAuth({ verify: "x" as never }), /verify must be a function/);
  for (const realm of ["a\nb", "管理"]) {
    assert.throws(
      () => basicAuth({ verify: () => true, realm }),
      /realm must be a string of printable Latin-1 characters/,
    );
  }
  // Latin-1 beyond ASCII is a valid header value
  basicAuth({ verify: () => true, realm: "Bücher" });
});

Deno.test("basicAuth() in a group lets a CORS preflight without credentials reach the router's 204, and runs nothing else for it", async () => {
  const verify = basicUsers({ ada: "lovelace" });
  let ran = 0;
  const routes = [
    get("/items", () => new Response("items")),
    options("/purge", () => {
      ran++; // a side effect that must not happen without credentials
      return new Response(null, { status: 204, headers: { "x-purged": "1" } });
    }),
  ];
  const grouped = router([group("/api", [basicAuth({ verify })], routes)]);
  const strict = router([group("/api", [basicAuth({ verify, allowPreflight: false })], routes)]);
  const chained = chain([basicAuth({ verify })], router(routes));
  const res = await grouped.fetch(preflight("/api/items"));
  assert.equal(res.status, 204);
  assert.equal(res.headers.get("allow"), "GET, HEAD, OPTIONS");
  // an options() route is the app's own: it runs only for an authenticated request
  const purge = await grouped.fetch(preflight("/api/purge"));
  assert.equal(purge.status, 401);
  assert.equal(purge.headers.get("x-purged"), null);
  assert.equal((await strict.fetch(preflight("/api/items"))).status, 401);
  // in a chain in front of the router, basicAuth() cannot know what will answer: 401
  assert.equal((await chained.fetch(preflight("/items"))).status, 401);
  assert.equal((await chained.fetch(preflight("/purge"))).status, 401);
  assert.equal(ran, 0);
  // with credentials it is authenticated as any request
  const wrong = await grouped.fetch(
    preflight("/api/items", "GET", { authorization: `Basic ${btoa("ada:x")}` }),
  );
  assert.equal(wrong.status, 401);
  const right = await grouped.fetch(
    preflight("/api/purge", "GET", { authorization: `Basic ${btoa("ada:lovelace")}` }),
  );
  assert.equal(right.headers.get("x-purged"), "1");
  assert.equal(ran, 1);
});
