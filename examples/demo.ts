/**
 * The demo's parts without an instance: {@linkcode createDemo} builds the team-notes app on a
 * store and topics, {@linkcode demoFromEnv} as its environment configures it. `examples/app.ts`
 * holds the instance that `deno serve` and the tests use; `examples/main.ts` (`deno task start`)
 * makes its own, with the notes in a SQLite file.
 *
 * @module
 */
import {
  type App,
  auth,
  basicUsers,
  bearerTokens,
  broadcastChannelTransport,
  chain,
  cors,
  createTopics,
  cspNonce,
  csrf,
  csrfToken,
  get,
  getSession,
  group,
  HttpError,
  logger,
  type Middleware,
  NONCE,
  post,
  router,
  schema,
  secureHeaders,
  session,
  sse,
  staticFiles,
  type Topics,
  validate,
} from "../mod.ts";
import { describe, openapi, type OpenApiDocument } from "../lib/openapi/mod.ts";
import { type NoteStore, openStore, type StoredNote } from "./notes_store.ts";
import { render as renderHome } from "./templates/home.ts";
import { render as renderLogin } from "./templates/login.ts";
import { render as renderNotes } from "./templates/notes.ts";

// A variable every request has, declared once for the whole app.
declare module "../mod.ts" {
  interface Variables {
    requestId: string;
  }
}

interface User {
  name: string;
}

/** What a signed-in browser's session holds. */
interface Login {
  user: string;
}

/** The demo's parts, chosen by {@linkcode createDemo}'s caller. */
export interface DemoOptions {
  /** Where the notes live. */
  store: NoteStore;
  /** Where new notes are published (the `notes` topic). */
  topics: Topics;
  /** Signs the session cookies: at least 32 characters. */
  sessionSecret: string;
  /** The password of the user `demo` on the login form. */
  password: string;
}

/** The demo app and what it holds open. */
export interface Demo {
  /** The app: logger, request id and the static assets around {@linkcode Demo.api}. */
  app: App;
  /** The router (what `openapi()` documents). */
  api: App;
  /** The store. */
  store: NoteStore;
  /** The topics the live feed runs on. */
  topics: Topics;
  /** Ends the event streams, the topics and the store. */
  close(): Promise<void>;
}

/** The topic every new note is published on, as JSON (`{ id, author, text }`). */
export const NOTES_TOPIC = "notes";

/** The session secret used when `SESSION_SECRET` is not set. Never use it in production. */
export const DEMO_SECRET = "weft-demo-session-secret-do-not-use-in-production";

const requestId: Middleware = async function requestId(ctx, next) {
  ctx.var.requestId = crypto.randomUUID();
  ctx.setHeader("x-request-id", ctx.var.requestId);
  return await next();
};

const Note = schema.object({
  id: schema.integer(),
  author: schema.string(),
  text: schema.string(),
});
const publicNote = ({ id, author, text }: StoredNote) => ({ id, author, text });

const listNotes = validate({
  query: schema.object({
    limit: schema.optional(schema.integer({ minimum: 1, maximum: 100 })),
    author: schema.optional(schema.string()),
  }),
});
const noteById = validate({ params: schema.object({ id: schema.integer() }) });
// Documentation, next to the routes: openapi() reads it with the validate() schemas above.
const notesTag = describe({ tags: ["notes"] });
const bearer = describe({ security: "bearer", tags: ["me"] });

const ROUTES = [
  { method: "GET", pattern: "/login", summary: "the login form (demo / demo)" },
  { method: "GET", pattern: "/notes", summary: "the notes page, updated live (signed in)" },
  { method: "GET", pattern: "/hello/:name", summary: "greets by name (JSON)" },
  { method: "GET", pattern: "/users/:id", summary: "a user record (JSON)" },
  { method: "POST", pattern: "/echo", summary: "echoes the request body (limit 1 MiB)" },
  { method: "GET", pattern: "/api/notes?limit=&author=", summary: "notes, a typed query" },
  { method: "GET", pattern: "/api/notes/:id", summary: "one note (an integer id)" },
  { method: "GET", pattern: "/api/feed", summary: "new notes as server-sent events" },
  { method: "GET", pattern: "/api/me", summary: "the user of the bearer token (demo-token)" },
  { method: "POST", pattern: "/api/me/notes", summary: "adds a note (the body is its text)" },
  { method: "GET", pattern: "/openapi.json", summary: "the API's OpenAPI 3.1 document" },
  { method: "GET", pattern: "/static/", summary: "static assets, and a page about the demo" },
];

/** Builds the demo on the given store and topics. */
// The return type is inferred, not written as Demo, so that `api` and `app` keep their routes'
// types for the typed client (`client<typeof app>()`, docs/client.md).
export function createDemo(options: DemoOptions) {
  const { store, topics } = options;
  const stop = new AbortController();

  // The API: bearer tokens, never cookies, so it needs no CSRF protection.
  const requireUser = auth({
    validate: bearerTokens(new Map<string, User>([["demo-token", { name: "demo" }]])),
    realm: "notes",
  });

  // The pages: a signed session cookie (HttpOnly, SameSite=Lax), CSRF checks on every form
  // post, and security headers whose CSP lets only the page's own script run.
  const pages = [
    secureHeaders({
      contentSecurityPolicy: {
        "default-src": "'self'",
        "script-src": NONCE,
        "form-action": "'self'",
        "frame-ancestors": "'none'",
      },
    }),
    session({ secret: options.sessionSecret, cookie: { name: "notes_session" } }),
    csrf(),
  ] as const;
  const checkPassword = basicUsers({ demo: options.password });

  async function addNote(author: string, text: string, createdBy: string) {
    const note = publicNote(store.add({ author, text, createdBy }));
    try {
      await topics.publish(NOTES_TOPIC, JSON.stringify(note));
    } catch (error) {
      // The note is stored; only its live delivery is lost (at most once, docs/realtime.md).
      console.error(`notes: note ${note.id} was not published: ${error}`);
    }
    return note;
  }

  // The stylesheet, the notes page's script, the icon, and an about page that answers /static/:
  // validators, 304 and Range from staticFiles(), cached an hour (the names are not hashed).
  const assets = staticFiles({
    root: decodeURIComponent(new URL("./public", import.meta.url).pathname),
    prefix: "/static",
    index: "index.html",
    maxAge: 3600,
  });

  let document: OpenApiDocument | undefined;
  let closed: Promise<void> | undefined;
  const api = router([
    get(
      "/",
      (ctx) =>
        ctx.html(renderHome({ title: "Weft demo", message: ctx.query("message"), routes: ROUTES })),
    ),
    get("/hello/:name", (ctx) => ctx.json({ hello: ctx.params.name })),
    get("/users/:id", (ctx) => ctx.json({ id: ctx.params.id, name: `User ${ctx.params.id}` })),
    // The bytes go back as bytes: without a Content-Type (and nosniff) a browser would sniff
    // them, and a cross-site form posting markup here would run script on this origin.
    post("/echo", async (ctx) =>
      new Response(await ctx.body(), {
        headers: {
          "content-type": "application/octet-stream",
          "x-content-type-options": "nosniff",
        },
      })),
    get(
      "/openapi.json",
      // Written out, the return type keeps the router's own type from depending on itself.
      (ctx): Response =>
        ctx.json(document ??= openapi(api, { title: "Weft demo", version: "1.0.0" })),
    ),
    group("", pages, [
      get("/login", (ctx) => ctx.html(renderLogin({ csrf: csrfToken(ctx) ?? "" }))),
      post("/login", async (ctx) => {
        const form = await ctx.req.formData();
        const [name, password] = [form.get("username"), form.get("password")];
        const user = typeof name === "string" && typeof password === "string"
          ? await checkPassword(name, password)
          : null;
        if (user === null) {
          const page = renderLogin({ csrf: csrfToken(ctx) ?? "", error: "Wrong name or password" });
          return ctx.html(page, { status: 401 });
        }
        const login = getSession<Login>(ctx);
        login.regenerate(); // a new cookie at every login: no session fixation
        login.set({ user });
        return ctx.redirect("/notes", 303);
      }),
      post("/logout", (ctx) => {
        getSession<Login>(ctx).clear();
        return ctx.redirect("/login", 303);
      }),
      get("/notes", (ctx) => {
        const user = getSession<Login>(ctx).value?.user;
        if (user === undefined) return ctx.redirect("/login", 303);
        return ctx.html(renderNotes({
          user,
          csrf: csrfToken(ctx) ?? "",
          nonce: cspNonce(ctx) ?? "",
          notes: store.list({ limit: 100 }).map(publicNote),
        }));
      }),
      post("/notes", async (ctx) => {
        const user = getSession<Login>(ctx).value?.user;
        if (user === undefined) return ctx.redirect("/login", 303);
        const text = (await ctx.req.formData()).get("text");
        if (typeof text !== "string" || text.trim() === "") {
          throw new HttpError(400, "A note needs text");
        }
        await addNote(user, text.trim(), "page");
        return ctx.redirect("/notes", 303);
      }),
    ]),
    group("/api", [cors(), notesTag], [
      get("/notes", [
        describe({ summary: "List notes", responses: { 200: schema.array(Note) } }),
        listNotes,
      ], (ctx) => {
        const { limit = 20, author } = ctx.var.query;
        return ctx.json(store.list({ limit, author }), { schema: schema.array(Note) });
      }),
      get("/notes/:id", [
        describe({
          summary: "One note",
          responses: { 200: Note, 404: { description: "No such note" } },
        }),
        noteById,
      ], (ctx) => {
        const note = store.get(ctx.var.params.id);
        return note === undefined
          ? ctx.json({ error: "no such note" }, { status: 404 })
          : ctx.json(note, { schema: Note });
      }),
      get("/feed", [
        describe({ summary: "New notes as server-sent events (a `ready` event, then notes)" }),
      ], (ctx) =>
        sse(ctx, async (stream) => {
          topics.attach(stream, [NOTES_TOPIC]); // each note a `message` event
          await topics.ready(NOTES_TOPIC); // over Redis: once SUBSCRIBE is acknowledged
          stream.send({ event: "ready", data: "notes" });
          await stream.closed;
        }, { signal: stop.signal })),
      group("/me", [requireUser, bearer], [
        get("/", (ctx) => ctx.json({ name: ctx.var.user.name })),
        post("/notes", [
          describe({ summary: "Add a note (the body is its text)", responses: { 201: Note } }),
        ], async (ctx) => {
          const text = new TextDecoder().decode(await ctx.body()).trim();
          if (text === "") return ctx.json({ error: "a note needs text" }, { status: 400 });
          const note = await addNote(ctx.var.user.name, text, "api");
          return ctx.json(note, { status: 201, schema: Note });
        }),
      ]),
    ]),
  ], {
    notFound: (ctx) =>
      ctx.html(
        renderHome({ title: "Not found", message: `No page at ${ctx.path}`, routes: ROUTES }),
        { status: 404 },
      ),
    onError: (error, ctx) => {
      console.error(`demo: request ${ctx.var.requestId} failed:`, error);
    },
  });

  return {
    app: chain([logger(), requestId, assets], api),
    api,
    store,
    topics,
    close() {
      return closed ??= (async () => {
        stop.abort();
        await topics.close();
        store.close();
      })();
    },
  } satisfies Demo;
}

/** Reads an environment variable where the runtime lets the demo (no `--allow-env`: unset). */
function env(name: string): string | undefined {
  try {
    return Deno.env.get(name);
  } catch {
    return undefined;
  }
}

/**
 * The demo as its environment variables configure it (see the module documentation);
 * `read` looks them up (tests pass their own).
 */
export async function demoFromEnv(
  read: (name: string) => string | undefined = env,
): Promise<ReturnType<typeof createDemo>> {
  const redisUrl = read("REDIS_URL");
  const mode = read("NOTES_TOPICS") ?? "memory";
  if (redisUrl === undefined && mode !== "memory" && mode !== "broadcast") {
    throw new TypeError(
      `Cannot start the demo: NOTES_TOPICS is "${mode}", not memory or broadcast`,
    );
  }
  const transport = redisUrl !== undefined
    ? await (await import("../lib/realtime/redis.ts")).redisTransport({ url: redisUrl })
    : mode === "broadcast"
    ? broadcastChannelTransport("weft-demo-notes")
    : undefined;
  const demo = createDemo({
    store: await openStore(read("NOTES_DB")),
    topics: createTopics({ transport }),
    sessionSecret: read("SESSION_SECRET") ?? DEMO_SECRET,
    password: read("NOTES_PASSWORD") ?? "demo",
  });
  if (mode === "broadcast" && redisUrl === undefined) {
    // `deno serve` ends a worker once nothing keeps it busy, and an open BroadcastChannel does.
    for (const signal of ["SIGINT", "SIGTERM"] as const) {
      Deno.addSignalListener(signal, () => void demo.close());
    }
  }
  return demo;
}
