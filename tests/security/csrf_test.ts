import assert from "node:assert/strict";
import { chain, get, post, router } from "../../mod.ts";
import { csrf, type CsrfOptions, csrfToken } from "../../lib/security/csrf.ts";

function app(options?: CsrfOptions) {
  const reached: string[] = [];
  const a = chain(
    [csrf(options)],
    router([
      get("/form", (ctx) => ctx.json({ token: csrfToken(ctx) })),
      post("/transfer", async (ctx) => {
        reached.push(await ctx.req.text());
        return ctx.json({ ok: true });
      }),
    ]),
  );
  return { app: a, reached };
}

function send(a: ReturnType<typeof app>["app"], headers: Record<string, string>, body = "x=1") {
  return a.fetch(
    new Request("https://bank.example/transfer", { method: "POST", headers, body }),
  );
}

Deno.test("csrf() never blocks safe methods, cross-site or not", async () => {
  const { app: a } = app();
  for (const method of ["GET", "HEAD", "OPTIONS"]) {
    const res = await a.fetch(
      new Request("https://bank.example/form", {
        method,
        headers: { origin: "https://evil.example", "sec-fetch-site": "cross-site" },
      }),
    );
    assert.notEqual(res.status, 403, method);
  }
});

Deno.test("csrf() lets same-origin requests through by Sec-Fetch-Site or Origin", async () => {
  const { app: a, reached } = app();
  for (
    const headers of [
      { "sec-fetch-site": "same-origin" },
      { "sec-fetch-site": "none" },
      { "sec-fetch-site": "same-origin", origin: "https://bank.example" },
      { origin: "https://bank.example" },
    ] as Record<string, string>[]
  ) {
    assert.equal((await send(a, headers)).status, 200, JSON.stringify(headers));
  }
  assert.equal(reached.length, 4);
  assert.equal(reached[0], "x=1", "the handler still reads the body");
});

Deno.test("csrf() refuses cross-site unsafe requests with a 403 problem before the handler", async () => {
  const { app: a, reached } = app();
  for (
    const headers of [
      { "sec-fetch-site": "cross-site", origin: "https://evil.example" },
      { "sec-fetch-site": "same-site", origin: "https://sub.bank.example" },
      { "sec-fetch-site": "cross-site" },
      { origin: "https://evil.example" },
      { origin: "null" },
      { origin: "http://bank.example" },
      { origin: "https://bank.example.evil.example" },
    ] as Record<string, string>[]
  ) {
    const res = await send(a, headers);
    assert.equal(res.status, 403, JSON.stringify(headers));
    assert.equal(res.headers.get("content-type"), "application/problem+json");
    assert.match((await res.json()).detail, /refused/);
  }
  assert.deepEqual(reached, []);
});

Deno.test("csrf() allows the configured origins, as a list or a function", async () => {
  const listed = app({ origin: ["https://app.example"] }).app;
  const cross = { "sec-fetch-site": "cross-site", origin: "https://app.example" };
  assert.equal((await send(listed, cross)).status, 200);
  assert.equal((await send(listed, { ...cross, origin: "https://other.example" })).status, 403);
  const fn = app({ origin: (origin) => origin.endsWith(".bank.example") }).app;
  assert.equal(
    (await send(fn, { "sec-fetch-site": "same-site", origin: "https://m.bank.example" })).status,
    200,
  );
  assert.throws(() => csrf({ origin: ["https://app.example/"] }), /is not an origin/);
});

Deno.test("csrf() falls back to the double-submit token without Origin and Sec-Fetch-Site", async () => {
  const { app: a } = app();
  const issued = await a.fetch(new Request("https://bank.example/form"));
  const { token } = await issued.json();
  const cookie = issued.headers.getSetCookie()[0];
  assert.match(cookie, /^csrf_token=[A-Za-z0-9_-]{43}; Path=\/; SameSite=Strict$/);
  const pair = cookie.split(";")[0];

  // header
  assert.equal((await send(a, { cookie: pair, "x-csrf-token": token })).status, 200);
  // form field (urlencoded and multipart), body still readable by the handler
  const form = { cookie: pair, "content-type": "application/x-www-form-urlencoded" };
  assert.equal((await send(a, form, `_csrf=${token}&x=1`)).status, 200);
  const multipart = new FormData();
  multipart.set("_csrf", token);
  const res = await a.fetch(
    new Request("https://bank.example/transfer", {
      method: "POST",
      headers: { cookie: pair },
      body: multipart,
    }),
  );
  assert.equal(res.status, 200);

  // refused: no cookie, no token, wrong token, token without cookie, malformed body
  for (
    const [headers, body] of [
      [{}, "x=1"],
      [{ cookie: pair }, "x=1"],
      [{ cookie: pair, "x-csrf-token": token.slice(1) + "A" }, "x=1"],
      [{ "x-csrf-token": token }, "x=1"],
      [{ cookie: "csrf_token=short", "x-csrf-token": "short" }, "x=1"],
      [{ ...form }, "_csrf=%ZZ"],
      [{ cookie: pair, "content-type": "multipart/form-data; boundary=x" }, "--x\r\nbroken"],
    ] as [Record<string, string>, string][]
  ) {
    assert.equal((await send(a, headers, body)).status, 403, JSON.stringify(headers));
  }
});

Deno.test("csrf() keeps a valid token cookie and replaces a malformed one", async () => {
  const { app: a } = app();
  const token = "A".repeat(43);
  const kept = await a.fetch(
    new Request("https://bank.example/form", { headers: { cookie: `csrf_token=${token}` } }),
  );
  assert.deepEqual(await kept.json(), { token });
  assert.deepEqual(kept.headers.getSetCookie(), []);
  const replaced = await a.fetch(
    new Request("https://bank.example/form", { headers: { cookie: "csrf_token=x" } }),
  );
  assert.notEqual((await replaced.json()).token, "x");
  assert.equal(replaced.headers.getSetCookie().length, 1);
});
