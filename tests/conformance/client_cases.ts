// Conformance cases for describe()'s checks and the typed client (weft/client) over real
// sockets, on both runtimes: the client on the runtime's own fetch against serve(); what
// describe() declares is what the server refuses (400 with every failing field, 415, a JSON
// decode 400), and each refusal reaches the client as problem details, never as a throw.
import assert from "node:assert/strict";
import type { Env } from "./suite.ts";
import { withDeadline } from "../_deadline.ts";

function notesApp(env: Env) {
  const { get, post, router, schema } = env.weft;
  const { describe } = env.openapi;
  const Note = schema.object({ id: schema.integer(), text: schema.string() });
  return router([
    get("/boards/:board/notes", [describe({
      params: schema.object({ board: schema.integer() }),
      query: schema.object({
        limit: schema.optional(schema.integer()),
        tag: schema.array(schema.string()),
      }),
      headers: schema.object({ "x-tenant": schema.string() }),
      responses: { 200: schema.array(Note) },
    })], (ctx) => {
      const { limit = 2 } = ctx.var.query;
      const notes = ctx.var.query.tag.map((text, i) => ({
        id: ctx.var.params.board * 100 + i,
        text,
      }));
      ctx.setHeader("x-tenant", ctx.var.headers["x-tenant"]);
      return ctx.json(notes.slice(0, limit));
    }),
    post("/boards/:board/notes", [describe({
      params: schema.object({ board: schema.integer() }),
      body: schema.object({ text: schema.string({ minLength: 1 }) }),
      responses: { 201: Note },
    })], (ctx) => ctx.json({ id: ctx.var.params.board, text: ctx.var.body.text }, { status: 201 })),
    get("/files/*path", (ctx) => ctx.json({ path: ctx.params.path })),
    post("/echo", async (ctx) => ctx.json({ body: await ctx.req.text() })),
  ]);
}

export const clientCases: Record<string, (env: Env) => Promise<void>> = {
  async "client: typed calls round-trip params, query, headers and a JSON body"(env) {
    const app = notesApp(env);
    const server = env.weft.serve(app, { hostname: "127.0.0.1", port: 0, onListen() {} });
    try {
      const api = env.client.client<typeof app>(`http://127.0.0.1:${server.addr.port}`);
      const list = await withDeadline(
        api.get("/boards/:board/notes", {
          params: { board: 3 },
          query: { limit: 5, tag: ["a b", "ü&=", "c"] },
          headers: { "x-tenant": "acme" },
        }),
        10_000,
        "GET /boards/3/notes",
      );
      assert.equal(list.status, 200, JSON.stringify(list.problem));
      assert.ok(!list.problem);
      assert.deepEqual(list.data, [
        { id: 300, text: "a b" },
        { id: 301, text: "ü&=" },
        { id: 302, text: "c" },
      ]);
      assert.equal(list.response.headers.get("x-tenant"), "acme");

      const created = await api.post("/boards/:board/notes", {
        params: { board: 4 },
        json: { text: "buy milk" },
      });
      assert.equal(created.status, 201);
      if (created.status === 201) assert.deepEqual(created.data, { id: 4, text: "buy milk" });

      const file = await api.get("/files/*path", { params: { path: "a dir/b?.txt" } });
      assert.deepEqual(file.data, { path: "a dir/b?.txt" });

      // a stream body is sent as it is, on Node's fetch too (which needs duplex: "half")
      const bytes = new TextEncoder().encode('{"text":"streamed"}');
      const streamed = await api.post("/echo", {
        body: new ReadableStream({
          start(controller) {
            controller.enqueue(bytes);
            controller.close();
          },
        }),
      });
      assert.deepEqual([streamed.status, streamed.data], [200, { body: '{"text":"streamed"}' }]);
    } finally {
      await withDeadline(server.shutdown(), 10_000, "the client server to shut down");
    }
  },

  async "client: describe() refusals come back as problem details (400, 415, JSON 400, 404)"(env) {
    const app = notesApp(env);
    const server = env.weft.serve(app, { hostname: "127.0.0.1", port: 0, onListen() {} });
    const base = `http://127.0.0.1:${server.addr.port}`;
    try {
      const api = env.client.client<typeof app>(base);
      // Every failing field of every part in one 400 (sent without the client, which would not
      // compile such a call).
      const refused = await fetch(`${base}/boards/x/notes?limit=4.2`);
      assert.equal(refused.status, 400);
      const body = await refused.json();
      assert.deepEqual(
        body.errors.map((e: { in: string; path: string }) => `${e.in} ${e.path}`),
        ["params $.board", "query $.limit", `headers $["x-tenant"]`],
      );
      // Through the client: problem details, typed, not a throw.
      const wrong = await api.post("/boards/:board/notes", {
        params: { board: 1 },
        json: { text: "" },
      });
      assert.equal(wrong.ok, false);
      assert.equal(wrong.problem?.status, 400);
      assert.equal(wrong.problem?.path, "$.text");
      // 415: a body that is not JSON never reaches the handler.
      const text = await fetch(`${base}/boards/1/notes`, { method: "POST", body: '{"text":"x"}' });
      assert.equal(text.status, 415);
      assert.equal(text.headers.get("content-type"), "application/problem+json");
      await text.body?.cancel();
      // A path the app has not: the router's 404 problem.
      const missing = await env.client.client<typeof app>(`${base}/nowhere`).get("/files/*path", {
        params: { path: "x" },
      });
      assert.equal(missing.problem?.status, 404);
    } finally {
      await withDeadline(server.shutdown(), 10_000, "the client server to shut down");
    }
    // A request that fails (the server is gone): status 0, still no throw.
    const gone = await env.client.client<ReturnType<typeof notesApp>>(base).get("/files/*path", {
      params: { path: "x" },
    });
    assert.equal(gone.status, 0);
    assert.equal(gone.problem?.title, "The request failed");
  },

  async "client: a problem+json answer without a body gets the status's phrase as its title"(env) {
    const { get, router } = env.weft;
    const app = router([
      get("/limited", () =>
        new Response(null, {
          status: 429,
          headers: { "content-type": "application/problem+json", "retry-after": "1" },
        })),
    ]);
    const server = env.weft.serve(app, { hostname: "127.0.0.1", port: 0, onListen() {} });
    try {
      const api = env.client.client<typeof app>(`http://127.0.0.1:${server.addr.port}`);
      const limited = await api.get("/limited");
      assert.deepEqual(
        [limited.ok, limited.problem?.type, limited.problem?.title, limited.problem?.status],
        [false, "about:blank", "Too Many Requests", 429],
      );
    } finally {
      await withDeadline(server.shutdown(), 10_000, "the client server to shut down");
    }
  },
};
