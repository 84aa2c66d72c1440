// The Deno servers the compression benchmark compares, one per process (nginx is started by
// run.ts itself):
//   deno run -A bench/compress/servers.ts <weft|hono|plain> <port> <file> <level>
// Each answers GET /data.json with the JSON text of <file> (read once at start-up, so the
// figure is the compression, not the JSON encoding), compressed by Accept-Encoding: Weft's
// compress() limited to gzip at <level>, Hono's compress() (CompressionStream; gzip at zlib's
// default level 6, which it does not let one change), and `plain` without compression (the
// cost of everything around it).
import { Hono } from "hono";
import { compress as honoCompress } from "hono/compress";
import { chain, get, router, serve } from "../../mod.ts";
import { compress } from "../../lib/middleware/compress.ts";

const [kind, portArg, file, levelArg] = Deno.args;
const port = Number(portArg);
const level = Number(levelArg);
const json = await Deno.readTextFile(file);
const listen = { port, hostname: "127.0.0.1", onListen: () => console.log("ready") };
const answer = () => new Response(json, { headers: { "content-type": "application/json" } });

if (kind === "weft") {
  const app = chain(
    [compress({ encodings: ["gzip"], levels: { gzip: level } })],
    router([get("/data.json", answer)]),
  );
  serve(app, listen);
} else if (kind === "plain") {
  serve(router([get("/data.json", answer)]), listen);
} else if (kind === "hono") {
  const app = new Hono();
  app.use(honoCompress({ encoding: "gzip" }));
  app.get("/data.json", answer);
  Deno.serve(listen, app.fetch);
} else {
  console.error("usage: servers.ts <weft|hono|plain> <port> <file> <level>");
  Deno.exit(2);
}
