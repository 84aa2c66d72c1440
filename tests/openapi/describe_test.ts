// describe() as the one declaration behind both the document and the checks: what it declares
// is refused at run time exactly as validate() and ctx.decode() refuse it, what it does not
// declare costs no layer, and openapi() documents the same schemas.
import assert from "node:assert/strict";
import { bodyLimit, chain, get, group, post, router, schema } from "../../mod.ts";
import { describe, openapi } from "../../lib/openapi/mod.ts";
import { preflight } from "../_preflight.ts";

const Note = schema.object({ id: schema.integer(), text: schema.string() });
const NewNote = schema.object({ text: schema.string({ minLength: 1 }) });
const seen: unknown[] = [];
const app = router([
  group("/boards/:board", [describe({ params: schema.object({ board: schema.integer() }) })], [
    get("/notes", [describe({
      query: schema.object({ limit: schema.optional(schema.integer()) }),
      headers: schema.object({ "x-tenant": schema.string() }),
      responses: { 200: schema.array(Note) },
    })], (ctx) => {
      seen.push([ctx.var.params.board, ctx.var.query.limit, ctx.var.headers["x-tenant"]]);
      return ctx.json([]);
    }),
    post("/notes", [describe({ body: NewNote, responses: { 201: Note } })], (ctx) => {
      seen.push(ctx.var.body);
      return ctx.json({ id: ctx.var.params.board, text: ctx.var.body.text }, { status: 201 });
    }),
  ]),
]);

const JSON_TYPE = { "content-type": "application/json" };
const send = (path: string, init?: RequestInit) =>
  app.fetch(new Request(`http://localhost${path}`, init));

Deno.test("describe() checks params, query and headers, and one 400 lists every failing field", async () => {
  seen.length = 0;
  const ok = await send("/boards/3/notes?limit=2", { headers: { "x-tenant": "acme" } });
  assert.equal(ok.status, 200);
  await ok.body?.cancel();
  assert.deepEqual(seen, [[3, 2, "acme"]]);

  const bad = await send("/boards/3/notes?limit=two");
  assert.equal(bad.status, 400);
  assert.equal(bad.headers.get("content-type"), "application/problem+json");
  const { errors } = await bad.json();
  assert.deepEqual(errors.map((e: { in: string; path: string }) => `${e.in} ${e.path}`), [
    "query $.limit",
    `headers $["x-tenant"]`,
  ]);
  // The group's describe() runs first and refuses on its own, as a group's validate() would.
  const board = await send("/boards/x/notes?limit=two");
  assert.deepEqual((await board.json()).errors.map((e: { path: string }) => e.path), ["$.board"]);
  assert.equal(seen.length, 1); // the handler did not run
});

Deno.test("describe({ body }) decodes the body as ctx.decode() does: 415, 400, 413, or ctx.var.body", async () => {
  seen.length = 0;
  const created = await send("/boards/3/notes", {
    method: "POST",
    headers: JSON_TYPE,
    body: '{"text":"buy milk","extra":1}',
  });
  assert.equal(created.status, 201);
  assert.deepEqual(await created.json(), { id: 3, text: "buy milk" });
  assert.deepEqual(seen, [{ text: "buy milk", extra: 1 }]);

  const text = await send("/boards/3/notes", { method: "POST", body: '{"text":"x"}' });
  assert.equal(text.status, 415);
  await text.body?.cancel();

  const empty = await send("/boards/3/notes", {
    method: "POST",
    headers: JSON_TYPE,
    body: '{"text":""}',
  });
  assert.equal(empty.status, 400);
  const problem = await empty.json();
  assert.equal(problem.path, "$.text");

  const syntax = await send("/boards/3/notes", { method: "POST", headers: JSON_TYPE, body: "{" });
  assert.equal(syntax.status, 400);
  assert.equal((await syntax.json()).kind, "syntax_error");

  // The params are checked before the body is read.
  const badBoard = await send("/boards/x/notes", { method: "POST", headers: JSON_TYPE, body: "{" });
  assert.equal((await badBoard.json()).errors[0].path, "$.board");

  const limited = chain([bodyLimit(8)], app);
  const large = await limited.fetch(
    new Request("http://localhost/boards/3/notes", {
      method: "POST",
      headers: JSON_TYPE,
      body: '{"text":"more than eight bytes"}',
    }),
  );
  assert.equal(large.status, 413);
  await large.body?.cancel();
  assert.equal(seen.length, 1);
});

Deno.test("a describe() that checks nothing is left out of the chain: no layer per request", () => {
  const handler = () => new Response("ok");
  const documented = get("/", [describe({ summary: "Home", responses: { 200: Note } })], handler);
  assert.equal(documented.handler, handler);
  const checked = get("/", [describe({ query: schema.object({}) })], handler);
  assert.notEqual(checked.handler, handler);
});

Deno.test("openapi() documents what describe() checks: parameters, the body, and the 400/415", () => {
  const doc = openapi(app, { title: "Boards", version: "1" });
  const list = doc.paths["/boards/{board}/notes"].get;
  assert.deepEqual(
    list.parameters?.map((p) => `${p.in} ${p.name} ${p.schema.type}`),
    ["path board integer", "query limit integer", "header x-tenant string"],
  );
  const add = doc.paths["/boards/{board}/notes"].post;
  assert.deepEqual(Object.keys(add.responses), ["201", "400", "413", "415", "500"]);
  assert.equal(add.requestBody.content["application/json"].schema.required[0], "text");
});

Deno.test("describe() in a group lets a CORS preflight through to the router's 204; a route's own is never in its way", async () => {
  const described = router([
    group("/v1", [describe({ headers: schema.object({ "x-api-version": schema.integer() }) })], [
      post("/notes", [describe({ body: NewNote })], (ctx) => ctx.json(ctx.var.body)),
    ]),
    group("/v2", [describe({ body: NewNote })], [post("/notes", () => new Response("made"))]),
  ]);
  for (const path of ["/v1/notes", "/v2/notes"]) {
    const res = await described.fetch(preflight(path, "POST"));
    assert.equal(res.status, 204, path);
    assert.equal(res.headers.get("allow"), "POST, OPTIONS", path);
  }
  // the real request is checked as before
  const real = await described.fetch(
    new Request("http://localhost/v1/notes", { method: "POST", body: '{"text":"hi"}' }),
  );
  assert.equal(real.status, 400);
});
