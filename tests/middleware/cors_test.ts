import assert from "node:assert/strict";
import fc from "fast-check";
import { chain, get, group, HttpError, options, put, router } from "../../mod.ts";
import { cors, type CorsOptions, type CorsOrigin } from "../../lib/middleware/cors.ts";
import { auth, bearerTokens } from "../../lib/middleware/auth.ts";
import { appendVary, parseList } from "../../lib/middleware/_headers.ts";

const ALLOWED = "https://a.example";
const OTHER_ALLOWED = "https://b.example";
const DENIED = "https://evil.example";

function api(opts: CorsOptions) {
  return chain(
    [cors(opts)],
    router([
      get("/items", () => new Response("list")),
      put("/items", () => new Response("saved")),
    ]),
  );
}

function simple(origin: string | null, extra: Record<string, string> = {}): Request {
  const headers: Record<string, string> = { ...extra };
  if (origin !== null) headers.origin = origin;
  return new Request("http://api.test/items", { headers });
}

function preflight(origin: string | null, extra: Record<string, string> = {}): Request {
  const headers: Record<string, string> = {
    "access-control-request-method": "PUT",
    "access-control-request-headers": "x-custom, content-type",
    ...extra,
  };
  if (origin !== null) headers.origin = origin;
  return new Request("http://api.test/items", { method: "OPTIONS", headers });
}

function varyTokens(res: Response): string[] {
  return parseList(res.headers.get("vary") ?? "").map((t) => t.toLowerCase());
}

// ---------------------------------------------------------------------------------------------
// The matrix: origin configurations × credentials × request origins × preflight/simple. The
// expectation is computed from the rules, independently of the implementation.

const CONFIGS: Record<string, CorsOrigin> = {
  '"*"': "*",
  "a string": ALLOWED,
  "a list": [ALLOWED, OTHER_ALLOWED],
  "a RegExp": /^https:\/\/[ab]\.example$/,
  "a function": (origin) => origin === ALLOWED || origin === OTHER_ALLOWED,
  "an async function": (origin) => Promise.resolve(origin === ALLOWED),
};
const REQUEST_ORIGINS = [ALLOWED, DENIED, "null", null] as const;

for (const [label, origin] of Object.entries(CONFIGS)) {
  for (const credentials of [false, true]) {
    if (origin === "*" && credentials) continue; // throws; tested below
    for (const requestOrigin of REQUEST_ORIGINS) {
      for (const mode of ["simple", "preflight"] as const) {
        const name = `cors() with origin ${label}, credentials ${credentials}: ${mode} request ` +
          `from ${requestOrigin ?? "no Origin"}`;
        Deno.test(name, async () => {
          const app = api({ origin, credentials, exposeHeaders: ["x-total"], maxAge: 60 });
          const res = await app.fetch(
            mode === "simple" ? simple(requestOrigin) : preflight(requestOrigin),
          );
          await res.body?.cancel();
          const any = origin === "*";
          const allowed = any || requestOrigin === ALLOWED;
          const acao = any ? "*" : allowed ? requestOrigin : null;
          const isPreflight = mode === "preflight" && requestOrigin !== null && allowed;

          // never short-circuits: the router's answer is the status
          assert.equal(res.status, mode === "simple" ? 200 : 204);
          if (mode === "preflight") {
            assert.equal(res.headers.get("allow"), "GET, PUT, HEAD, OPTIONS");
          }
          assert.equal(res.headers.get("access-control-allow-origin"), acao);
          assert.equal(
            res.headers.get("access-control-allow-credentials"),
            credentials && allowed ? "true" : null,
          );
          // Vary: Origin whenever the answer depends on the request, allowed or not
          assert.equal(varyTokens(res).includes("origin"), !any);
          assert.equal(
            res.headers.get("access-control-allow-methods"),
            isPreflight ? "GET, HEAD, PUT, PATCH, POST, DELETE" : null,
          );
          assert.equal(
            res.headers.get("access-control-allow-headers"),
            isPreflight ? "x-custom, content-type" : null,
          );
          assert.equal(res.headers.get("access-control-max-age"), isPreflight ? "60" : null);
          assert.equal(
            res.headers.get("access-control-expose-headers"),
            acao !== null && !isPreflight ? "x-total" : null,
          );
        });
      }
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Creation-time rules

Deno.test('cors() throws when credentials: true is combined with origin: "*"', () => {
  assert.throws(() => cors({ origin: "*", credentials: true }), TypeError);
  assert.throws(() => cors({ credentials: true }), TypeError); // "*" is the default
  assert.throws(() => cors({ origin: [ALLOWED, "*"], credentials: true }), TypeError);
});

Deno.test("cors() rejects malformed options when it is created", () => {
  assert.throws(() => cors({ maxAge: -1 }), RangeError);
  assert.throws(() => cors({ maxAge: 1.5 }), RangeError);
  assert.throws(() => cors({ maxAge: Number.NaN }), RangeError);
  assert.throws(() => cors({ methods: ["GET", "BAD METHOD"] }), TypeError);
  assert.throws(() => cors({ allowHeaders: ["x-ok", "bad:header"] }), TypeError);
  assert.throws(() => cors({ exposeHeaders: ["a\nb"] }), TypeError);
  assert.throws(() => cors({ origin: 42 as unknown as string }), TypeError);
  assert.throws(() => cors({ origin: [ALLOWED, 7 as unknown as string] }), TypeError);
});

Deno.test('cors() refuses "*" in methods or headers with credentials, where browsers take it literally', () => {
  // Fetch: with credentials, "*" in Access-Control-Allow-Methods, -Allow-Headers or
  // -Expose-Headers names a method or header "*", so every call the config meant to allow fails
  for (const option of ["methods", "allowHeaders", "exposeHeaders"] as const) {
    assert.throws(
      () => cors({ origin: ALLOWED, credentials: true, [option]: ["x-a", "*"] }),
      new RegExp(`${option} "\\*" is no wildcard with credentials`),
    );
    cors({ origin: ALLOWED, [option]: ["*"] }); // a wildcard without credentials
  }
});

Deno.test("cors() refuses a listed origin that browsers never send, naming the one they do", () => {
  const cases: [string, RegExp][] = [
    ["https://a.example:443", /write "https:\/\/a\.example"/],
    ["http://a.example:80/", /write "http:\/\/a\.example"/],
    ["https://bücher.example", /write "https:\/\/xn--bcher-kva\.example"/],
    ["https://a.example/app", /write "https:\/\/a\.example"/],
    ["a.example", /is not an origin as browsers send it \(scheme:\/\/host\[:port\]\)$/],
    ["https://a.example?x", /write "https:\/\/a\.example"/],
  ];
  for (const [origin, message] of cases) {
    assert.throws(() => cors({ origin }), message, origin);
    assert.throws(() => cors({ origin: [ALLOWED, origin] }), message, origin);
  }
  // origins as browsers send them, of any scheme
  cors({ origin: ["https://a.example:8443", "http://[::1]:3000", "chrome-extension://abcdef"] });
});

// ---------------------------------------------------------------------------------------------
// The opaque origin "null"

Deno.test('cors() never allows the origin "null" through a string, list or RegExp', async () => {
  for (const origin of ["null", ["null", ALLOWED], /.*/, /^null$/] as CorsOrigin[]) {
    for (const credentials of [false, true]) {
      const app = api({ origin, credentials });
      for (const req of [simple("null"), preflight("null")]) {
        const res = await app.fetch(req);
        assert.equal(res.headers.get("access-control-allow-origin"), null, String(origin));
        assert.equal(res.headers.get("access-control-allow-credentials"), null);
        assert.equal(res.headers.get("access-control-allow-methods"), null);
      }
    }
  }
});

Deno.test('cors() lets a function allow the origin "null" explicitly', async () => {
  const app = api({ origin: (origin) => origin === "null", credentials: true });
  const res = await app.fetch(simple("null"));
  assert.equal(res.headers.get("access-control-allow-origin"), "null");
  assert.equal(res.headers.get("access-control-allow-credentials"), "true");
});

Deno.test('cors() with origin "*" answers "*" to the origin "null" without credentials', async () => {
  const res = await api({}).fetch(simple("null"));
  assert.equal(res.headers.get("access-control-allow-origin"), "*");
  assert.equal(res.headers.get("access-control-allow-credentials"), null);
});

// ---------------------------------------------------------------------------------------------
// Origin matching

Deno.test("cors() compares listed origins case-insensitively and reflects the request's", async () => {
  const app = api({ origin: ["HTTPS://A.Example/"] });
  const res = await app.fetch(simple(ALLOWED));
  assert.equal(res.headers.get("access-control-allow-origin"), ALLOWED);
  const prefix = await app.fetch(simple(`${ALLOWED}.evil.example`));
  assert.equal(prefix.headers.get("access-control-allow-origin"), null);
});

Deno.test("cors() with a global RegExp gives the same answer on every request", async () => {
  const app = api({ origin: /^https:\/\/a\.example$/g });
  for (let i = 0; i < 4; i++) {
    const res = await app.fetch(simple(ALLOWED));
    assert.equal(res.headers.get("access-control-allow-origin"), ALLOWED);
  }
});

Deno.test("cors() passes the context to an origin function", async () => {
  let seen = "";
  const app = api({
    origin: (origin, ctx) => {
      seen = `${ctx.req.method} ${ctx.path} ${origin}`;
      return true;
    },
  });
  await app.fetch(simple(ALLOWED));
  assert.equal(seen, `GET /items ${ALLOWED}`);
});

Deno.test("cors() treats a truthy non-boolean from an origin function as a refusal", async () => {
  const app = api({ origin: (() => "yes") as unknown as () => boolean });
  const res = await app.fetch(simple(ALLOWED));
  assert.equal(res.headers.get("access-control-allow-origin"), null);
});

// ---------------------------------------------------------------------------------------------
// Preflight

Deno.test("cors() adds preflight headers to a route's own OPTIONS handler", async () => {
  let calls = 0;
  const app = chain(
    [cors({ origin: ALLOWED, methods: ["PUT"], allowHeaders: ["x-custom"], maxAge: 0 })],
    router([
      options("/items", () => {
        calls++;
        return new Response("custom options", { status: 200, headers: { allow: "PUT" } });
      }),
      put("/items", () => new Response("saved")),
    ]),
  );
  const res = await app.fetch(preflight(ALLOWED));
  assert.equal(calls, 1);
  assert.equal(res.status, 200);
  assert.equal(await res.text(), "custom options");
  assert.equal(res.headers.get("access-control-allow-origin"), ALLOWED);
  assert.equal(res.headers.get("access-control-allow-methods"), "PUT");
  assert.equal(res.headers.get("access-control-allow-headers"), "x-custom");
  assert.equal(res.headers.get("access-control-max-age"), "0");
});

Deno.test("cors() never short-circuits: an unmatched path still reaches the router", async () => {
  const res = await api({ origin: ALLOWED }).fetch(
    new Request("http://api.test/nope", {
      method: "OPTIONS",
      headers: { origin: ALLOWED, "access-control-request-method": "GET" },
    }),
  );
  assert.equal(res.status, 404);
  assert.equal(res.headers.get("content-type"), "application/problem+json");
  assert.equal(res.headers.get("access-control-allow-origin"), ALLOWED);
});

Deno.test("cors() treats OPTIONS without Access-Control-Request-Method as a simple request", async () => {
  const app = api({ origin: ALLOWED, exposeHeaders: ["x-total"] });
  const res = await app.fetch(
    new Request("http://api.test/items", { method: "OPTIONS", headers: { origin: ALLOWED } }),
  );
  assert.equal(res.status, 204);
  assert.equal(res.headers.get("access-control-allow-methods"), null);
  assert.equal(res.headers.get("access-control-expose-headers"), "x-total");
});

Deno.test("cors() reflects only valid field names of Access-Control-Request-Headers", async () => {
  const res = await api({ origin: ALLOWED }).fetch(
    preflight(ALLOWED, {
      "access-control-request-headers": " x-one ,, x-two,bad header,x(3),  ,x-four ",
    }),
  );
  assert.equal(res.headers.get("access-control-allow-headers"), "x-one, x-two, x-four");
});

Deno.test("cors() sends the configured allowHeaders instead of reflecting", async () => {
  const res = await api({ origin: ALLOWED, allowHeaders: ["content-type"] }).fetch(
    preflight(ALLOWED),
  );
  assert.equal(res.headers.get("access-control-allow-headers"), "content-type");
  const none = await api({ origin: ALLOWED, allowHeaders: [] }).fetch(preflight(ALLOWED));
  assert.equal(none.headers.get("access-control-allow-headers"), null);
});

Deno.test("cors() omits Access-Control-Allow-Headers when nothing was requested", async () => {
  const res = await api({ origin: ALLOWED }).fetch(
    new Request("http://api.test/items", {
      method: "OPTIONS",
      headers: { origin: ALLOWED, "access-control-request-method": "PUT" },
    }),
  );
  assert.equal(res.headers.get("access-control-allow-headers"), null);
  assert.equal(res.headers.get("access-control-max-age"), null);
});

Deno.test("cors() handles 64 KiB of whitespace and commas in Access-Control-Request-Headers", async () => {
  const junk = " ,\t".repeat(65_536 / 3) + "x-last";
  const res = await api({ origin: ALLOWED }).fetch(
    preflight(ALLOWED, { "access-control-request-headers": junk }),
  );
  assert.equal(res.status, 204);
  assert.equal(res.headers.get("access-control-allow-headers"), "x-last");
  const blank = await api({ origin: ALLOWED }).fetch(
    preflight(ALLOWED, { "access-control-request-headers": ", \t".repeat(21_845) }),
  );
  assert.equal(blank.headers.get("access-control-allow-headers"), null);
});

Deno.test("cors() lets preflights through auth(), which authenticates the real request", async () => {
  const guard = auth({ validate: bearerTokens(["t0k3n"]) });
  const app = chain(
    [cors({ origin: ALLOWED, credentials: true })],
    router([
      group("", [guard], [
        put("/items", (ctx) => ctx.json({ user: ctx.var.user })),
      ]),
    ]),
  );
  const pre = await app.fetch(
    preflight(ALLOWED, { "access-control-request-headers": "authorization" }),
  );
  assert.equal(pre.status, 204);
  assert.equal(pre.headers.get("access-control-allow-headers"), "authorization");
  const denied = await app.fetch(
    new Request("http://api.test/items", { method: "PUT", headers: { origin: ALLOWED } }),
  );
  assert.equal(denied.status, 401);
  // The browser can read the 401: it carries the CORS headers too.
  assert.equal(denied.headers.get("access-control-allow-origin"), ALLOWED);
  const ok = await app.fetch(
    new Request("http://api.test/items", {
      method: "PUT",
      headers: { origin: ALLOWED, authorization: "Bearer t0k3n" },
    }),
  );
  assert.deepEqual(await ok.json(), { user: true });
});

// ---------------------------------------------------------------------------------------------
// Vary

Deno.test("cors() merges Origin into the response's Vary without overwriting it", async () => {
  const app = chain(
    [cors({ origin: ALLOWED })],
    router([
      get("/enc", () => new Response("x", { headers: { vary: "Accept-Encoding" } })),
      get("/has", () => new Response("x", { headers: { vary: "accept-encoding, origin" } })),
      get("/star", () => new Response("x", { headers: { vary: "*" } })),
      get("/ctx", (ctx) => {
        ctx.setHeader("vary", "Accept-Language");
        return ctx.json({});
      }),
      get("/late", (ctx) => {
        ctx.setHeader("vary", "Accept-Language");
        return new Response("built by hand");
      }),
    ]),
  );
  const get_ = (path: string) =>
    app.fetch(new Request(`http://api.test${path}`, { headers: { origin: ALLOWED } }));
  assert.equal((await get_("/enc")).headers.get("vary"), "Accept-Encoding, Origin");
  assert.equal((await get_("/has")).headers.get("vary"), "accept-encoding, origin");
  assert.equal((await get_("/star")).headers.get("vary"), "*");
  assert.equal((await get_("/ctx")).headers.get("vary"), "Accept-Language, Origin");
  assert.deepEqual(varyTokens(await get_("/late")).sort(), ["accept-language", "origin"]);
});

Deno.test("cors() never copies the request's Vary header", async () => {
  const res = await api({ origin: ALLOWED }).fetch(
    simple(ALLOWED, { vary: "Cookie, User-Agent" }),
  );
  assert.equal(res.headers.get("vary"), "Origin");
});

Deno.test("cors() adds Vary: Origin to non-CORS and disallowed requests, not with origin *", async () => {
  const listed = api({ origin: [ALLOWED] });
  assert.equal((await listed.fetch(simple(null))).headers.get("vary"), "Origin");
  assert.equal((await listed.fetch(simple(DENIED))).headers.get("vary"), "Origin");
  assert.equal((await api({}).fetch(simple(ALLOWED))).headers.get("vary"), null);
});

// ---------------------------------------------------------------------------------------------
// Responses cors() did not build

Deno.test("cors() adds its headers to responses with immutable headers", async () => {
  const app = chain(
    [cors({ origin: ALLOWED })],
    router([
      get("/redirect", () => Response.redirect("http://api.test/items", 302)),
      get("/fetched", () => fetch("data:text/plain,fetched")),
    ]),
  );
  const redirect = await app.fetch(
    new Request("http://api.test/redirect", { headers: { origin: ALLOWED } }),
  );
  assert.equal(redirect.status, 302);
  assert.equal(redirect.headers.get("location"), "http://api.test/items");
  assert.equal(redirect.headers.get("access-control-allow-origin"), ALLOWED);
  const fetched = await app.fetch(
    new Request("http://api.test/fetched", { headers: { origin: ALLOWED } }),
  );
  assert.equal(await fetched.text(), "fetched");
  assert.equal(fetched.headers.get("vary"), "Origin");
});

Deno.test("cors() adds its headers to error responses so that browsers can read them", async () => {
  const reported: unknown[] = [];
  {
    const app = chain(
      [cors({ origin: ALLOWED })],
      router([
        get("/boom", () => {
          throw new Error("boom");
        }),
        get("/teapot", () => {
          throw new HttpError(418, "short and stout");
        }),
      ], { onError: (error) => void reported.push(error) }),
    );
    for (const [path, status] of [["/boom", 500], ["/teapot", 418]] as const) {
      const res = await app.fetch(
        new Request(`http://api.test${path}`, { headers: { origin: ALLOWED } }),
      );
      assert.equal(res.status, status);
      assert.equal(res.headers.get("access-control-allow-origin"), ALLOWED);
      await res.body?.cancel();
    }
    assert.equal(reported.length, 1);
  }
});

Deno.test("cors() is a named function", () => {
  assert.equal(cors().name, "cors");
});

// ---------------------------------------------------------------------------------------------
// The helpers

Deno.test("parseList() splits, trims and drops empty elements like the reference", () => {
  const reference = (value: string) =>
    value.split(",").map((s) => s.replace(/^[ \t]+|[ \t]+$/g, "")).filter((s) => s !== "");
  fc.assert(
    fc.property(
      fc.array(fc.constantFrom(" ", "\t", ",", "a", "b", "-", "x y")).map((parts) =>
        parts.join("")
      ),
      (value) => {
        assert.deepEqual(parseList(value), reference(value));
      },
    ),
    { numRuns: 2000 },
  );
});

Deno.test("appendVary() appends only an absent token and respects *", () => {
  const headers = new Headers();
  appendVary(headers, "Origin");
  assert.equal(headers.get("vary"), "Origin");
  appendVary(headers, "origin");
  assert.equal(headers.get("vary"), "Origin");
  appendVary(headers, "Accept-Encoding");
  assert.equal(headers.get("vary"), "Origin, Accept-Encoding");
  const star = new Headers({ vary: "*" });
  appendVary(star, "Origin");
  assert.equal(star.get("vary"), "*");
  const prefix = new Headers({ vary: "Origin-Agent" });
  appendVary(prefix, "Origin");
  assert.equal(prefix.get("vary"), "Origin-Agent, Origin");
});
