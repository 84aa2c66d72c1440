// The app the fuzzer and the soak test drive, written once in plain JavaScript so that Node 20
// runs it without a TypeScript step: tests/fuzz/serve_deno.ts serves it with mod.ts on Deno,
// tests/node/fuzz_server.mjs with the npm build on Node. It uses what users combine: a router
// with params and trailingSlash "redirect", logger() to a sink, cors(), auth() on one route,
// bodyLimit(), ctx.decode() with a schema, staticFiles() and websocket().

/** The bearer token /private accepts. */
export const TOKEN = "fuzz-t0k3n";

/** The body limit, small so that 413 is easy to reach. */
export const BODY_LIMIT = 64 * 1024;

/** Paths whose handlers throw on purpose: their 500 is expected, any other 5xx is a finding. */
export const THROWING_PATHS = ["/throw"];

/**
 * Builds the app.
 *
 * @param {typeof import("../../mod.ts")} weft The module under test (mod.ts or the npm build).
 * @param {{ root: string, onLog?: (line: string) => void }} options The static root and a log sink.
 * @returns {import("../../mod.ts").App}
 */
export function fuzzApp(weft, options) {
  const {
    auth,
    bearerTokens,
    bodyLimit,
    chain,
    cors,
    del,
    get,
    json,
    jsonErrorResponse,
    logger,
    post,
    put,
    router,
    schema,
    staticFiles,
    websocket,
  } = weft;
  const order = schema.object({
    id: schema.number(),
    item: schema.string(),
    tags: schema.array(schema.string()),
  });
  const requireToken = auth({ validate: bearerTokens([TOKEN]), realm: "fuzz" });
  const onLog = options.onLog ?? (() => {});
  return chain(
    [
      logger({ format: "json", sink: onLog }),
      cors(),
      bodyLimit(BODY_LIMIT),
      staticFiles({ root: options.root, prefix: "/static" }),
    ],
    router([
      get("/", () => new Response("weft fuzz")),
      get("/hello/:name", (ctx) => ctx.json({ hello: ctx.params.name })),
      get("/users/:id/posts/:post", (ctx) => ctx.json(ctx.params)),
      get("/files/*path", (ctx) => ctx.json({ path: ctx.params.path })),
      get("/dir/", () => new Response("a directory")),
      get("/private", (ctx) => requireToken(ctx, () => Promise.resolve(ctx.json({ ok: true })))),
      post("/decode", async (ctx) => {
        const result = await ctx.decode(order);
        if (!result.ok) return jsonErrorResponse(result.error);
        return new Response(json.encode(result.value), {
          headers: { "content-type": "application/json" },
        });
      }),
      post("/echo", async (ctx) => new Response(await ctx.body())),
      put("/echo", async (ctx) => new Response(await ctx.body())),
      del("/hello/:name", () => new Response(null, { status: 204 })),
      get("/throw", () => {
        throw new Error("thrown on purpose");
      }),
      get("/slow", async () => {
        await new Promise((resolve) => setTimeout(resolve, 20));
        return new Response("slow");
      }),
      get("/stream", () => {
        let sent = 0;
        return new Response(
          new ReadableStream({
            async pull(controller) {
              await new Promise((resolve) => setTimeout(resolve, 5));
              if (sent++ === 3) controller.close();
              else controller.enqueue(new TextEncoder().encode(`chunk ${sent}\n`));
            },
          }),
        );
      }),
      get(
        "/ws",
        websocket({
          onMessage(socket, frame) {
            if (frame.type === "text") socket.send(frame.text);
            else if (frame.type === "binary") socket.send(frame.data);
          },
        }),
      ),
    ], { trailingSlash: "redirect" }),
  );
}
