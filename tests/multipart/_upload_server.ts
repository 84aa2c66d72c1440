// The server of upload_memory_test.ts, in its own process so that its RSS is the server's
// alone: a multipart upload route that streams each file to a temporary file and reports the
// bytes written, the RSS when the request began and the highest RSS seen while it streamed.
//
//   deno run -A tests/multipart/_upload_server.ts     prints "listening <port>"
import { bodyLimit, chain, post, router, serve } from "../../mod.ts";
import { multipart } from "../../lib/multipart/mod.ts";

const dir = Deno.makeTempDirSync({ prefix: "weft_upload_" });
globalThis.addEventListener("unload", () => Deno.removeSync(dir, { recursive: true }));

const app = chain(
  [bodyLimit(4 * 1024 ** 3, { chunked: "stream" })],
  router([post("/upload", async (ctx) => {
    const baseline = Deno.memoryUsage().rss;
    let peak = baseline;
    let bytes = 0;
    let chunks = 0;
    const meter = new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        bytes += chunk.byteLength;
        if (++chunks % 32 === 0) peak = Math.max(peak, Deno.memoryUsage().rss);
        controller.enqueue(chunk);
      },
    });
    for await (const part of multipart(ctx)) {
      if (part.kind !== "file") continue;
      const file = await Deno.open(`${dir}/${part.filename}`, { write: true, create: true });
      await part.stream.pipeThrough(meter).pipeTo(file.writable);
      Deno.removeSync(`${dir}/${part.filename}`);
    }
    peak = Math.max(peak, Deno.memoryUsage().rss);
    return Response.json({ bytes, baseline, peak });
  })]),
);

serve(app, {
  hostname: "127.0.0.1",
  port: 0,
  onListen: ({ port }) => console.log(`listening ${port}`),
});
