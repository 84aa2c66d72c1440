// Conformance cases for the app API (issue: typed variables, per-route middleware, groups,
// hooks, response helpers, validate()): each answer is checked through app.fetch() and over a
// real socket, on Deno and, through the npm build, on Node.
import assert from "node:assert/strict";
import type { Env } from "./suite.ts";
import type * as Weft from "../../mod.ts";
import { withDeadline } from "../_deadline.ts";

type Case = (env: Env) => Promise<void>;
type Fetch = (path: string, init?: RequestInit) => Promise<Response>;

const QUIET = { port: 0, hostname: "127.0.0.1", onListen() {} };

// Runs `check` once against app.fetch() and once over a socket of serve(app).
async function both(env: Env, app: Weft.App, check: (fetch: Fetch) => Promise<void>) {
  await check((path, init) => app.fetch(new Request(`http://127.0.0.1${path}`, init)));
  const server = env.weft.serve(app, QUIET);
  try {
    const base = `http://127.0.0.1:${server.addr.port}`;
    await check((path, init) =>
      withDeadline(fetch(base + path, { ...init, redirect: "manual" }), 20_000, `GET ${path}`)
    );
  } finally {
    await withDeadline(server.shutdown(), 10_000, "server.shutdown()");
  }
}

const TOKEN = "n0tes-t0ken";

function notesApp(env: Env, reported: unknown[]): Weft.App {
  const { auth, bearerTokens, cors, get, group, post, router, schema, validate } = env.weft;
  const requireUser = auth({ validate: bearerTokens(new Map([[TOKEN, { name: "ada" }]])) });
  const Note = schema.object({ id: schema.integer(), title: schema.string() });
  const listing = validate({
    query: schema.object({
      limit: schema.optional(schema.integer()),
      tag: schema.array(schema.string()),
    }),
  });
  const byId = validate({ params: schema.object({ id: schema.integer() }) });
  return router([
    get("/", (ctx) => ctx.html("<h1>notes</h1>")),
    get("/old", (ctx) => ctx.redirect("/", 301)),
    // A location as an app takes it from a query (?next=): decoded, so it may hold any text.
    get("/go", (ctx) => ctx.redirect(new URL(ctx.req.url).searchParams.get("next") ?? "/", 303)),
    group("/api", [cors({ origin: "https://app.example" })], [
      get("/notes", [listing], (ctx) => ctx.json({ ...ctx.var.query })),
      group("/me", [requireUser], [
        get("/", (ctx) => ctx.json({ name: ctx.var.user.name })),
        get("/notes/:id", [byId], (ctx) => {
          ctx.setHeader("x-owner", ctx.var.user.name);
          const row = { id: ctx.var.params.id, title: "t", secret: "s" };
          return ctx.json(row, { schema: Note });
        }),
        post("/boom", () => {
          throw new Error("internal detail");
        }),
      ]),
    ]),
  ], {
    notFound: (ctx) => ctx.text(`no ${ctx.path}`, { status: 404 }),
    onError: (error) => void reported.push(error),
  });
}

/** The cases of this file. */
export const appApiCases: Record<string, Case> = {
  async "per-route and group middleware give the handler its typed variables"(env) {
    const app = notesApp(env, []);
    await both(env, app, async (fetch) => {
      const auth = { headers: { authorization: `Bearer ${TOKEN}` } };
      const me = await fetch("/api/me", auth);
      assert.equal(me.status, 200);
      assert.deepEqual(await me.json(), { name: "ada" });
      const refused = await fetch("/api/me");
      assert.equal(refused.status, 401);
      assert.match(refused.headers.get("www-authenticate") ?? "", /^Bearer /);
      await refused.body?.cancel();
      const note = await fetch("/api/me/notes/7", auth);
      assert.equal(note.headers.get("x-owner"), "ada");
      assert.deepEqual(await note.json(), { id: 7, title: "t" }); // the schema drops "secret"
    });
  },

  async "grouped routes answer 405 with Allow, HEAD and OPTIONS like flat ones"(env) {
    const { get, group, post, router } = env.weft;
    const ok = (ctx: Weft.Context) => ctx.text(ctx.route ?? "");
    const flat = router([get("/v1/items", ok), post("/v1/items", ok), get("/v1/items/:id", ok)]);
    const grouped = router([
      group("/v1", [], [group("/items", [], [get("/", ok), post("/", ok), get("/:id", ok)])]),
    ]);
    const requests: [string, string][] = [
      ["GET", "/v1/items"],
      ["HEAD", "/v1/items/3"],
      ["DELETE", "/v1/items"],
      ["OPTIONS", "/v1/items/3"],
      ["GET", "/v1/nope"],
    ];
    const answers: Record<string, unknown>[] = [];
    for (const app of [flat, grouped]) {
      await both(env, app, async (fetch) => {
        for (const [method, path] of requests) {
          const res = await fetch(path, { method });
          answers.push({
            method,
            path,
            status: res.status,
            allow: res.headers.get("allow"),
            body: await res.text(),
          });
        }
      });
    }
    const half = answers.length / 2;
    assert.deepEqual(answers.slice(half), answers.slice(0, half));
    assert.deepEqual(answers.slice(0, 5).map((a) => a.status), [200, 200, 405, 204, 404]);
    assert.equal(answers[2].allow, "GET, POST, HEAD, OPTIONS");
  },

  async "a group's cors() decorates the automatic preflight answer"(env) {
    const app = notesApp(env, []);
    await both(env, app, async (fetch) => {
      const res = await fetch("/api/me/notes/1", {
        method: "OPTIONS",
        headers: {
          origin: "https://app.example",
          "access-control-request-method": "GET",
          "access-control-request-headers": "authorization",
        },
      });
      assert.equal(res.status, 204);
      assert.equal(res.headers.get("access-control-allow-origin"), "https://app.example");
      assert.equal(res.headers.get("allow"), "GET, HEAD, OPTIONS");
    });
  },

  async "notFound answers unknown paths and onError receives 500s without leaking them"(env) {
    const reported: unknown[] = [];
    const app = notesApp(env, reported);
    await both(env, app, async (fetch) => {
      const missing = await fetch("/nowhere");
      assert.equal(missing.status, 404);
      assert.equal(await missing.text(), "no /nowhere");
      const boom = await fetch("/api/me/boom", {
        method: "POST",
        headers: { authorization: `Bearer ${TOKEN}` },
      });
      assert.equal(boom.status, 500);
      assert.equal(boom.headers.get("content-type"), "application/problem+json");
      assert.ok(!(await boom.text()).includes("internal detail"));
    });
    assert.deepEqual(reported.map((error) => (error as Error).message), [
      "internal detail",
      "internal detail",
    ]);
  },

  async "onError receives the errors of WebSocket handlers"(env) {
    const { get, router } = env.weft;
    const { websocket } = env.weft as typeof Weft;
    const reported: unknown[] = [];
    const app = router([
      get(
        "/ws",
        websocket({
          onMessage() {
            throw new Error("handler failed");
          },
        }),
      ),
    ], { onError: (error) => void reported.push(error) });
    const Client = (env as Env & { WebSocket?: typeof WebSocket }).WebSocket ??
      globalThis.WebSocket;
    const server = env.weft.serve(app, QUIET);
    try {
      const client = new Client(`ws://127.0.0.1:${server.addr.port}/ws`);
      const closed = new Promise<number>((resolve) => {
        client.onclose = (event) => resolve(event.code);
      });
      await withDeadline(
        new Promise((resolve, reject) => {
          client.onopen = resolve;
          client.onerror = reject;
        }),
        10_000,
        "the WebSocket to open",
      );
      client.send("hi");
      assert.equal(await withDeadline(closed, 10_000, "the close after the failure"), 1011);
    } finally {
      await withDeadline(server.shutdown(), 10_000, "server.shutdown()");
    }
    assert.deepEqual(reported.map((error) => (error as Error).message), ["handler failed"]);
  },

  async "response helpers: html, redirect, and JSON through a schema"(env) {
    const app = notesApp(env, []);
    await both(env, app, async (fetch) => {
      const home = await fetch("/");
      assert.equal(home.headers.get("content-type"), "text/html; charset=utf-8");
      assert.equal(await home.text(), "<h1>notes</h1>");
      const old = await fetch("/old");
      assert.equal(old.status, 301);
      assert.equal(old.headers.get("location"), "/");
      await old.body?.cancel();
      // A character a URI cannot hold is percent-encoded as UTF-8: Headers refused one past
      // U+00FF (a 500), and one of Latin-1 went out as a single byte.
      const go = await fetch(`/go?next=${encodeURIComponent("/日本/café a")}`);
      assert.equal(go.status, 303);
      assert.equal(go.headers.get("location"), "/%E6%97%A5%E6%9C%AC/caf%C3%A9%20a");
      await go.body?.cancel();
    });
  },

  async "validate() types the query or answers 400 listing every failing field"(env) {
    const app = notesApp(env, []);
    await both(env, app, async (fetch) => {
      const ok = await fetch("/api/notes?limit=5&tag=a&tag=b");
      assert.deepEqual(await ok.json(), { limit: 5, tag: ["a", "b"] });
      for (const bad of ["4.2", "42abc", ""]) {
        const res = await fetch(`/api/notes?limit=${bad}`);
        assert.equal(res.status, 400, bad);
        assert.deepEqual((await res.json()).errors.map((e: { path: string }) => e.path), [
          "$.limit",
        ]);
      }
      const two = await fetch("/api/me/notes/x", { headers: { authorization: `Bearer ${TOKEN}` } });
      assert.equal(two.status, 400);
      assert.deepEqual((await two.json()).errors.map((e: { in: string }) => e.in), ["params"]);
    });
  },

  async "ctx.decode() answers a body in a content coding 415 with Accept-Encoding: identity"(env) {
    const { post, router, schema } = env.weft;
    const Note = schema.object({ title: schema.string() });
    const app = router([post("/notes", async (ctx) => {
      const result = await ctx.decode(Note);
      return result.ok ? ctx.json(result.value, { status: 201 }) : ctx.text("bad", { status: 400 });
    })]);
    const json = '{"title":"hi"}';
    const gzip = await new Response(
      new Blob([json]).stream().pipeThrough(new CompressionStream("gzip")),
    ).bytes();
    await both(env, app, async (fetch) => {
      const headers = { "content-type": "application/json", "content-encoding": "gzip" };
      const coded = await fetch("/notes", { method: "POST", headers, body: gzip });
      assert.equal(coded.status, 415);
      assert.equal(coded.headers.get("accept-encoding"), "identity");
      assert.equal(coded.headers.get("content-type"), "application/problem+json");
      await coded.body?.cancel();
      const plain = await fetch("/notes", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: json,
      });
      assert.equal(plain.status, 201);
      assert.deepEqual(await plain.json(), { title: "hi" });
    });
  },

  async "validate() in a group and on its route: the handler gets the fields of both"(env) {
    const { get, group, router, schema, validate } = env.weft;
    const app = router([
      group("/teams/:team", [validate({
        params: schema.object({ team: schema.integer() }),
        query: schema.object({ tenant: schema.string() }),
      })], [
        get("/members/:member", [validate({
          params: schema.object({ member: schema.integer() }),
          query: schema.object({ limit: schema.optional(schema.integer()) }),
        })], (ctx) => ctx.json({ params: ctx.var.params, query: ctx.var.query })),
      ]),
    ]);
    await both(env, app, async (fetch) => {
      const res = await fetch("/teams/7/members/3?tenant=a&limit=2");
      assert.deepEqual(await res.json(), {
        params: { team: 7, member: 3 },
        query: { tenant: "a", limit: 2 },
      });
    });
  },
};
