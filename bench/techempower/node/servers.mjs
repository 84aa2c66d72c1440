// The Node implementations of the TechEmpower-style workload, one per process:
//   node bench/techempower/node/servers.mjs <weft|fastify> <sqlite|postgres> <location> <port>
// The same test types and rules as servers.ts. Weft is its npm build (`deno task build:npm`,
// then `npm ci` here) rendering the compiled fortunes template (its JavaScript is written to
// ../.build/ by implementations.ts); Fastify escapes the fortunes by hand, as its users do.
// SQLite needs node:sqlite (Node 22.5 and later).
import postgres from "postgres";
import { openDatabase, queryCount, randomId, withAddedFortune } from "../db.mjs";

const [kind, engine, location, portArg] = process.argv.slice(2);
const port = Number(portArg);
const db = await openDatabase(engine, location, postgres);
const ids = (count) => Array.from({ length: count }, randomId);
const renumber = (worlds) => {
  for (const world of worlds) world.randomNumber = randomId();
  return worlds;
};
const ready = () => console.log("ready");

if (kind === "weft") {
  const { chain, get, router, serve } = await import("weft");
  const { render } = await import("../.build/fortunes.mjs");
  const server = (ctx, next) => {
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
} else if (kind === "fastify") {
  const { default: Fastify } = await import("fastify");
  const app = Fastify({ logger: false });
  app.addHook("onRequest", (_request, reply, done) => {
    reply.header("server", "Fastify");
    done();
  });
  const count = (request) => queryCount(request.query.queries);
  app.get("/plaintext", (_request, reply) => {
    reply.header("content-type", "text/plain").send("Hello, World!");
  });
  app.get("/json", (_request, reply) => {
    reply.header("content-type", "application/json").send(
      JSON.stringify({ message: "Hello, World!" }),
    );
  });
  app.get("/db", () => db.world(randomId()));
  app.get("/queries", (request) => db.worlds(ids(count(request))));
  app.get("/fortunes", async (_request, reply) => {
    const rows = withAddedFortune(await db.fortunes());
    let out = "<!DOCTYPE html><html><head><title>Fortunes</title></head><body><table>" +
      "<tr><th>id</th><th>message</th></tr>";
    for (const { id, message } of rows) out += `<tr><td>${id}</td><td>${escape(message)}</td></tr>`;
    reply.header("content-type", "text/html; charset=utf-8").send(out + "</table></body></html>");
  });
  app.get("/updates", async (request) => {
    const worlds = renumber(await db.worlds(ids(count(request))));
    await db.update(worlds);
    return worlds;
  });
  await app.listen({ port, host: "127.0.0.1" });
  ready();
} else {
  console.error(`unknown kind ${kind}: weft or fastify`);
  process.exit(2);
}

function escape(text) {
  return text.replace(
    /[&<>"']/g,
    (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c],
  );
}
