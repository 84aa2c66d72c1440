// openapi(): the document for a small app checked field by field, and every document (this app,
// the demo app, a generated 200-route app) checked by a maintained OpenAPI validator from npm.
import assert from "node:assert/strict";
import { validate as validateDocument } from "@readme/openapi-parser";
import { chain, del, get, group, post, router, schema, validate } from "../../mod.ts";
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
      name: "tag",
      in: "query",
      required: true,
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
