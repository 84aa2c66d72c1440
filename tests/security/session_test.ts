import assert from "node:assert/strict";
import { chain, get, router } from "../../mod.ts";
import {
  getSession,
  MemoryStore,
  session,
  type SessionOptions,
  SessionTooLargeError,
} from "../../lib/security/session.ts";

const SECRET = "a-session-secret-of-at-least-32-chars";

interface Cart {
  items: string[];
}

// Where the apps' onError hook sends errors that became 500s, while a test listens.
let reportTo: ((error: unknown) => void) | undefined;
const onError = (error: unknown) => void reportTo?.(error);

function app(options: Partial<SessionOptions> = {}) {
  return chain(
    [session({ secret: SECRET, ...options })],
    router([
      get("/add/:item", (ctx) => {
        const cart = getSession<Cart>(ctx);
        cart.set({ items: [...(cart.value?.items ?? []), ctx.params.item] });
        return ctx.json(cart.value);
      }),
      get("/show", (ctx) => ctx.json(getSession<Cart>(ctx).value ?? null)),
      get("/big/:n", (ctx) => {
        getSession<string>(ctx).set("x".repeat(Number(ctx.params.n)));
        return ctx.json(true);
      }),
      get("/logout", (ctx) => {
        getSession(ctx).clear();
        return ctx.json(true);
      }),
      get("/login", (ctx) => {
        const s = getSession<Cart>(ctx);
        s.set({ items: s.value?.items ?? [] });
        s.regenerate();
        return ctx.json(true);
      }),
    ], { onError }),
  );
}

type App = ReturnType<typeof app>;

async function call(a: App, path: string, cookie?: string) {
  const res = await a.fetch(
    new Request(`http://localhost${path}`, { headers: cookie ? { cookie } : {} }),
  );
  const set = res.headers.getSetCookie();
  return { res, body: await res.json(), set, cookie: set[0]?.split(";")[0] };
}

for (
  const [mode, options] of [
    ["signed cookie", {}],
    ["encrypted cookie", { encrypt: true }],
    ["memory store", { store: new MemoryStore() }],
  ] as const
) {
  Deno.test(`session() (${mode}) keeps a typed value across requests`, async () => {
    const a = app(options);
    const first = await call(a, "/add/apple");
    assert.deepEqual(first.body, { items: ["apple"] });
    assert.match(first.set[0], /^session=[^;]+; Max-Age=86400; Path=\/; HttpOnly; SameSite=Lax$/);
    const second = await call(a, "/add/pear", first.cookie);
    assert.deepEqual(second.body, { items: ["apple", "pear"] });
    const shown = await call(a, "/show", second.cookie);
    assert.deepEqual(shown.body, { items: ["apple", "pear"] });
    assert.deepEqual(shown.set, [], "an unchanged session writes no cookie");
  });

  Deno.test(`session() (${mode}) ignores tampered and foreign cookies`, async () => {
    const a = app(options);
    const { cookie } = await call(a, "/add/apple");
    const value = cookie!.slice("session=".length);
    const tampered = value.slice(0, 10) + (value[10] === "A" ? "B" : "A") + value.slice(11);
    for (
      const bad of [
        `session=${tampered}`,
        `session=${value.slice(0, -2)}`,
        `session=${value.split(".")[0]}`,
        "session=%E0%A4%A",
        "session=",
        `session=${"A".repeat(5000)}.${"B".repeat(43)}`,
      ]
    ) {
      const res = await call(a, "/show", bad);
      assert.equal(res.res.status, 200, bad);
      assert.equal(res.body, null, bad);
    }
    const other = app({ ...options, secret: "another-secret-of-at-least-32-chars!" });
    assert.equal((await call(other, "/show", cookie)).body, null);
  });

  Deno.test(`session() (${mode}) clear() deletes the cookie`, async () => {
    const a = app(options);
    const { cookie } = await call(a, "/add/apple");
    const out = await call(a, "/logout", cookie);
    assert.match(out.set[0], /^session=; Max-Age=0; Path=\/; Expires=Thu, 01 Jan 1970/);
    if ("store" in options) {
      assert.equal((await call(a, "/show", cookie)).body, null, "the stored data is gone");
    }
  });
}

Deno.test("session() encrypts: the encrypted cookie does not show the value", async () => {
  const plain = await call(app(), "/add/secret-apple");
  const sealed = await call(app({ encrypt: true }), "/add/secret-apple");
  const decode = (c: string) =>
    atob(c.slice(8).split(".")[0].replace(/-/g, "+").replace(/_/g, "/"));
  assert.match(decode(plain.cookie!), /secret-apple/);
  assert.doesNotMatch(decode(sealed.cookie!), /secret-apple/);
});

Deno.test("session() rotation: a cookie signed with an older secret still reads", async () => {
  const old = "an-older-session-secret-of-32-chars!!";
  const { cookie } = await call(app({ secret: old, encrypt: true }), "/add/apple");
  const rotated = app({ secret: [SECRET, old], encrypt: true });
  assert.deepEqual((await call(rotated, "/show", cookie)).body, { items: ["apple"] });
});

Deno.test("session() refuses a value over 4096 bytes with a clear error, never a dropped cookie", async () => {
  const errors: unknown[] = [];
  reportTo = (error) => errors.push(error);
  try {
    for (const [mode, options] of [["signed", {}], ["encrypted", { encrypt: true }]] as const) {
      const a = app(options);
      // the largest value that fits is written whole
      let n = 2900;
      while ((await call(a, `/big/${n + 1}`)).res.status === 200) n++;
      const fits = await call(a, `/big/${n}`);
      // a browser counts name and value, not the "=" between them
      const size = fits.cookie!.length - 1;
      assert.ok(size <= 4096, `${mode}: ${size}`);
      assert.ok(size > 4090, `${mode}: ${size}`);
      const over = await call(a, `/big/${n + 1}`);
      assert.equal(over.res.status, 500);
      assert.deepEqual(over.set, []);
    }
    assert.ok(errors.every((e) => e instanceof SessionTooLargeError), String(errors[0]));
    assert.match(String(errors[0]), /over the 4096 .*RFC 6265bis/);
  } finally {
    reportTo = undefined;
  }
});

Deno.test("session() with a store keeps only a signed id in the cookie, and regenerate() changes it", async () => {
  const store = new MemoryStore();
  const a = app({ store });
  const first = await call(a, "/add/apple");
  assert.ok(first.cookie!.length < 100);
  assert.doesNotMatch(first.cookie!, /apple/);
  const login = await call(a, "/login", first.cookie);
  assert.notEqual(login.cookie, first.cookie);
  assert.deepEqual((await call(a, "/show", login.cookie)).body, { items: ["apple"] });
  assert.equal((await call(a, "/show", first.cookie)).body, null, "the old id is dead");
});

Deno.test("a request that ends after a logout does not bring the stored session back", async () => {
  // the store with update() (MemoryStore), and a store that has only get, set and delete
  const memory = new MemoryStore();
  const plain = {
    get: (id: string) => memory.get(id),
    set: (id: string, data: string, maxAge: number) => memory.set(id, data, maxAge),
    delete: (id: string) => memory.delete(id),
  };
  for (const store of [memory, plain]) {
    let release!: () => void;
    const held = new Promise<void>((resolve) => release = resolve);
    const loaded = Promise.withResolvers<void>();
    const a = chain(
      [session({ secret: SECRET, store })],
      router([
        get("/login", (ctx) => {
          getSession(ctx).set({ user: "ada" });
          getSession(ctx).regenerate();
          return ctx.json(true);
        }),
        get("/touch", async (ctx) => {
          const s = getSession<{ user: string }>(ctx);
          loaded.resolve(); // its session is loaded: the logout comes after
          await held; // the logout happens meanwhile
          s.set({ ...s.value!, touched: true } as { user: string });
          return ctx.json(true);
        }),
        get("/logout", (ctx) => {
          getSession(ctx).clear();
          return ctx.json(true);
        }),
        get("/me", (ctx) => ctx.json(getSession(ctx).value ?? null)),
      ]),
    );
    const request = (path: string, cookie: string) =>
      a.fetch(new Request(`http://localhost${path}`, { headers: { cookie } }));
    const login = await a.fetch(new Request("http://localhost/login"));
    const cookie = login.headers.getSetCookie()[0].split(";")[0];
    const touching = request("/touch", cookie);
    await loaded.promise;
    await request("/logout", cookie);
    release();
    const touched = await touching;
    assert.equal(touched.status, 200);
    assert.deepEqual(touched.headers.getSetCookie(), [], "no cookie: the logout's deletion stands");
    assert.equal(await (await request("/me", cookie)).json(), null, "still logged out");
  }
});

Deno.test("a request that writes the session while a login regenerates it keeps the login's cookie", async () => {
  // An app that touches the session on every request (a "last seen" time): a request of the
  // anonymous session is in flight while the login answers with a new id. Its answer, which
  // comes last, must not drop the new cookie: the browser would be logged out at once.
  for (const store of [new MemoryStore(), withoutUpdate(new MemoryStore())]) {
    let release!: () => void;
    const held = new Promise<void>((resolve) => release = resolve);
    const loaded = Promise.withResolvers<void>();
    const a = chain(
      [session({ secret: SECRET, store })],
      router([
        get("/visit", (ctx) => {
          getSession(ctx).set({ seen: 1 });
          return ctx.json(true);
        }),
        get("/poll", async (ctx) => {
          const s = getSession<{ seen: number }>(ctx);
          loaded.resolve();
          await held;
          s.set({ seen: s.value!.seen + 1 });
          return ctx.json(true);
        }),
        get("/login", (ctx) => {
          const s = getSession<{ seen: number; user?: string }>(ctx);
          s.set({ ...s.value!, user: "ada" });
          s.regenerate();
          return ctx.json(true);
        }),
        get("/me", (ctx) => ctx.json(getSession(ctx).value ?? null)),
      ]),
    );
    const request = (path: string, cookie?: string) =>
      a.fetch(new Request(`http://localhost${path}`, { headers: cookie ? { cookie } : {} }));
    const anonymous = (await request("/visit")).headers.getSetCookie()[0].split(";")[0];
    const polling = request("/poll", anonymous);
    await loaded.promise;
    const login = await request("/login", anonymous);
    const loggedIn = login.headers.getSetCookie()[0].split(";")[0];
    assert.notEqual(loggedIn, anonymous);
    release();
    const polled = await polling;
    // a browser applies each Set-Cookie as it comes: nothing may replace or drop the login's
    assert.deepEqual(polled.headers.getSetCookie(), []);
    assert.deepEqual(await (await request("/me", loggedIn)).json(), { seen: 1, user: "ada" });
    assert.equal(await (await request("/me", anonymous)).json(), null, "the old id is dead");
  }
});

// A store with only get, set and delete, over a MemoryStore.
function withoutUpdate(memory: MemoryStore) {
  return {
    get: (id: string) => memory.get(id),
    set: (id: string, data: string, maxAge: number) => memory.set(id, data, maxAge),
    delete: (id: string) => memory.delete(id),
  };
}

Deno.test("an expired session is ignored even when the cookie is replayed", async () => {
  const a = app({ maxAge: 1 });
  const { cookie } = await call(a, "/add/apple");
  const realNow = Date.now;
  Date.now = () => realNow() + 5_000;
  try {
    assert.equal((await call(a, "/show", cookie)).body, null);
  } finally {
    Date.now = realNow;
  }
});

Deno.test("session() checks its options when it is created", () => {
  assert.throws(() => session({ secret: "short" }), /at least 32 characters/);
  assert.throws(() => session({ secret: SECRET, maxAge: 0 }), /maxAge/);
  assert.throws(() => session({ secret: SECRET, cookie: { name: "a b" } }), TypeError);
  assert.throws(
    () => session({ secret: SECRET, cookie: { name: "__Host-s" } }),
    /__Host- cookie needs secure/,
  );
  session({ secret: SECRET, cookie: { name: "__Host-s", secure: true } });
});

Deno.test("getSession() without session() is a clear TypeError", async () => {
  const errors: unknown[] = [];
  reportTo = (error) => errors.push(error);
  try {
    const res = await chain(
      [],
      router([get("/", (ctx) => ctx.json(getSession(ctx).value))], { onError }),
    )
      .fetch(new Request("http://localhost/"));
    assert.equal(res.status, 500);
    assert.match(String(errors[0]), /no session\(\) middleware ran/);
  } finally {
    reportTo = undefined;
  }
});

Deno.test("session() cookies reach a response built once an earlier middleware set headers", async () => {
  // secureHeaders() and csrf() fill ctx.res before the handler runs; ctx.redirect() then builds
  // a response the app does not take ctx.res into again, after session() wrote the cookie.
  const { csrf, secureHeaders } = await import("../../mod.ts");
  const login = router([
    get("/in", [secureHeaders(), session({ secret: SECRET }), csrf()], (ctx) => {
      getSession<{ user: string }>(ctx).set({ user: "ada" });
      return ctx.redirect("/home", 303);
    }),
    get("/out", [secureHeaders(), session({ secret: SECRET })], (ctx) => {
      getSession(ctx).clear();
      return ctx.redirect("/", 303);
    }),
  ]);
  const signedIn = await login.fetch(new Request("http://localhost/in"));
  const cookies = signedIn.headers.getSetCookie();
  assert.equal(cookies.filter((line) => line.startsWith("session=")).length, 1);
  assert.equal(cookies.filter((line) => line.startsWith("csrf_token=")).length, 1);
  const sent = cookies.find((line) => line.startsWith("session="))!.split(";")[0];
  const signedOut = await login.fetch(
    new Request("http://localhost/out", { headers: { cookie: sent } }),
  );
  assert.match(signedOut.headers.getSetCookie().join("\n"), /^session=; .*Max-Age=0/m);
});
