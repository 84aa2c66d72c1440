// The servers the Node load benchmark compares, one per process:
//   node bench/node/servers.mjs <raw|fastify|hono|weft|…> <port> [--tls]
// Each answers GET / with "Hello, World!" and GET /user/:id with a small JSON body; Fastify,
// Hono and Weft put two no-op middlewares in front. With --tls, raw is node:http2's
// createSecureServer and Weft serves HTTP/2 over TLS (ALPN).
//
// "<weft|hono|koa|fastify>-await:N" put N middlewares in front written as users write them,
// `async` and awaiting `next()` (Fastify: N `async` onRequest hooks, its equivalent);
// "-async:N" then also set a header on the response (Fastify: in an `async` onSend hook).
// "raw-await:N" is the floor under any framework: raw's handler behind N `async` functions, each
// awaiting the next (no error recovery, no check of what a layer does): what they add to raw is
// the cost of the user's own async code, which no framework that runs it can avoid.
import { readFileSync } from "node:fs";
import * as http from "node:http";
import * as http2 from "node:http2";

const [kind, portArg] = process.argv.slice(2);
const port = Number(portArg);
const tls = process.argv.includes("--tls");
const fixture = (name) =>
  readFileSync(new URL(`../../tests/fixtures/tls/${name}`, import.meta.url));
const ready = () => console.log("ready");

function rawHandler(req, res) {
  const url = req.url;
  if (url === "/") {
    res.writeHead(200, { "content-type": "text/plain;charset=UTF-8" });
    res.end("Hello, World!");
  } else if (url.startsWith("/user/")) {
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify({ id: url.slice(6), name: "Ada" }));
  } else {
    res.writeHead(404);
    res.end("Not Found");
  }
}

const [family, layersArg] = kind.split(":");
const layers = Number(layersArg ?? "0");
const setHeader = family.endsWith("-async");
const names = Array.from({ length: layers }, (_, i) => `x-layer-${i}`);

if (family === "weft-await" || family === "weft-async") {
  const { chain, get, router, serve } = await import("weft");
  const middleware = names.map((name) =>
    setHeader
      ? async (_ctx, next) => {
        const res = await next();
        res.headers.set(name, "1");
        return res;
      }
      : async (_ctx, next) => {
        const res = await next();
        return res;
      }
  );
  const app = chain(
    middleware,
    router([
      get("/", () => new Response("Hello, World!")),
      get("/user/:id", (ctx) => ctx.json({ id: ctx.params.id, name: "Ada" })),
    ]),
  );
  serve(app, { port, hostname: "127.0.0.1", onListen: ready });
} else if (family === "hono-await" || family === "hono-async") {
  const { Hono } = await import("hono");
  const { serve } = await import("@hono/node-server");
  const app = new Hono();
  for (const name of names) {
    app.use(
      setHeader
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
  serve({ fetch: app.fetch, port, hostname: "127.0.0.1" }, ready);
} else if (family === "koa-await" || family === "koa-async") {
  // Koa runs its middleware through koa-compose.
  const { default: Koa } = await import("koa");
  const app = new Koa();
  for (const name of names) {
    app.use(
      setHeader
        ? async (ctx, next) => {
          await next();
          ctx.set(name, "1");
        }
        : async (_ctx, next) => {
          await next();
        },
    );
  }
  app.use((ctx) => {
    const url = ctx.path;
    if (url === "/") ctx.body = "Hello, World!";
    else if (url.startsWith("/user/")) {
      ctx.body = { id: url.slice(6), name: "Ada" };
    } else ctx.status = 404;
  });
  app.listen(port, "127.0.0.1", ready);
} else if (family === "fastify-await" || family === "fastify-async") {
  const { default: Fastify } = await import("fastify");
  const app = Fastify({ logger: false });
  for (const name of names) {
    app.addHook("onRequest", async () => {});
    if (setHeader) {
      // Fastify's async-hook form (a promise instead of done()), as users write it
      // deno-lint-ignore require-await
      app.addHook("onSend", async (_request, reply, payload) => {
        reply.header(name, "1");
        return payload;
      });
    }
  }
  app.get("/", (_request, reply) => {
    reply.send("Hello, World!");
  });
  app.get("/user/:id", (request, reply) => {
    reply.send({ id: request.params.id, name: "Ada" });
  });
  await app.listen({ port, host: "127.0.0.1" });
  ready();
} else if (family === "raw-await") {
  let run = rawHandler;
  for (let i = 0; i < layers; i++) {
    const inner = run;
    run = async (req, res) => {
      await inner(req, res);
    };
  }
  http.createServer(run).listen(port, "127.0.0.1", ready);
} else if (kind === "raw") {
  const server = tls
    ? http2.createSecureServer({
      cert: fixture("cert.pem"),
      key: fixture("key.pem"),
    }, rawHandler)
    : http.createServer(rawHandler);
  server.listen(port, "127.0.0.1", ready);
} else if (kind === "fastify") {
  const { default: Fastify } = await import("fastify");
  const app = Fastify({ logger: false });
  app.addHook("onRequest", async () => {});
  app.addHook("onRequest", async () => {});
  app.get("/", (_request, reply) => {
    reply.send("Hello, World!");
  });
  app.get("/user/:id", (request, reply) => {
    reply.send({ id: request.params.id, name: "Ada" });
  });
  await app.listen({ port, host: "127.0.0.1" });
  ready();
} else if (kind === "hono") {
  const { Hono } = await import("hono");
  const { serve } = await import("@hono/node-server");
  const app = new Hono();
  app.use(async (_c, next) => await next());
  app.use(async (_c, next) => await next());
  app.get("/", (c) => c.text("Hello, World!"));
  app.get("/user/:id", (c) => c.json({ id: c.req.param("id"), name: "Ada" }));
  serve({ fetch: app.fetch, port, hostname: "127.0.0.1" }, ready);
} else if (kind === "weft") {
  const { chain, get, router, serve } = await import("weft");
  const app = chain(
    [(_ctx, next) => next(), (_ctx, next) => next()],
    router([
      get("/", () => new Response("Hello, World!")),
      get("/user/:id", (ctx) => ctx.json({ id: ctx.params.id, name: "Ada" })),
    ]),
  );
  const certs = tls
    ? {
      cert: fixture("cert.pem").toString(),
      key: fixture("key.pem").toString(),
    }
    : {};
  serve(app, { port, hostname: "127.0.0.1", onListen: ready, ...certs });
} else {
  console.error(
    "usage: servers.mjs <raw|fastify|hono|weft|{weft,hono,koa,fastify}-{await,async}:N> <port> [--tls]",
  );
  process.exit(2);
}
