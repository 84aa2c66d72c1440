/**
 * The demo application: a few routes behind a small middleware chain. `examples/main.ts`
 * serves it; `deno serve --parallel examples/app.ts` serves its default export on every core.
 *
 * @module
 */
import { chain, cors, get, html, logger, type Middleware, post, response, router } from "../mod.ts";

const requestId: Middleware = async function requestId(ctx, next) {
  ctx.setHeader("x-request-id", crypto.randomUUID());
  return await next();
};

const page = (title: string, body: string) =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${title}</title></head>` +
  `<body>${body}</body></html>`;

/** The demo app. */
export const app = chain(
  [logger(), cors(), requestId],
  router([
    get("/", (ctx) =>
      response(
        ctx,
        200,
        html(page(
          "Weft demo",
          `<h1>Weft demo</h1><ul><li><a href="/hello/world">/hello/world</a></li>` +
            `<li><a href="/users/42">/users/42</a></li></ul>`,
        )),
      )),
    get("/hello/:name", (ctx) => ctx.json({ hello: ctx.params.name })),
    get("/users/:id", (ctx) => ctx.json({ id: ctx.params.id, name: `User ${ctx.params.id}` })),
    post("/echo", async (ctx) => new Response(await ctx.body(), { status: 200 })),
  ]),
);

export default app;
