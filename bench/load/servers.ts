// The servers the load benchmark compares, one per process:
//   deno run -A bench/load/servers.ts <raw|hono|weft> <port> [--tls]
// Each answers GET / with "Hello, World!" and GET /user/:id with a small JSON body; Hono and
// Weft put two no-op middlewares in front, as the comparison asks.
//
// "weft-await:N" and "hono-await:N" put N middlewares in front written as users write them,
// `async` and awaiting `next()`; "weft-async:N" and "hono-async:N" then also set a header on
// the response (a timing or a CORS layer's shape). The cost of one layer is
// (kind:10 - kind:2) / 8.
import { Hono } from "hono";
import { chain, get, type Middleware, router, serve } from "../../mod.ts";

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
} else if (kind === "raw") {
  Deno.serve(listen, hello);
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
} else if (kind === "weft-bare") {
  // Diagnostic: Weft's serve() and Context around raw's handler (no router, no middleware).
  serve((ctx) => hello(ctx.req), listen);
} else if (kind === "weft-router") {
  // Diagnostic: Weft's router without the two middlewares.
  serve(routes(), listen);
} else {
  console.error(
    "usage: servers.ts <raw|hono|weft|weft-bare|weft-router|{weft,hono}-{await,async}:N> <port> [--tls]",
  );
  Deno.exit(2);
}
