// Deno users import Weft by URL. Serve this repository over HTTP on loopback and run an app
// that imports mod.ts by http URL: no module may depend on an import map or a local-only path.
import assert from "node:assert/strict";
import { runChild } from "./_child.ts";
import { withDeadline } from "./_deadline.ts";

const root = new URL("..", import.meta.url);

Deno.test("an app can import mod.ts by http URL and serve requests", async () => {
  const files = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (req) => {
    const path = decodeURIComponent(new URL(req.url).pathname);
    if (path.includes("..")) return new Response("no", { status: 400 });
    try {
      const body = await Deno.readFile(new URL(`.${path}`, root));
      return new Response(body, { headers: { "content-type": "application/typescript" } });
    } catch {
      return new Response("not found", { status: 404 });
    }
  });
  const dir = await Deno.makeTempDir();
  try {
    const base = `http://127.0.0.1:${files.addr.port}`;
    await Deno.writeTextFile(
      `${dir}/app.ts`,
      `import { get, router } from "${base}/mod.ts";\n` +
        `const app = router([get("/hi/:name", (ctx) => ctx.json({ hi: ctx.params.name }))]);\n` +
        `const res = await app.fetch(new Request("http://x/hi/url"));\n` +
        `console.log(JSON.stringify(await res.json()));\n`,
    );
    await Deno.writeTextFile(`${dir}/deno.json`, "{}");
    const { stdout, stderr, success } = await runChild(Deno.execPath(), {
      what: "deno run importing Weft by URL",
      args: [
        "run",
        "--no-lock",
        "--quiet",
        `--allow-import=127.0.0.1:${files.addr.port}`,
        `${dir}/app.ts`,
      ],
      cwd: dir,
    });
    assert.ok(success, new TextDecoder().decode(stderr));
    assert.deepEqual(JSON.parse(new TextDecoder().decode(stdout)), { hi: "url" });
  } finally {
    await withDeadline(files.shutdown(), 10_000, "files.shutdown()");
    await Deno.remove(dir, { recursive: true });
  }
});
