// openapi(): the document for a small app checked field by field, and every document (this app,
// the demo app, a generated 200-route app) checked by a maintained OpenAPI validator from npm.
import assert from "node:assert/strict";
import { validate as validateDocument } from "@readme/openapi-parser";
import { chain, del, get, group, post, route, router, schema, validate } from "../../mod.ts";
import { describe, openapi, type OpenApiDocument } from "../../lib/openapi/mod.ts";
import { VALIDATES } from "../../lib/middleware/_validated.ts";
import { generatedRoutes } from "./_generated.ts";

/** The validator's verdict; it edits what it is given, so it gets a copy. */
export async function check(doc: OpenApiDocument): Promise<void> {
  const result = await validateDocument(structuredClone(doc) as never);
  assert.ok(result.valid, JSON.stringify("errors" in result ? result.errors : result, null, 2));
}

const Note = schema.object({ id: schema.integer(), text: schema.string() });
const NewNote = schema.object({ text: schema.string({ minLength: 1 }) }, { unknownKeys: "reject" });
const byId = validate({ params: schema.object({ id: schema.integer() }) });

const routes = [
  get("/", (ctx) => ctx.text("home")),
  get("/files/*rest", (ctx) => ctx.text(ctx.params.rest)),
  group("/notes", [describe({ tags: ["notes"] })], [
    get("/", [
      describe({ summary: "List notes", responses: { 200: schema.array(Note) } }),
      validate({
        query: schema.object({
          limit: schema.optional(schema.integer({ minimum: 1 })),
          tag: schema.array(schema.string()),
        }),
        headers: schema.object({ "x-tenant": schema.optional(schema.string()) }),
      }),
    ], (ctx) => ctx.json([])),
    get(
      "/:id",
      [describe({ summary: "One note", responses: { 200: Note } }), byId],
      (ctx) => ctx.json({ id: ctx.var.params.id, text: "" }),
    ),
    post("/", [
      describe({
        summary: "Add a note",
        body: NewNote,
        responses: { 201: Note },
        security: "bearer",
      }),
    ], (ctx) => ctx.json({ id: 1, text: "" }, { status: 201 })),
    del(
      "/:id",
      [describe({ deprecated: true, responses: { 204: { description: "Gone" } } })],
      () => new Response(null, { status: 204 }),
    ),
  ]),
];
const app = router(routes);

Deno.test("openapi() writes paths, methods, parameters, bodies and responses of the routes", async () => {
  const doc = openapi(app, { title: "Notes", version: "1.2.3", servers: ["https://api.example"] });
  assert.equal(doc.openapi, "3.1.1");
  assert.deepEqual(doc.info, { title: "Notes", version: "1.2.3" });
  assert.deepEqual(doc.servers, [{ url: "https://api.example" }]);
  assert.deepEqual(Object.keys(doc.paths), ["/", "/files/{rest}", "/notes", "/notes/{id}"]);
  // as declared: no automatic HEAD or OPTIONS
  assert.deepEqual(Object.keys(doc.paths["/"]), ["get"]);
  assert.deepEqual(Object.keys(doc.paths["/notes/{id}"]), ["get", "delete"]);

  const [rest] = doc.paths["/files/{rest}"].get.parameters!;
  assert.equal(rest.in, "path");
  assert.match(rest.description, /rest of the path/);

  const list = doc.paths["/notes"].get;
  assert.equal(list.summary, "List notes");
  assert.deepEqual(list.tags, ["notes"]); // from the group's describe()
  assert.deepEqual(list.parameters, [
    {
      name: "limit",
      in: "query",
      required: false,
      schema: { type: "integer", minimum: 1, maximum: Number.MAX_SAFE_INTEGER },
    },
    {
      // an array left out is empty (validate() reads no value as []), so it is never required
      name: "tag",
      in: "query",
      required: false,
      schema: { type: "array", items: { type: "string" } },
    },
    { name: "x-tenant", in: "header", required: false, schema: { type: "string" } },
  ]);
  assert.deepEqual(Object.keys(list.responses), ["200", "400", "500"]);

  const one = doc.paths["/notes/{id}"].get;
  assert.deepEqual(one.parameters![0].schema.type, "integer"); // from validate()
  assert.deepEqual(one.responses["200"].content["application/json"].schema, {
    $ref: "#/components/schemas/Schema1", // Note is used twice
  });
  assert.equal(doc.components.schemas.Schema1.properties.text.type, "string");

  const add = doc.paths["/notes"].post;
  assert.deepEqual(add.security, [{ bearerAuth: [] }]);
  assert.deepEqual(Object.keys(add.responses), ["201", "400", "401", "413", "415", "500"]);
  assert.equal(add.requestBody.content["application/json"].schema.additionalProperties, false);
  assert.deepEqual(doc.components.securitySchemes, {
    bearerAuth: { type: "http", scheme: "bearer" },
  });
  assert.equal(doc.paths["/notes/{id}"].delete.deprecated, true);
  assert.deepEqual(doc.paths["/notes/{id}"].delete.responses["204"], { description: "Gone" });
  assert.deepEqual(Object.keys(doc.components.responses), [
    "BadRequest",
    "Unauthorized",
    "NotFound",
    "MethodNotAllowed",
    "ContentTooLarge",
    "UnsupportedMediaType",
    "InternalServerError",
  ]);
  await check(doc);
});

Deno.test("openapi() reads the routes list as well as the router, and names schemas it is given", () => {
  const doc = openapi(routes, { title: "Notes", version: "1", schemas: { Note, NewNote } });
  assert.deepEqual(Object.keys(doc.components.schemas), [
    "Note",
    "NewNote",
    "Problem",
    "ValidationProblem",
  ]);
  assert.deepEqual(doc.paths["/notes"].post.requestBody.content["application/json"].schema, {
    $ref: "#/components/schemas/NewNote",
  });
});

Deno.test("openapi() gives generated names only to free ones, and refuses the framework's names", async () => {
  const Named = schema.object({ a: schema.string() });
  const Reused = schema.object({ b: schema.integer() });
  const routes = [
    get("/x", [describe({ responses: { 200: Named } })], (ctx) => ctx.json({ a: "" })),
    get("/y", [describe({ responses: { 200: Reused } })], (ctx) => ctx.json({ b: 1 })),
    get("/z", [describe({ responses: { 200: Reused } })], (ctx) => ctx.json({ b: 1 })),
  ];
  const doc = openapi(routes, { title: "t", version: "1", schemas: { Schema1: Named } });
  const ref = (path: string) => doc.paths[path].get.responses["200"].content["application/json"];
  assert.deepEqual(ref("/x").schema, { $ref: "#/components/schemas/Schema1" });
  assert.deepEqual(ref("/y").schema, { $ref: "#/components/schemas/Schema2" });
  assert.equal(doc.components.schemas.Schema1.properties.a.type, "string");
  assert.equal(doc.components.schemas.Schema2.properties.b.type, "integer");
  await check(doc);
  for (const name of ["Problem", "ValidationProblem"]) {
    assert.throws(
      () => openapi(routes, { title: "t", version: "1", schemas: { [name]: Named } }),
      { name: "TypeError", message: new RegExp(`"${name}" .*choose another name`) },
    );
  }
});

Deno.test("openapi() documents every check of a part, the group's and the route's, as they all run", async () => {
  const limit = schema.optional(schema.integer({ maximum: 50 }));
  const app = router([
    group("/boards/:board", [validate({
      params: schema.object({ board: schema.integer() }),
      query: schema.object({ tenant: schema.string() }),
    })], [
      get("/notes", [
        validate({ query: schema.object({ limit: schema.optional(schema.integer()) }) }),
        describe({ query: schema.object({ limit }) }),
      ], (ctx) => ctx.json(ctx.var.query)),
    ]),
  ]);
  const doc = openapi(app, { title: "t", version: "1" });
  const [board, tenant, limits] = doc.paths["/boards/{board}/notes"].get.parameters!;
  // the handler has the fields of every check, the group's too
  const both = await app.fetch(new Request("http://x/boards/7/notes?tenant=t&limit=5&x=1"));
  assert.deepEqual(await both.json(), { tenant: "t", limit: 5 });
  assert.equal(board.schema.type, "integer"); // the group's params, not a string
  assert.deepEqual([tenant.in, tenant.name, tenant.required], ["query", "tenant", true]);
  assert.deepEqual([limits.name, limits.required], ["limit", false]);
  assert.deepEqual(limits.schema.allOf.map((s: { maximum: number }) => s.maximum), [
    Number.MAX_SAFE_INTEGER,
    50,
  ]);
  await check(doc);
  // what the document says is what the app runs
  const status = async (path: string) => (await app.fetch(new Request(`http://x${path}`))).status;
  assert.equal(await status("/boards/7/notes?limit=1"), 400); // no tenant
  assert.equal(await status("/boards/7/notes?tenant=t&limit=60"), 400); // over the route's 50
  assert.equal(await status("/boards/x/notes?tenant=t"), 400);
  assert.equal(await status("/boards/7/notes?tenant=t&limit=5"), 200);
});

Deno.test("openapi() documents a group's body and the route's as both, since both are decoded", async () => {
  const Tenant = schema.object({ tenant: schema.string() });
  const app = router([
    group("/boards", [describe({ body: Tenant })], [
      post(
        "/notes",
        [describe({ body: schema.object({ text: schema.string() }) })],
        (ctx) => ctx.json(ctx.var.body),
      ),
      post("/flags", (ctx) => ctx.json(ctx.var.body)),
    ]),
  ]);
  const doc = openapi(app, { title: "t", version: "1" });
  const notes = doc.paths["/boards/notes"].post.requestBody.content["application/json"].schema;
  assert.deepEqual(notes.allOf, [
    { $ref: "#/components/schemas/Schema1" }, // the group's, used by both routes
    { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
  ]);
  assert.deepEqual(doc.paths["/boards/flags"].post.requestBody.content["application/json"], {
    schema: { $ref: "#/components/schemas/Schema1" },
  });
  await check(doc);
  // what the document says is what the app runs: the body must pass both
  const status = async (body: unknown) =>
    (await app.fetch(
      new Request("http://x/boards/notes", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
      }),
    )).status;
  assert.equal(await status({ text: "hi" }), 400);
  assert.equal(await status({ tenant: "t" }), 400);
  assert.equal(await status({ tenant: "t", text: "hi" }), 200);
});

Deno.test("openapi() writes a valid document or throws: operationIds, names, braces, params, methods", async () => {
  const text = () => new Response("ok");
  // a group's operationId would name every route of the group
  const grouped = router([
    group("/g", [describe({ operationId: "listThings" })], [get("/a", text), get("/b", text)]),
  ]);
  assert.throws(() => openapi(grouped, { title: "t", version: "1" }), {
    name: "TypeError",
    message: /"GET \/g\/a" and "GET \/g\/b" have the same operationId "listThings"/,
  });
  // a component name is also a JSON pointer in every $ref
  assert.throws(
    () =>
      openapi([get("/n", [describe({ responses: { 200: Note } })], text)], {
        title: "t",
        version: "1",
        schemas: { "My Note/v1": Note },
      }),
    { name: "TypeError", message: /"My Note\/v1" in info.schemas is not a component name/ },
  );
  // a response key that is not an HTTP status is refused where it is declared
  for (const status of [99, 600, 1.5, -200]) {
    assert.throws(() => describe({ responses: { [status]: Note } }), {
      name: "TypeError",
      message: new RegExp(`the response status ${status} is not an HTTP status`),
    });
  }
  // a params schema that requires a name the pattern lacks refuses every request
  const misnamed = router([
    get("/notes/:id", [validate({ params: schema.object({ noteId: schema.integer() }) })], text),
  ]);
  assert.equal((await misnamed.fetch(new Request("http://x/notes/1"))).status, 400);
  assert.throws(() => openapi(misnamed, { title: "t", version: "1" }), {
    name: "TypeError",
    message: /"GET \/notes\/:id" requires "noteId", which its pattern does not have/,
  });
  // a strict check of a part refuses what another check of it declares
  const strict = (fields: Record<string, never>) =>
    schema.object(fields, { unknownKeys: "reject" });
  const conflicts = [
    group("/q", [validate({ query: strict({ tenant: schema.string() as never }) })], [
      get(
        "/",
        [describe({ query: schema.object({ limit: schema.optional(schema.integer()) }) })],
        text,
      ),
    ]),
    group("/b", [describe({ body: schema.object({ tenant: schema.string() }) })], [
      post("/", [describe({ body: strict({ text: schema.string() as never }) })], text),
    ]),
  ];
  for (
    const [item, part, field] of [[conflicts[0], "query", "limit"], [
      conflicts[1],
      "body",
      "tenant",
    ]] as const
  ) {
    assert.throws(() => openapi([item], { title: "t", version: "1" }), {
      name: "TypeError",
      message: new RegExp(
        `a check of the ${part} of .* refuses unknown fields, and another declares "${field}"`,
      ),
    });
  }
  // an optional one is fine: a group's check of a param some of its routes have
  const some = router([
    group("/notes", [
      validate({ params: schema.object({ id: schema.optional(schema.integer()) }) }),
    ], [
      get("/", text),
      get("/:id", text),
    ]),
    // a brace in a static segment is text, not a template
    get("/v1/{literal}", text),
    // methods a Path Item of OpenAPI 3.1 has no field for are left out
    route("QUERY", "/notes", text),
    route("propfind", "/dav", text),
  ]);
  const doc = openapi(some, { title: "t", version: "1" });
  assert.deepEqual(Object.keys(doc.paths), ["/notes", "/notes/{id}", "/v1/%7Bliteral%7D"]);
  assert.deepEqual(Object.keys(doc.paths["/notes"]), ["get"]);
  await check(doc);
  assert.equal((await some.fetch(new Request("http://x/v1/%7Bliteral%7D"))).status, 200);
});

Deno.test("openapi() marks an array query field optional, a nullable one too: validate() reads none as []", async () => {
  const ids = schema.nullable(schema.array(schema.integer()));
  const app = router([
    get("/q", [validate({ query: schema.object({ ids, tag: schema.array(schema.string()) }) })], (
      ctx,
    ) => ctx.json(ctx.var.query)),
  ]);
  const doc = openapi(app, { title: "t", version: "1" });
  const parameters = doc.paths["/q"].get.parameters!;
  assert.deepEqual(parameters.map((p) => [p.name, p.required]), [["ids", false], ["tag", false]]);
  await check(doc);
  const res = await app.fetch(new Request("http://x/q"));
  assert.deepEqual(await res.json(), { ids: [], tag: [] });
});

Deno.test("openapi() writes a nullable parameter without the null, which text cannot carry", async () => {
  const int = {
    type: "integer",
    minimum: -Number.MAX_SAFE_INTEGER,
    maximum: Number.MAX_SAFE_INTEGER,
  };
  const app = router([
    get("/q/:id", [validate({
      params: schema.object({ id: schema.nullable(schema.integer()) }),
      query: schema.object({
        after: schema.nullable(schema.integer()),
        before: schema.optional(schema.nullable(schema.integer())),
        ids: schema.array(schema.nullable(schema.integer())),
        none: schema.optional(schema.literal(null)), // "null" is read as null: kept
      }),
      headers: schema.object({ "x-n": schema.optional(schema.nullable(schema.integer())) }),
    })], (ctx) => ctx.json(ctx.var.query)),
  ]);
  const doc = openapi(app, { title: "t", version: "1" });
  const schemas = doc.paths["/q/{id}"].get.parameters!.map((p) => [p.name, p.required, p.schema]);
  assert.deepEqual(schemas, [
    ["id", true, int],
    ["after", true, int],
    ["before", false, int],
    ["ids", false, { type: "array", items: int }],
    ["none", false, { const: null }],
    ["x-n", false, int],
  ]);
  await check(doc);
  // what the document says is what the app runs: "null" is text, not null
  const status = async (path: string) => (await app.fetch(new Request(`http://x${path}`))).status;
  assert.equal(await status("/q/1?after=null"), 400);
  assert.equal(await status("/q/1"), 400);
  assert.equal(await status("/q/1?after=2&none=null"), 200);
});

Deno.test("openapi() turns only a segment's leading : or * into a template", async () => {
  const app = router([
    post("/v1/books:batchGet", (ctx) => ctx.text("ok")),
    get("/v1/:shelf/books:count/*rest", (ctx) => ctx.text("ok")),
  ]);
  const doc = openapi(app, { title: "t", version: "1" });
  assert.deepEqual(Object.keys(doc.paths), [
    "/v1/books:batchGet",
    "/v1/{shelf}/books:count/{rest}",
  ]);
  assert.equal(doc.paths["/v1/books:batchGet"].post.parameters, undefined);
  assert.deepEqual(
    doc.paths["/v1/{shelf}/books:count/{rest}"].get.parameters!.map((p) => p.name),
    ["shelf", "rest"],
  );
  await check(doc);
  const res = await app.fetch(new Request("http://x/v1/books:batchGet", { method: "POST" }));
  assert.equal(res.status, 200);
});

Deno.test("openapi() refuses a chain around the router, naming what to pass", () => {
  assert.throws(
    () => openapi(chain([], app), { title: "x", version: "1" }),
    { name: "TypeError", message: /give a router\(\)/ },
  );
});

Deno.test("describe() only calls next(), and validate() keeps its schemas on the middleware", async () => {
  const res = await app.fetch(new Request("http://localhost/notes/7"));
  assert.deepEqual(await res.json(), { id: 7, text: "" });
  assert.equal(Object.keys(byId).length, 0); // nothing enumerable added
  assert.equal(
    (byId as unknown as Record<symbol, { params: unknown }>)[VALIDATES].params !== undefined,
    true,
  );
});

Deno.test("the validator refuses a broken document (so the checks above can fail)", async () => {
  const doc = openapi(app, { title: "Notes", version: "1" });
  delete doc.components.schemas.Schema1; // referenced by two operations
  const unresolved = await validateDocument(structuredClone(doc) as never);
  assert.equal(unresolved.valid, false);
  const wrongType = openapi(app, { title: "Notes", version: "1" });
  wrongType.paths["/notes"].get.parameters![0].in = "body"; // a Swagger 2 place
  assert.equal((await validateDocument(wrongType as never)).valid, false);
});

Deno.test("openapi() of a generated 200-route app passes the validator", async () => {
  const routes = generatedRoutes(200);
  const doc = openapi(router(routes), { title: "Generated", version: "1" });
  const operations = Object.values(doc.paths).reduce((n, item) => n + Object.keys(item).length, 0);
  assert.equal(operations, 200);
  await check(doc);
});

Deno.test("the demo app serves /openapi.json, which passes the validator", async () => {
  const { app } = await import("../../examples/app.ts");
  const res = await app.fetch(new Request("http://localhost/openapi.json"));
  assert.equal(res.status, 200);
  const doc = await res.json() as OpenApiDocument;
  const note = doc.paths["/api/notes/{id}"].get;
  assert.equal(note.parameters![0].schema.type, "integer");
  assert.equal(note.responses["404"].description, "No such note");
  assert.deepEqual(doc.paths["/api/me/notes"].post.security, [{ bearerAuth: [] }]);
  assert.deepEqual(doc.paths["/api/notes"].get.tags, ["notes"]);
  await check(doc);
});
