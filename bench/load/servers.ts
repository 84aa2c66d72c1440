// The servers the load benchmark compares, one per process:
//   deno run -A bench/load/servers.ts <raw|hono|weft> <port> [--tls]
// Each answers GET / with "Hello, World!" and GET /user/:id with a small JSON body; Hono and
// Weft put two no-op middlewares in front, as the comparison asks.
//
// "weft-await:N" and "hono-await:N" put N middlewares in front written as users write them,
// `async` and awaiting `next()`; "weft-async:N" and "hono-async:N" then also set a header on
// the response (a timing or a CORS layer's shape). The cost of one layer, (kind:10 - kind:2) / 8,
// is printed by bench/load/run.ts and bench/instructions.ts when both counts run (_layers.ts).
//
// "raw-await:N" and "raw-async:N" are the floor under any framework: raw's handler behind N of the
// same async functions, each calling the next directly (no error recovery, no check of what a
// layer returns, no single-call rule). What they add to raw is the cost of the user's own code.
import { Hono } from "hono";
import { chain, get, group, type Middleware, router, schema, serve } from "../../mod.ts";
import { describe } from "../../lib/openapi/mod.ts";
import { isHost } from "../../lib/http/host.ts";

const [kind, portArg] = Deno.args;
const port = Number(portArg);
const tls = Deno.args.includes("--tls")
  ? {
    cert: Deno.readTextFileSync(new URL("../../tests/fixtures/tls/cert.pem", import.meta.url)),
    key: Deno.readTextFileSync(new URL("../../tests/fixtures/tls/key.pem", import.meta.url)),
  }
  : {};
// Weft's routes, behind the middlewares in "weft" and alone in "weft-router"
const routes = () =>
  router([
    get("/", () => new Response("Hello, World!")),
    get("/user/:id", (ctx) => ctx.json({ id: ctx.params.id, name: "Ada" })),
  ]);
const listen = { port, hostname: "127.0.0.1", onListen: () => console.log("ready"), ...tls };

// The hand-written handler: raw Deno.serve runs it, and "weft-bare" runs it inside serve()
function hello(req: Request): Response {
  const url = req.url;
  const path = url.slice(url.indexOf("/", 8));
  if (path === "/") return new Response("Hello, World!");
  if (path.startsWith("/user/")) {
    return Response.json({ id: path.slice(6), name: "Ada" });
  }
  if (path.startsWith("/api/user/")) {
    return Response.json({ id: path.slice(10), name: "Ada" });
  }
  return new Response("Not Found", { status: 404 });
}

const [family, layersArg] = kind.split(":");
const layers = Number(layersArg ?? "0");

// The middleware users write: await the inner layers, then (in "-async") work on the response.
function weftLayer(i: number, setHeader: boolean): Middleware {
  const name = `x-layer-${i}`;
  return setHeader
    ? async (_ctx, next) => {
      const res = await next();
      res.headers.set(name, "1");
      return res;
    }
    : async (_ctx, next) => {
      const res = await next();
      return res;
    };
}

if (family === "weft-async" || family === "weft-await") {
  const setHeader = family === "weft-async";
  serve(
    chain(Array.from({ length: layers }, (_, i) => weftLayer(i, setHeader)), routes()),
    listen,
  );
} else if (family === "hono-async" || family === "hono-await") {
  const app = new Hono();
  for (let i = 0; i < layers; i++) {
    const name = `x-layer-${i}`;
    app.use(
      family === "hono-async"
        ? async (c, next) => {
          await next();
          c.res.headers.set(name, "1");
        }
        : async (_c, next) => {
          await next();
        },
    );
  }
  app.get("/", (c) => c.text("Hello, World!"));
  app.get("/user/:id", (c) => c.json({ id: c.req.param("id"), name: "Ada" }));
  Deno.serve(listen, app.fetch);
} else if (family === "raw-await" || family === "raw-async") {
  type Layer = (req: Request) => Response | Promise<Response>;
  let run: Layer = hello;
  for (let i = layers - 1; i >= 0; i--) {
    const inner = run;
    const name = `x-layer-${i}`;
    run = family === "raw-async"
      ? async (req) => {
        const res = await inner(req);
        res.headers.set(name, "1");
        return res;
      }
      : async (req) => {
        const res = await inner(req);
        return res;
      };
  }
  Deno.serve(listen, run);
} else if (family === "weft-grouped" || family === "weft-grouped-await") {
  serve(groupedWeft(family === "weft-grouped-await"), listen);
} else if (family === "hono-grouped") {
  Deno.serve(listen, groupedHono().fetch);
} else if (kind === "raw") {
  Deno.serve(listen, hello);
} else if (kind === "raw-host") {
  // raw with the Host check Weft's Deno adapter makes (Deno builds request.url from Host, so a
  // server that routes on it must refuse a Host with a path in it): what that check costs alone.
  Deno.serve(listen, (req) => {
    const host = req.headers.get("host");
    if (host !== null && !isHost(host)) return new Response(null, { status: 400 });
    return hello(req);
  });
} else if (kind === "hono") {
  const app = new Hono();
  app.use(async (_c, next) => await next());
  app.use(async (_c, next) => await next());
  app.get("/", (c) => c.text("Hello, World!"));
  app.get("/user/:id", (c) => c.json({ id: c.req.param("id"), name: "Ada" }));
  Deno.serve(listen, app.fetch);
} else if (kind === "weft") {
  const noop1: Middleware = (_ctx, next) => next();
  const noop2: Middleware = (_ctx, next) => next();
  serve(chain([noop1, noop2], routes()), listen);
} else if (kind === "weft-described") {
  // "weft" with OpenAPI metadata on every route (describe() documenting, checking nothing):
  // the OpenAPI issue's "metadata costs nothing per request" case.
  const noop1: Middleware = (_ctx, next) => next();
  const noop2: Middleware = (_ctx, next) => next();
  const User = schema.object({ id: schema.string(), name: schema.string() });
  serve(
    chain(
      [noop1, noop2],
      router([
        get("/", [describe({ summary: "Hello" })], () => new Response("Hello, World!")),
        get(
          "/user/:id",
          [describe({ summary: "One user", tags: ["users"], responses: { 200: User } })],
          (ctx) => ctx.json({ id: ctx.params.id, name: "Ada" }),
        ),
      ]),
    ),
    listen,
  );
} else if (kind === "weft-bare") {
  // Diagnostic: Weft's serve() and Context around raw's handler (no router, no middleware).
  serve((ctx) => hello(ctx.req), listen);
} else if (kind === "weft-router") {
  // Diagnostic: Weft's router without the two middlewares.
  serve(routes(), listen);
} else {
  console.error(
    "usage: servers.ts <raw|raw-host|raw-{await,async}:N|hono|weft|weft-described|weft-bare|weft-router|{weft,hono}-{await,async}:N|weft-grouped[-await]|hono-grouped> <port> [--tls]",
  );
  Deno.exit(2);
}

// The grouped app (the app-API issue's case): `/user/:id` inside `/api`, behind a group of two
// middleware, with a per-route middleware that sets a typed variable the handler reads, among
// 200 other routes in ten groups. "weft-grouped" writes the group's middleware as pass-through
// `(ctx, next) => next()`, "weft-grouped-await" as users write them (`async`, awaiting
// `next()`); Hono's, as its own docs write them, awaits. `/` is outside every group.
function groupedWeft(awaiting: boolean) {
  const pass: Middleware = awaiting ? async (_ctx, next) => await next() : (_ctx, next) => next();
  const pass2: Middleware = awaiting ? async (_ctx, next) => await next() : (_ctx, next) => next();
  const who: Middleware<{ who: string }> = (ctx, next) => {
    ctx.var.who = "Ada";
    return next();
  };
  const others = Array.from({ length: 10 }, (_, g) =>
    group(
      `/g${g}`,
      [],
      Array.from({ length: 20 }, (_, r) => get(`/r${r}/:id`, (ctx) => ctx.text(ctx.params.id))),
    ));
  return router([
    get("/", () => new Response("Hello, World!")),
    ...others,
    group("/api", [pass, pass2], [
      get("/user/:id", [who], (ctx) => ctx.json({ id: ctx.params.id, name: ctx.var.who })),
    ]),
  ]);
}

function groupedHono() {
  const app = new Hono<{ Variables: { who: string } }>();
  app.get("/", (c) => c.text("Hello, World!"));
  for (let g = 0; g < 10; g++) {
    const sub = new Hono();
    for (let r = 0; r < 20; r++) sub.get(`/r${r}/:id`, (c) => c.text(c.req.param("id")));
    app.route(`/g${g}`, sub);
  }
  const api = new Hono<{ Variables: { who: string } }>();
  api.use(async (_c, next) => await next());
  api.use(async (_c, next) => await next());
  api.get("/user/:id", async (c, next) => {
    c.set("who", "Ada");
    await next();
  }, (c) => c.json({ id: c.req.param("id"), name: c.get("who") }));
  app.route("/api", api);
  return app;
}
