// The servers of the multipart upload benchmark, one per process:
//   node bench/node/multipart_servers.mjs <weft|fastify> <port> <dir>
// Each answers POST /upload by streaming every file part of a multipart/form-data body to a
// file under <dir> (removed once written) and replying with the bytes written: Weft's npm
// build with weft/multipart, and Fastify with @fastify/multipart (busboy).
import { createWriteStream, rmSync } from "node:fs";
import { open } from "node:fs/promises";
import { pipeline } from "node:stream/promises";

const [kind, portArg, dir] = process.argv.slice(2);
const port = Number(portArg);
const ready = () => console.log("ready");
let n = 0;

if (kind === "weft") {
  const { bodyLimit, chain, post, router, serve } = await import("weft");
  const { multipart } = await import("weft/multipart");
  const app = chain(
    [bodyLimit(8 * 1024 ** 3, { chunked: "stream" })],
    router([post("/upload", async (ctx) => {
      let bytes = 0;
      for await (const part of multipart(ctx)) {
        if (part.kind !== "file") continue;
        // (a FileHandle written chunk by chunk: Node 20's Writable.toWeb() adapter around a
        // write stream measured three times slower, with twice the memory)
        const path = `${dir}/${++n}`;
        const handle = await open(path, "w");
        try {
          for await (const chunk of part.stream) {
            bytes += chunk.byteLength;
            await handle.write(chunk);
          }
        } finally {
          await handle.close();
        }
        rmSync(path);
      }
      return Response.json({ bytes });
    })]),
  );
  serve(app, { port, hostname: "127.0.0.1", onListen: ready });
} else if (kind === "fastify") {
  const { default: Fastify } = await import("fastify");
  const { default: multipart } = await import("@fastify/multipart");
  const app = Fastify({ bodyLimit: 8 * 1024 ** 3 });
  await app.register(multipart, { limits: { fileSize: 8 * 1024 ** 3 } });
  app.post("/upload", async (req) => {
    let bytes = 0;
    for await (const part of req.parts()) {
      if (part.type !== "file") continue;
      const path = `${dir}/${++n}`;
      part.file.on("data", (c) => bytes += c.byteLength);
      await pipeline(part.file, createWriteStream(path));
      rmSync(path);
    }
    return { bytes };
  });
  await app.listen({ port, host: "127.0.0.1" });
  ready();
} else {
  console.error("usage: multipart_servers.mjs <weft|fastify> <port> <dir>");
  process.exit(2);
}
