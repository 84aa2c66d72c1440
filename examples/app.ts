/**
 * The demo application: a few routes behind a small middleware chain. `examples/main.ts`
 * serves it; `deno serve --parallel examples/app.ts` serves its default export on every core.
 *
 * @module
 */
import { chain, cors, get, html, logger, type Middleware, post, response, router } from "../mod.ts";
import { render as renderHome } from "./templates/home.ts";

const requestId: Middleware = async function requestId(ctx, next) {
  ctx.setHeader("x-request-id", crypto.randomUUID());
  return await next();
};

// The home page is a template compiled at build time (`deno task templates`).
const ROUTES = [
  { method: "GET", pattern: "/hello/:name", summary: "greets by name (JSON)" },
  { method: "GET", pattern: "/users/:id", summary: "a user record (JSON)" },
  { method: "POST", pattern: "/echo", summary: "echoes the request body (limit 1 MiB)" },
];

/** The demo app. */
export const app = chain(
  [logger(), cors(), requestId],
  router([
    get("/", (ctx) =>
      response(
        ctx,
        200,
        html(renderHome({ title: "Weft demo", message: ctx.query("message"), routes: ROUTES })),
      )),
    get("/hello/:name", (ctx) => ctx.json({ hello: ctx.params.name })),
    get("/users/:id", (ctx) => ctx.json({ id: ctx.params.id, name: `User ${ctx.params.id}` })),
    post("/echo", async (ctx) => new Response(await ctx.body(), { status: 200 })),
  ]),
);

export default app;
