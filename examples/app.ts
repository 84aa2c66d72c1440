/**
 * The demo application, a small team-notes service: a home page compiled from a template, a JSON
 * API in groups with CORS, per-route bearer authentication with a typed user, a typed and
 * validated query, the app's hooks, and its OpenAPI document at `/openapi.json`. `examples/main.ts` serves it; `deno serve --parallel
 * examples/app.ts` serves its default export on every core.
 *
 * Try it (`npx -y deno@2.9.6 task start`):
 *
 *     curl localhost:8000/api/notes?limit=1
 *     curl localhost:8000/openapi.json
 *     curl -H 'authorization: Bearer demo-token' localhost:8000/api/me
 *     curl -H 'authorization: Bearer demo-token' -d 'buy milk' localhost:8000/api/me/notes
 *
 * @module
 */
import {
  auth,
  bearerTokens,
  chain,
  cors,
  get,
  group,
  logger,
  type Middleware,
  post,
  router,
  schema,
  validate,
} from "../mod.ts";
import { describe, openapi, type OpenApiDocument } from "../lib/openapi/mod.ts";
import { render as renderHome } from "./templates/home.ts";

// A variable every request has, declared once for the whole app.
declare module "../mod.ts" {
  interface Variables {
    requestId: string;
  }
}

interface User {
  name: string;
}

const requestId: Middleware = async function requestId(ctx, next) {
  ctx.var.requestId = crypto.randomUUID();
  ctx.setHeader("x-request-id", ctx.var.requestId);
  return await next();
};

// Declared once, so that the routes behind it see `ctx.var.user: User`.
const requireUser = auth({
  validate: bearerTokens(new Map<string, User>([["demo-token", { name: "demo" }]])),
  realm: "notes",
});

const Note = schema.object({
  id: schema.integer(),
  author: schema.string(),
  text: schema.string(),
});
const notes: { id: number; author: string; text: string; createdBy: string }[] = [
  { id: 1, author: "weft", text: "Welcome to the demo", createdBy: "seed" },
];

const listNotes = validate({
  query: schema.object({
    limit: schema.optional(schema.integer()),
    author: schema.optional(schema.string()),
  }),
});
const noteById = validate({ params: schema.object({ id: schema.integer() }) });
// Documentation, next to the routes: openapi() reads it with the validate() schemas above.
const notesTag = describe({ tags: ["notes"] });
const bearer = describe({ security: "bearer", tags: ["me"] });

const ROUTES = [
  { method: "GET", pattern: "/hello/:name", summary: "greets by name (JSON)" },
  { method: "GET", pattern: "/users/:id", summary: "a user record (JSON)" },
  { method: "POST", pattern: "/echo", summary: "echoes the request body (limit 1 MiB)" },
  { method: "GET", pattern: "/api/notes?limit=&author=", summary: "notes, a typed query" },
  { method: "GET", pattern: "/api/notes/:id", summary: "one note (an integer id)" },
  { method: "GET", pattern: "/api/me", summary: "the user of the bearer token (demo-token)" },
  { method: "POST", pattern: "/api/me/notes", summary: "adds a note (the body is its text)" },
  { method: "GET", pattern: "/openapi.json", summary: "the API's OpenAPI 3.1 document" },
];

let document: OpenApiDocument | undefined;

/** The demo app's router (what `openapi()` documents). */
export const api = router([
  get(
    "/",
    (ctx) =>
      ctx.html(renderHome({ title: "Weft demo", message: ctx.query("message"), routes: ROUTES })),
  ),
  get("/hello/:name", (ctx) => ctx.json({ hello: ctx.params.name })),
  get("/users/:id", (ctx) => ctx.json({ id: ctx.params.id, name: `User ${ctx.params.id}` })),
  post("/echo", async (ctx) => new Response(await ctx.body(), { status: 200 })),
  get(
    "/openapi.json",
    (ctx): Response =>
      ctx.json(document ??= openapi(api, { title: "Weft demo", version: "1.0.0" })),
  ),
  group("/api", [cors(), notesTag], [
    get("/notes", [
      describe({ summary: "List notes", responses: { 200: schema.array(Note) } }),
      listNotes,
    ], (ctx) => {
      const { limit = 20, author } = ctx.var.query;
      const found = notes.filter((note) => author === undefined || note.author === author);
      return ctx.json(found.slice(0, limit), { schema: schema.array(Note) });
    }),
    get("/notes/:id", [
      describe({
        summary: "One note",
        responses: { 200: Note, 404: { description: "No such note" } },
      }),
      noteById,
    ], (ctx) => {
      const note = notes.find(({ id }) => id === ctx.var.params.id);
      return note === undefined
        ? ctx.json({ error: "no such note" }, { status: 404 })
        : ctx.json(note, { schema: Note });
    }),
    group("/me", [requireUser, bearer], [
      get("/", (ctx) => ctx.json({ name: ctx.var.user.name })),
      post("/notes", [
        describe({ summary: "Add a note (the body is its text)", responses: { 201: Note } }),
      ], async (ctx) => {
        const text = new TextDecoder().decode(await ctx.body()).trim();
        if (text === "") return ctx.json({ error: "a note needs text" }, { status: 400 });
        const note = { id: notes.length + 1, author: ctx.var.user.name, text, createdBy: "api" };
        notes.push(note);
        return ctx.json(note, { status: 201, schema: Note });
      }),
    ]),
  ]),
], {
  notFound: (ctx) =>
    ctx.html(
      renderHome({ title: "Not found", message: `No page at ${ctx.path}`, routes: ROUTES }),
      {
        status: 404,
      },
    ),
  onError: (error, ctx) => {
    console.error(`demo: request ${ctx.var.requestId} failed:`, error);
  },
});

/** The demo app. */
export const app = chain([logger(), requestId], api);

export default app;
