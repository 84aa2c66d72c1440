// The Deno implementations of the TechEmpower-style workload, one per process:
//   deno run -A bench/techempower/servers.ts <weft|hono> <sqlite|postgres> <location> <port>
// where location is the SQLite file or the PostgreSQL URL. Both follow the published rules:
// a Server and a Date header on every response, /plaintext, /json, /db, /queries?queries=N,
// /fortunes (rendered by a compiled Weft template, or by Hono's html helper, with escaping)
// and /updates?queries=N. The server prints "ready" once it listens.
import { Hono } from "hono";
import postgres from "postgres";
import { html, raw } from "hono/html";
import { chain, get, type Middleware, router, serve } from "../../mod.ts";
import { openDatabase, queryCount, randomId, withAddedFortune } from "./db.mjs";
import { render } from "./templates/fortunes.ts";

const [kind, engine, location, portArg] = Deno.args;
const port = Number(portArg);
const db = await openDatabase(engine, location, postgres);
const ids = (count: number) => Array.from({ length: count }, randomId);
const renumber = <T extends { randomNumber: number }>(worlds: T[]) => {
  for (const world of worlds) world.randomNumber = randomId();
  return worlds;
};
const ready = () => console.log("ready");

if (kind === "weft") {
  const server: Middleware = (ctx, next) => {
    ctx.setHeader("server", "Weft");
    return next();
  };
  const app = chain(
    [server],
    router([
      get("/plaintext", (ctx) => ctx.respond("Hello, World!", "text/plain")),
      get("/json", (ctx) => ctx.json({ message: "Hello, World!" })),
      get("/db", async (ctx) => ctx.json(await db.world(randomId()))),
      get(
        "/queries",
        async (ctx) => ctx.json(await db.worlds(ids(queryCount(ctx.query("queries"))))),
      ),
      get("/fortunes", async (ctx) =>
        ctx.respond(
          render({ fortunes: withAddedFortune(await db.fortunes()) }),
          "text/html; charset=utf-8",
        )),
      get("/updates", async (ctx) => {
        const worlds = renumber(await db.worlds(ids(queryCount(ctx.query("queries")))));
        await db.update(worlds);
        return ctx.json(worlds);
      }),
    ]),
  );
  serve(app, { port, hostname: "127.0.0.1", onListen: ready });
} else if (kind === "hono") {
  const app = new Hono();
  app.use(async (c, next) => {
    c.header("Server", "Hono");
    await next();
  });
  app.get("/plaintext", (c) => c.text("Hello, World!"));
  app.get("/json", (c) => c.json({ message: "Hello, World!" }));
  app.get("/db", async (c) => c.json(await db.world(randomId())));
  app.get(
    "/queries",
    async (c) => c.json(await db.worlds(ids(queryCount(c.req.query("queries"))))),
  );
  app.get("/fortunes", async (c) => {
    const rows = withAddedFortune(await db.fortunes());
    return c.html(
      html`
        <!DOCTYPE html>
        <html>
          <head>
            <title>Fortunes</title>
          </head>
          <body>
            <table><tr><th>id</th><th>message</th></tr>${raw(
              rows.map((f) =>
                html`
                  <tr>
                    <td>${f.id}</td>
                    <td>${f.message}</td>
                  </tr>
                `
              ).join(""),
            )}</table>
          </body>
        </html>
      `,
    );
  });
  app.get("/updates", async (c) => {
    const worlds = renumber(await db.worlds(ids(queryCount(c.req.query("queries")))));
    await db.update(worlds);
    return c.json(worlds);
  });
  Deno.serve({ port, hostname: "127.0.0.1", onListen: ready }, app.fetch);
} else {
  console.error(`unknown kind ${kind}: weft or hono`);
  Deno.exit(2);
}
