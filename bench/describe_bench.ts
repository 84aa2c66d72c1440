// What route metadata costs per request (issue 26): the load benchmark's app (two no-op
// middlewares, then "/" and "/user/:id") as is, with a documentation-only describe() on every
// route, with one pass-through middleware per route (what such a describe() would cost if it
// stayed in the chain), and with a describe() that validates the param (the work it asks for).
// A describe() that checks nothing is dropped when the route is built, so the second case
// should match the first; app.fetch() on a reused Request, no sockets.
import { chain, get, type Middleware, router, schema } from "../mod.ts";
import { describe } from "../lib/openapi/mod.ts";
import { bench } from "./_groups.ts";

const noop1: Middleware = (_ctx, next) => next();
const noop2: Middleware = (_ctx, next) => next();
const User = schema.object({ id: schema.string(), name: schema.string() });

function app(meta: (path: string) => Middleware[]) {
  return chain(
    [noop1, noop2],
    router([
      get("/", meta("/"), () => new Response("Hello, World!")),
      get("/user/:id", meta("/user/:id"), (ctx) => ctx.json({ id: ctx.params.id, name: "Ada" })),
    ]),
  );
}

const plain = app(() => []);
const documented = app((path) => [
  describe({ summary: `GET ${path}`, tags: ["load"], responses: { 200: User } }) as Middleware,
]);
const layered = app(() => [(_ctx, next) => next()]);
const validated = app((path) =>
  path === "/" ? [] : [
    describe({
      params: schema.object({ id: schema.integer() }),
      responses: { 200: User },
    }) as Middleware,
  ]
);

for (const path of ["/", "/user/42"]) {
  const request = new Request(`http://localhost${path}`);
  const group = `metadata ${path}`;
  bench(group, "no metadata", async () => void await plain.fetch(request), true);
  bench(group, "describe() on every route", async () => void await documented.fetch(request));
  bench(group, "a pass-through layer per route", async () => void await layered.fetch(request));
  if (path !== "/") {
    bench(
      group,
      "describe({ params }) validating",
      async () => void await validated.fetch(request),
    );
  }
}
