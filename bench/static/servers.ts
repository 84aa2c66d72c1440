// The Deno servers the static-file benchmark compares, one per process (nginx is started by
// run.ts itself):
//   deno run -A bench/static/servers.ts <raw|mem|memh|hono|weft> <port> <root>
// Each serves <root> at "/". Hono has no validators of its own: its `etag()` middleware (which
// hashes the body) answers the 304 case under /etag/. The raw handler is the minimal
// Deno.serve + Deno.stat + Deno.open().readable the issue describes, with a size-mtime ETag.
// `mem` is the ceiling of any Deno handler: every file preloaded, no file-system call and no
// check per request, only the header lookups a static server needs; it sends Content-Type and
// ETag. `memh` is the same with the header list staticFiles() sends (Last-Modified,
// Cache-Control, Accept-Ranges and Content-Length too): the ceiling for that answer, since on
// Deno the four more headers cost 21,000 instructions a request: 36,717 against 57,764 for a
// 1 KiB file (`bench/instructions.ts --static --kinds mem,memh --paths /1k.bin`).
import { Hono } from "hono";
import { etag } from "hono/etag";
import { serveStatic } from "hono/deno";
import { chain, router, serve } from "../../mod.ts";
import { staticFiles } from "../../lib/middleware/static_files.ts";

const [kind, portArg, root] = Deno.args;
const port = Number(portArg);
const listen = { port, hostname: "127.0.0.1", onListen: () => console.log("ready") };

if (kind === "raw") {
  Deno.serve(listen, async (req) => {
    const url = req.url;
    const path = decodeURIComponent(url.slice(url.indexOf("/", 8)));
    if (path.includes("..")) return new Response("Bad Request", { status: 400 });
    const file = root + path;
    let info: Deno.FileInfo;
    try {
      info = await Deno.stat(file);
    } catch {
      return new Response("Not Found", { status: 404 });
    }
    if (!info.isFile) return new Response("Not Found", { status: 404 });
    const tag = `"${info.size.toString(16)}-${info.mtime!.getTime().toString(16)}"`;
    if (req.headers.get("if-none-match") === tag) {
      return new Response(null, { status: 304, headers: { etag: tag } });
    }
    const body = (await Deno.open(file)).readable;
    return new Response(body, {
      headers: { "content-length": String(info.size), etag: tag },
    });
  });
} else if (kind === "mem" || kind === "memh") {
  const files = new Map<
    string,
    { body: Uint8Array<ArrayBuffer>; tag: string; modified: string; length: string }
  >();
  for (const entry of Deno.readDirSync(root)) {
    const path = `${root}/${entry.name}`;
    const body = Deno.readFileSync(path);
    files.set(`/${entry.name}`, {
      body,
      tag: `"${body.length.toString(16)}"`,
      modified: Deno.statSync(path).mtime!.toUTCString(),
      length: String(body.length),
    });
  }
  const more = kind === "memh";
  Deno.serve(listen, (req) => {
    const url = req.url;
    const file = files.get(url.slice(url.indexOf("/", 8)));
    if (file === undefined) return new Response("Not Found", { status: 404 });
    const headers = req.headers;
    if (headers.get("if-none-match") === file.tag) {
      const res = new Response(null, { status: 304 });
      res.headers.append("etag", file.tag);
      return res;
    }
    headers.get("range");
    const res = new Response(file.body);
    res.headers.append("content-type", "application/octet-stream");
    res.headers.append("etag", file.tag);
    if (more) {
      res.headers.append("last-modified", file.modified);
      res.headers.append("cache-control", "max-age=0");
      res.headers.append("accept-ranges", "bytes");
      res.headers.append("content-length", file.length);
    }
    return res;
  });
} else if (kind === "hono") {
  const app = new Hono();
  app.use("/etag/*", etag());
  app.use("/etag/*", serveStatic({ root, rewriteRequestPath: (p) => p.slice(5) }));
  app.use("/*", serveStatic({ root }));
  Deno.serve(listen, app.fetch);
} else if (kind === "weft") {
  serve(chain([staticFiles({ root })], router([])), listen);
} else {
  console.error("usage: servers.ts <raw|mem|memh|hono|weft> <port> <root>");
  Deno.exit(2);
}
