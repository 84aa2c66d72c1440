// The compile errors weft/client promises. Each `// @ts-expect-error` line is an error the type
// checker must find: `deno check` (and `deno test`, through types_test.ts) fails on an unused
// directive, and types_test.ts checks a copy without the directives, which must fail with
// exactly one error per directive.
import { chain, get, group, logger, post, router, schema, validate } from "../../mod.ts";
import { describe } from "../../lib/openapi/mod.ts";
import { client } from "../../lib/client/mod.ts";

const Note = schema.object({ id: schema.integer(), text: schema.string() });

const api = router([
  get("/health", (ctx) => ctx.text("ok")),
  group("/boards/:board", [validate({ params: schema.object({ board: schema.integer() }) })], [
    get("/notes", [describe({
      query: schema.object({ limit: schema.optional(schema.integer()), tag: schema.string() }),
      responses: { 200: schema.array(Note), 404: { description: "No such board" } },
    })], (ctx) => ctx.json([{ id: ctx.var.params.board, text: ctx.var.query.tag }])),
    post("/notes", [describe({
      headers: schema.object({ "x-tenant": schema.string() }),
      body: schema.object({ text: schema.string() }),
      responses: { 201: Note },
    })], (ctx) => ctx.json({ id: 1, text: ctx.var.body.text }, { status: 201 })),
  ]),
  get("/files/*path", (ctx) => ctx.text(ctx.params.path)),
  // A group's checks and the route's all run: the input must satisfy both.
  group("/teams/:team", [validate({
    params: schema.object({ team: schema.integer() }),
    query: schema.object({ tenant: schema.string() }),
  })], [
    get("/members/:member", [describe({
      params: schema.object({ member: schema.string() }),
      query: schema.object({ limit: schema.optional(schema.integer()) }),
    })], (ctx) => ctx.json(ctx.var.query)),
  ]),
  get("/items", [describe({
    query: schema.object({
      before: schema.optional(schema.nullable(schema.integer())),
      after: schema.nullable(schema.integer()),
    }),
    headers: schema.object({
      "x-trace": schema.optional(schema.nullable(schema.string())),
      "x-tenant": schema.nullable(schema.string()),
    }),
  })], (ctx) => ctx.json(ctx.var.query)),
  get("/tagged", [describe({
    query: schema.object({
      tag: schema.array(schema.string()),
      ids: schema.nullable(schema.array(schema.integer())),
      page: schema.integer(),
    }),
  })], (ctx) => ctx.json(ctx.var.query)),
  // A group's body and the route's: both decode the body.
  group("/tenants", [describe({ body: schema.object({ tenant: schema.string() }) })], [
    post("/notes", [describe({
      body: schema.object({ text: schema.string() }),
      // a status written as a string key names the same status
      responses: { "201": Note, 409: { description: "Taken" } },
    })], (ctx) => ctx.json({ id: 1, text: ctx.var.body.text }, { status: 201 })),
  ]),
]);
const app = chain([logger()], api);

/** Never called: only type-checked. */
export async function typeCases(): Promise<void> {
  const c = client<typeof app>("http://localhost:8000");

  // What is declared is typed, without a cast.
  await c.get("/health");
  await c.get("/files/*path", { params: { path: "a/b" } });
  const list = await c.get("/boards/:board/notes", { params: { board: 1 }, query: { tag: "x" } });
  if (!list.problem && list.status === 200) {
    const texts: string[] = list.data.map((note) => note.text);
    void texts;
  }
  if (list.status === 404 && !list.problem) {
    const nothing: undefined = list.data;
    void nothing;
  }
  const created = await c.post("/boards/:board/notes", {
    params: { board: 1 },
    headers: { "x-tenant": "acme" },
    json: { text: "buy milk" },
  });
  if (created.ok) {
    const id: number = created.data.id;
    void id;
  } else {
    const status: number = created.problem.status;
    void status;
  }

  await c.get("/teams/:team/members/:member", {
    params: { team: 1, member: "m" },
    query: { tenant: "acme", limit: 2 },
  });
  // A null query field or header that may be left out is left out.
  await c.get("/items", {
    query: { before: null, after: 1 },
    headers: { "x-trace": null, "x-tenant": "acme" },
  });

  // An array query field may be left out (the server reads it as [], a nullable one too); the
  // others may not.
  await c.get("/tagged", { query: { page: 1 } });
  await c.get("/tagged", { query: { page: 1, tag: ["a", "b"], ids: [1] } });
  // A route without a headers schema takes any header, as text, a list or null.
  await c.get("/health", { headers: { "x-n": 1, "x-list": ["a", 2], "x-none": null } });
  const tenanted = await c.post("/tenants/notes", { json: { tenant: "acme", text: "hi" } });
  if (!tenanted.problem && tenanted.status === 201) {
    const id: number = tenanted.data.id;
    void id;
  }
  if (!tenanted.problem && tenanted.status === 409) {
    const nothing: undefined = tenanted.data;
    void nothing;
  }
  // @ts-expect-error "page" is missing
  await c.get("/tagged", { query: { tag: ["a"] } });

  // A path the app has no route for.
  // @ts-expect-error "/nope" is not a GET route of the app
  await c.get("/nope", {});
  // A method the path has no route for.
  // @ts-expect-error "/health" has no POST route
  await c.post("/health", {});
  // A group's prefix is part of the path.
  // @ts-expect-error the route is "/boards/:board/notes"
  await c.get("/notes", { query: { tag: "x" } });
  // A missing input, a missing param, a param of the wrong type.
  // @ts-expect-error the params are required
  await c.get("/files/*path");
  // @ts-expect-error "board" is missing
  await c.get("/boards/:board/notes", { params: {}, query: { tag: "x" } });
  // @ts-expect-error the group's validate() makes board an integer
  await c.get("/boards/:board/notes", { params: { board: "one" }, query: { tag: "x" } });
  // A query without its required field, or with one of the wrong type or name.
  // @ts-expect-error tag is required
  await c.get("/boards/:board/notes", { params: { board: 1 }, query: { limit: 2 } });
  // @ts-expect-error limit is an integer
  await c.get("/boards/:board/notes", { params: { board: 1 }, query: { tag: "x", limit: "2" } });
  // @ts-expect-error the query has no "page"
  await c.get("/boards/:board/notes", { params: { board: 1 }, query: { tag: "x", page: 2 } });
  // A body of the wrong type, or none.
  const headers = { "x-tenant": "acme" };
  // @ts-expect-error text is a string
  await c.post("/boards/:board/notes", { params: { board: 1 }, headers, json: { text: 7 } });
  // @ts-expect-error the body is required
  await c.post("/boards/:board/notes", { params: { board: 1 }, headers });
  // @ts-expect-error the declared header is required
  await c.post("/boards/:board/notes", { params: { board: 1 }, json: { text: "x" } });
  // @ts-expect-error the group's body requires tenant too
  await c.post("/tenants/notes", { json: { text: "hi" } });

  // A group's query and params, when the route declares its own.
  // @ts-expect-error the group's validate() requires tenant
  await c.get("/teams/:team/members/:member", { params: { team: 1, member: "m" }, query: {} });
  await c.get("/teams/:team/members/:member", {
    // @ts-expect-error the group's validate() makes team an integer
    params: { team: "one", member: "m" },
    query: { tenant: "acme" },
  });
  // A required field cannot be null: text carries no null, and left out the field is missing.
  // @ts-expect-error after is required
  await c.get("/items", { query: { after: null }, headers: { "x-tenant": "acme" } });
  // @ts-expect-error x-tenant is required
  await c.get("/items", { query: { after: 1 }, headers: { "x-tenant": null } });

  // HEAD takes a GET route's input without a body, OPTIONS any path's params; neither has data.
  const head = await c.head("/boards/:board/notes", { params: { board: 1 }, query: { tag: "x" } });
  if (head.ok) {
    const nothing: undefined = head.data;
    void nothing;
  }
  await c.options("/boards/:board/notes", { params: { board: 1 } });
  await c.options("/health");
  // @ts-expect-error a HEAD request has no body
  await c.head("/boards/:board/notes", { params: { board: 1 }, query: { tag: "x" }, json: {} });
  // @ts-expect-error HEAD takes the GET route's required query
  await c.head("/boards/:board/notes", { params: { board: 1 } });
  // @ts-expect-error "/tenants/notes" has no GET route
  await c.head("/tenants/notes");
  // @ts-expect-error "/nope" is no path of the app
  await c.options("/nope");
  // @ts-expect-error the params are required
  await c.options("/files/*path");

  // Answers: data is typed per status, and only after narrowing.
  // @ts-expect-error data may be a problem's (undefined) until narrowed
  void list.data.length;
  if (!list.problem && list.status === 200) {
    // @ts-expect-error a Note has no "title"
    void list.data[0].title;
  }
  if (created.ok) {
    // @ts-expect-error 201's id is a number
    void (created.data.id satisfies string);
  }
  // @ts-expect-error a problem's status is a number
  if (!created.ok) void (created.problem.status satisfies string);
}
