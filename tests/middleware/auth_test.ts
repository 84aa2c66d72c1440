import assert from "node:assert/strict";
import { type AppHooks, chain, get, group, HttpError, options, router } from "../../mod.ts";
import { auth, type AuthOptions, bearerTokens } from "../../lib/middleware/auth.ts";

const GOOD = "mF_9.B5f-4.1JqM";
const USER = { id: 7, name: "ada" };

function app(opts: Partial<AuthOptions> = {}, hooks: AppHooks = {}) {
  const calls: string[] = [];
  const validate = opts.validate ?? ((token: string) => {
    calls.push(token);
    return token === GOOD ? USER : null;
  });
  const handled: unknown[] = [];
  // A group's middleware are declared first, so that their variables type the routes.
  const guard = auth({ realm: "example", ...opts, validate });
  const composed = chain(
    [],
    router([
      group("", [guard], [
        get("/me", (ctx) => {
          handled.push(ctx.var.user);
          return ctx.json({ user: ctx.var.user, token: ctx.get("auth.token") });
        }),
      ]),
    ], hooks),
  );
  return { app: composed, calls, handled };
}

function request(authorization?: string | string[], init: RequestInit = {}): Request {
  const headers = new Headers(init.headers);
  for (const value of [authorization ?? []].flat()) headers.append("authorization", value);
  return new Request("http://api.test/me", { ...init, headers });
}

const CHALLENGE = 'Bearer realm="example"';
const INVALID_REQUEST = 'Bearer realm="example", error="invalid_request"';
const INVALID_TOKEN = 'Bearer realm="example", error="invalid_token"';

interface Row {
  name: string;
  header?: string | string[];
  status: number;
  challenge: string | null;
  /** The token validate() must have been called with, when it was called. */
  validated?: string;
}

// RFC 6750 §2.1 and §3.1, case by case.
const MATRIX: Row[] = [
  { name: "no Authorization header", status: 401, challenge: CHALLENGE },
  {
    name: "another scheme (Basic)",
    header: "Basic dXNlcjpwYXNz",
    status: 401,
    challenge: CHALLENGE,
  },
  {
    name: "a scheme that only starts with Bearer",
    header: "Bearerx abc",
    status: 401,
    challenge: CHALLENGE,
  },
  { name: "a short unrelated value", header: "Bea", status: 401, challenge: CHALLENGE },
  { name: "the scheme without a token", header: "Bearer", status: 400, challenge: INVALID_REQUEST },
  {
    name: "the scheme and spaces only",
    header: "Bearer    ",
    status: 400,
    challenge: INVALID_REQUEST,
  },
  {
    name: "a valid token",
    header: `Bearer ${GOOD}`,
    status: 200,
    challenge: null,
    validated: GOOD,
  },
  {
    name: "the scheme in lower case",
    header: `bearer ${GOOD}`,
    status: 200,
    challenge: null,
    validated: GOOD,
  },
  {
    name: "the scheme in upper case",
    header: `BEARER ${GOOD}`,
    status: 200,
    challenge: null,
    validated: GOOD,
  },
  {
    name: "several spaces (1*SP)",
    header: `Bearer   ${GOOD}`,
    status: 200,
    challenge: null,
    validated: GOOD,
  },
  {
    name: "an unknown token",
    header: "Bearer nope",
    status: 401,
    challenge: INVALID_TOKEN,
    validated: "nope",
  },
  {
    name: "every b64token character and trailing =",
    header: "Bearer AZaz09-._~+/==",
    status: 401,
    challenge: INVALID_TOKEN,
    validated: "AZaz09-._~+/==",
  },
  {
    name: "a space inside the token",
    header: "Bearer abc def",
    status: 400,
    challenge: INVALID_REQUEST,
  },
  { name: "= inside the token", header: "Bearer ab=c", status: 400, challenge: INVALID_REQUEST },
  { name: "= alone", header: "Bearer =", status: 400, challenge: INVALID_REQUEST },
  { name: "a comma in the token", header: "Bearer a,b", status: 400, challenge: INVALID_REQUEST },
  { name: "a quoted token", header: 'Bearer "abc"', status: 400, challenge: INVALID_REQUEST },
  {
    name: "a non-ASCII character",
    header: "Bearer ab\u00e7d",
    status: 400,
    challenge: INVALID_REQUEST,
  },
  {
    name: "a tab as separator",
    header: `Bearer\t${GOOD}`,
    status: 400,
    challenge: INVALID_REQUEST,
  },
  {
    name: "two Authorization headers",
    header: [`Bearer ${GOOD}`, `Bearer ${GOOD}`],
    status: 400,
    challenge: INVALID_REQUEST,
  },
  {
    name: "auth-params instead of a token",
    header: 'Bearer realm="x"',
    status: 400,
    challenge: INVALID_REQUEST,
  },
];

for (const row of MATRIX) {
  Deno.test(`auth() answers ${row.status} to ${row.name}`, async () => {
    const { app: composed, calls, handled } = app();
    const res = await composed.fetch(request(row.header));
    assert.equal(res.status, row.status);
    assert.equal(res.headers.get("www-authenticate"), row.challenge);
    assert.deepEqual(calls, row.validated === undefined ? [] : [row.validated]);
    if (row.status === 200) {
      assert.deepEqual(await res.json(), { user: USER, token: GOOD });
      assert.equal(handled.length, 1);
    } else {
      assert.equal(handled.length, 0, "the handler must not run");
      assert.equal(res.headers.get("content-type"), "application/problem+json");
      const body = await res.json();
      assert.equal(body.status, row.status);
      assert.equal(typeof body.detail, "string");
      if (row.header !== undefined) {
        for (const part of [row.header].flat()) {
          const credentials = part.slice(part.indexOf(" ") + 1).trim();
          if (!part.includes(" ") || credentials.length < 3) continue;
          assert.ok(!JSON.stringify(body).includes(credentials), "the body never echoes them");
        }
      }
    }
  });
}

Deno.test("auth() matrix has at least 12 cases", () => {
  assert.ok(MATRIX.length >= 12);
});

// ---------------------------------------------------------------------------------------------
// What validate() sees and returns

Deno.test("auth() stores the token as auth.token before validate() runs, and passes ctx", async () => {
  let seen: unknown;
  const { app: composed } = app({
    validate: (token, ctx) => {
      seen = [token, ctx.get("auth.token"), ctx.path];
      return { token };
    },
  });
  const res = await composed.fetch(request(`Bearer ${GOOD}`));
  assert.deepEqual(seen, [GOOD, GOOD, "/me"]);
  assert.deepEqual(await res.json(), { user: { token: GOOD }, token: GOOD });
});

Deno.test("auth() awaits an async validate()", async () => {
  const { app: composed } = app({
    validate: async (token) => {
      await new Promise((resolve) => setTimeout(resolve, 1));
      return token === GOOD ? "async-user" : undefined;
    },
  });
  assert.deepEqual(await (await composed.fetch(request(`Bearer ${GOOD}`))).json(), {
    user: "async-user",
    token: GOOD,
  });
  const bad = await composed.fetch(request("Bearer other"));
  assert.equal(bad.status, 401);
  assert.equal(bad.headers.get("www-authenticate"), INVALID_TOKEN);
});

Deno.test("auth() treats null, undefined and false from validate() as an invalid token", async () => {
  for (const value of [null, undefined, false]) {
    const { app: composed, handled } = app({ validate: () => value });
    const res = await composed.fetch(request(`Bearer ${GOOD}`));
    assert.equal(res.status, 401, String(value));
    assert.equal(res.headers.get("www-authenticate"), INVALID_TOKEN);
    assert.equal(handled.length, 0);
  }
});

Deno.test("auth() awaits a thenable from validate() instead of taking it for a user", async () => {
  const { app: composed, handled } = app({
    validate: () => ({ then: (resolve: (value: null) => void) => resolve(null) }),
  });
  const res = await composed.fetch(request(`Bearer ${GOOD}`));
  assert.equal(res.status, 401);
  assert.equal(handled.length, 0);
});

Deno.test("auth() accepts any other user value, falsy ones included", async () => {
  for (const value of [0, "", true, []]) {
    const { app: composed } = app({ validate: () => value });
    const res = await composed.fetch(request(`Bearer ${GOOD}`));
    assert.equal(res.status, 200, JSON.stringify(value));
    assert.deepEqual((await res.json()).user, value);
  }
});

Deno.test("auth() turns a throwing validate() into a reported 500, not a 401", async () => {
  const reported: unknown[] = [];
  {
    for (
      const validate of [
        () => {
          throw new Error("database down");
        },
        () => Promise.reject(new Error("database down")),
      ]
    ) {
      const { app: composed, handled } = app({ validate }, {
        onError: (error) => void reported.push(error),
      });
      const res = await composed.fetch(request(`Bearer ${GOOD}`));
      assert.equal(res.status, 500);
      assert.equal(res.headers.get("www-authenticate"), null);
      assert.equal(res.headers.get("content-type"), "application/problem+json");
      assert.ok(!(await res.text()).includes("database down"));
      assert.equal(handled.length, 0);
    }
    assert.equal(reported.length, 2);
    assert.equal((reported[0] as Error).message, "database down");
  }
});

Deno.test("auth() lets an HttpError from validate() keep its status", async () => {
  const { app: composed } = app({
    validate: () => {
      throw new HttpError(403, "This token may not read /me");
    },
  });
  const res = await composed.fetch(request(`Bearer ${GOOD}`));
  assert.equal(res.status, 403);
});

// ---------------------------------------------------------------------------------------------
// Options

Deno.test("auth() quotes the realm and defaults it to api", async () => {
  const quoted = chain(
    [auth({ validate: () => null, realm: 'my "quoted" \\ realm' })],
    () => new Response("never"),
  );
  const res = await quoted.fetch(request());
  assert.equal(res.headers.get("www-authenticate"), 'Bearer realm="my \\"quoted\\" \\\\ realm"');
  const plain = chain([auth({ validate: () => null })], () => new Response("never"));
  assert.equal(
    (await plain.fetch(request())).headers.get("www-authenticate"),
    'Bearer realm="api"',
  );
});

Deno.test("auth() rejects a missing validate() and a realm a header cannot carry", () => {
  assert.throws(() => auth({} as AuthOptions), TypeError);
  assert.throws(() => auth({ validate: () => true, realm: "a\r\nb" }), TypeError);
  assert.throws(() => auth({ validate: () => true, realm: "管理" }), /printable Latin-1/);
});

Deno.test("auth() lets CORS preflights through without a token unless told not to", async () => {
  const preflight = () =>
    request(undefined, {
      method: "OPTIONS",
      headers: { origin: "https://a.example", "access-control-request-method": "GET" },
    });
  const { app: open, calls } = app();
  const res = await open.fetch(preflight());
  assert.equal(res.status, 204);
  assert.equal(res.headers.get("allow"), "GET, HEAD, OPTIONS");
  assert.deepEqual(calls, []);
  const { app: strict } = app({ allowPreflight: false });
  assert.equal((await strict.fetch(preflight())).status, 401);
  // OPTIONS that is not a preflight (no Access-Control-Request-Method) is authenticated.
  const plainOptions = await open.fetch(
    request(undefined, { method: "OPTIONS", headers: { origin: "https://a.example" } }),
  );
  assert.equal(plainOptions.status, 401);
});

Deno.test("auth() sends an unauthenticated preflight no content: a handler that took it answers 401", async () => {
  const preflight = () =>
    request(undefined, {
      method: "OPTIONS",
      headers: { origin: "https://a.example", "access-control-request-method": "GET" },
    });
  const guard = auth({ validate: bearerTokens([GOOD]) });
  const apps = {
    // a handler of every method, as a proxy is
    "a chain's handler": chain([guard], () => new Response("payroll")),
    "an options() route": chain(
      [guard],
      router([
        options("/me", () => Response.json({ payroll: [1, 2, 3] })),
        get("/me", () => null!),
      ]),
    ),
    "a group's options() route": router([
      group("", [guard], [options("/me", () => new Response("payroll", { status: 200 }))]),
    ]),
  };
  for (const [name, app] of Object.entries(apps)) {
    const res = await app.fetch(preflight());
    assert.equal(res.status, 401, name);
    assert.equal(res.headers.get("www-authenticate"), 'Bearer realm="api"', name);
    assert.doesNotMatch(await res.text(), /payroll/, name);
  }
  // a preflight handler's own empty answer still goes back, as the router's automatic one does
  const custom = chain(
    [guard],
    router([
      options("/me", () => new Response(null, { status: 204, headers: { "x-preflight": "own" } })),
    ]),
  );
  const own = await custom.fetch(preflight());
  assert.equal(own.status, 204);
  assert.equal(own.headers.get("x-preflight"), "own");
  // the same handlers with a token answer as usual
  const authorized = await apps["a chain's handler"].fetch(
    request(`Bearer ${GOOD}`, {
      method: "OPTIONS",
      headers: { origin: "https://a.example", "access-control-request-method": "GET" },
    }),
  );
  assert.equal(await authorized.text(), "payroll");
});

Deno.test("auth() is a named function", () => {
  assert.equal(auth({ validate: () => null }).name, "auth");
});

// ---------------------------------------------------------------------------------------------
// bearerTokens()

Deno.test("bearerTokens() accepts listed tokens and refuses others, whatever their length", async () => {
  const validate = bearerTokens(["alpha", "bravo-bravo", "c"]);
  assert.equal(await validate("alpha"), true);
  assert.equal(await validate("bravo-bravo"), true);
  assert.equal(await validate("c"), true);
  for (const other of ["", "alph", "alphaa", "ALPHA", "x".repeat(10_000), "bravo", "c "]) {
    assert.equal(await validate(other), null, JSON.stringify(other.slice(0, 10)));
  }
});

Deno.test("bearerTokens() with a Map gives each token's user", async () => {
  const validate = bearerTokens(new Map([["t1", { name: "ci" }], ["t2", { name: "ops" }]]));
  assert.deepEqual(await validate("t2"), { name: "ops" });
  assert.deepEqual(await validate("t1"), { name: "ci" });
  assert.equal(await validate("t3"), null);
});

Deno.test("bearerTokens() with no tokens refuses everything", async () => {
  assert.equal(await bearerTokens([])("anything"), null);
});

Deno.test("bearerTokens() refuses tokens that could never be sent", () => {
  assert.throws(() => bearerTokens(["ok", "has space"]), TypeError);
  assert.throws(() => bearerTokens([""]), TypeError);
  assert.throws(() => bearerTokens(["a=b"]), TypeError);
  // The message must not leak the token.
  assert.throws(
    () => bearerTokens(["s3cr3t value"]),
    (error: Error) => !error.message.includes("s3cr3t"),
  );
});

Deno.test("bearerTokens() hashes the known tokens once and each candidate once", async () => {
  const original = crypto.subtle.digest.bind(crypto.subtle);
  let digests = 0;
  crypto.subtle.digest = ((...args: Parameters<SubtleCrypto["digest"]>) => {
    digests++;
    return original(...args);
  }) as SubtleCrypto["digest"];
  try {
    const validate = bearerTokens(["one", "two", "three"]);
    await validate("one"); // 3 known + 1 candidate
    await validate("zzz"); // 1 candidate
    await validate("three"); // 1 candidate
    assert.equal(digests, 6);
  } finally {
    crypto.subtle.digest = original;
  }
});

Deno.test("auth() with bearerTokens() sets ctx.var.user to true for a listed token", async () => {
  const composed = chain(
    [auth({ validate: bearerTokens(["t0k3n"]) })],
    (ctx) => ctx.json({ user: ctx.var.user satisfies true }),
  );
  const ok = await composed.fetch(request("Bearer t0k3n"));
  assert.deepEqual(await ok.json(), { user: true });
  const bad = await composed.fetch(request("Bearer t0k3n2"));
  assert.equal(bad.status, 401);
});
