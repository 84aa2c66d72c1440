// Per-request framework overhead without sockets: app.fetch() on a reused Request, Weft
// against Hono and a hand-written handler (the floor) in the same groups. Two no-op middlewares
// sit in front of the router in Weft and Hono, as in the load benchmark.
import { Hono } from "hono";
import { chain, get, type Middleware, router } from "../mod.ts";
import { bench } from "./_groups.ts";

const noop1: Middleware = (_ctx, next) => next();
const noop2: Middleware = (_ctx, next) => next();
const weft = chain(
  [noop1, noop2],
  router([
    get("/", () => new Response("Hello, World!")),
    get("/user/:id", (ctx) => ctx.json({ id: ctx.params.id, name: "Ada" })),
  ]),
);

const hono = new Hono();
hono.use(async (_c, next) => await next());
hono.use(async (_c, next) => await next());
hono.get("/", (c) => c.text("Hello, World!"));
hono.get("/user/:id", (c) => c.json({ id: c.req.param("id"), name: "Ada" }));

function raw(req: Request): Response {
  const url = req.url;
  const path = url.slice(url.indexOf("/", 8));
  if (path === "/") return new Response("Hello, World!");
  if (path.startsWith("/user/")) return Response.json({ id: path.slice(6), name: "Ada" });
  return new Response("Not Found", { status: 404 });
}

for (const path of ["/", "/user/42"]) {
  const request = new Request(`http://localhost${path}`);
  const group = `fetch ${path}`;
  bench(group, "raw handler", () => void raw(request), true);
  bench(group, "hono", async () => void await hono.fetch(request));
  bench(group, "weft", async () => void await weft.fetch(request));
}
