// A bundled app still works: the builds that scripts/size_check.ts measures (deno bundle of
// mod.ts; esbuild of the packed npm package, with and without code splitting) serve a small
// decode app over a real socket. ctx.decode() needs the schema's decoder in the bundle, so a
// bundler that dropped it would answer 500 here. The app also echoes over a WebSocket and, on
// Node, answers over h2c: the Node adapter loads the WebSocket handshake (with ws) and the
// HTTP/2 stream writer with dynamic imports, which a bundle must carry too. The Node builds are
// made the usual way, with no `require` banner: ws is in the package as an ES module. A split
// build deployed without three of its lazy chunks (the upgrade handler, the HTTP/2 stream
// server, the static-file engine) answers 500 and says why on standard error, and serves again
// once the chunks are back.
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import * as esbuild from "esbuild";
import { denoBundle, esbuildNode, installPackedWeft, run } from "../../scripts/size_check.ts";

const ROOT = fileURLToPath(new URL("../..", import.meta.url)).replace(/\/$/, "");
const DEADLINE_MS = 20_000;

// The app; `files` is a folder whose a.txt it serves under /files/ (staticFiles() loads its
// engine on the first request).
function app(from: string, files: string): string {
  return `import { chain, get, jsonErrorResponse, post, router, schema, serve, staticFiles, websocket } from "${from}";
const Note = schema.object({ title: schema.string() });
const app = chain([staticFiles({ root: ${JSON.stringify(files)}, prefix: "/files" })], router([
  post("/notes", async (ctx) => {
    const r = await ctx.decode(Note);
    return r.ok ? ctx.json(r.value, { status: 201 }) : jsonErrorResponse(r.error);
  }),
  get("/echo", websocket({
    onMessage(socket, frame) {
      if (frame.type === "text") socket.send("echo: " + frame.text);
    },
  })),
  get("/hello", (ctx) => ctx.text("hello")),
]));
serve(app, { port: 0, hostname: "127.0.0.1", onListen: ({ port }) => console.log("port " + port) });
`;
}

/**
 * Starts `cmd`, waits for the app to print its port, answers the two requests, then stops it;
 * every wait has a deadline, past which the child gets SIGTERM and then SIGKILL.
 */
async function checkServer(
  what: string,
  cmd: string,
  args: string[],
  cwd: string,
  options: { h2c: boolean; missing?: string },
) {
  // Lazy chunks (the upgrade handler, the HTTP/2 stream server, the static-file engine), set
  // aside from the split build in `missing` while the server starts and first serves.
  let setAside: { from: string; to: string }[] = [];
  if (options.missing !== undefined) {
    const dir = options.missing;
    for (const chunk of [LAZY.upgrade, LAZY.streams, LAZY.files]) {
      const name = [...Deno.readDirSync(dir)].map((e) => e.name).find((n) => chunk.test(n));
      assert.ok(name !== undefined, `${what}: no chunk matches ${chunk}`);
      setAside.push({ from: `${dir}/${name}`, to: `${dir}/${name}.aside` });
    }
    for (const { from, to } of setAside) await Deno.rename(from, to);
  }
  const restore = async () => {
    for (const { from, to } of setAside) await Deno.rename(to, from);
    setAside = [];
  };
  const child = new Deno.Command(cmd, {
    args,
    cwd,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const stderr = new Response(child.stderr).text();
  let killed = false;
  let hardKill: ReturnType<typeof setTimeout> | undefined;
  const stop = () => {
    if (killed) return;
    killed = true;
    try {
      child.kill("SIGTERM");
    } catch { /* already exited */ }
    hardKill = setTimeout(() => {
      try {
        child.kill("SIGKILL");
      } catch { /* exited on SIGTERM */ }
    }, 2_000);
  };
  let waitingFor = `${what} to print its port`;
  const timer = setTimeout(stop, DEADLINE_MS);
  try {
    let out = "";
    let port: number | undefined;
    const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
    while (port === undefined) {
      const { done, value } = await reader.read();
      if (done) break;
      out += value;
      const found = /port (\d+)/.exec(out);
      if (found !== null) port = Number(found[1]);
    }
    reader.releaseLock();
    child.stdout.cancel().catch(() => {});
    if (port === undefined) {
      throw new Error(
        `${what} exited or timed out before printing its port:\n${out}${await stderr}`,
      );
    }
    const post = async (body: string) => {
      waitingFor = `${what} to answer POST /notes ${body}`;
      const res = await fetch(`http://127.0.0.1:${port}/notes`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body,
        signal: AbortSignal.timeout(DEADLINE_MS),
      });
      return { status: res.status, body: await res.text() };
    };
    if (setAside.length > 0) {
      // Without the chunks: a 500 problem, the failed load on standard error; with the chunks
      // back, the next upgrade and the next stream load them and are served.
      // (the upgrade pipelined behind a GET, whose answer goes first)
      waitingFor = `${what} to refuse an upgrade without its chunk`;
      const answers = await pipelinedUpgrade(port);
      assert.match(
        answers,
        /^HTTP\/1\.1 200 [^]*\r\n\r\nhelloHTTP\/1\.1 500 [^]*application\/problem\+json[^]*"status":500\}$/,
        what,
      );
      waitingFor = `${what} to refuse an h2c stream without its chunk`;
      const out = await h2cHello(port, " %{http_code} %{content_type}", what);
      assert.match(out, / 500 application\/problem\+json$/, what);
      waitingFor = `${what} to refuse a file without the static-file engine`;
      const file = await fetch(`http://127.0.0.1:${port}/files/a.txt`, {
        signal: AbortSignal.timeout(DEADLINE_MS),
      });
      assert.equal(file.status, 500, what);
      await file.body?.cancel();
      await restore();
    }
    waitingFor = `${what} to serve /files/a.txt`;
    const file = await fetch(`http://127.0.0.1:${port}/files/a.txt`, {
      signal: AbortSignal.timeout(DEADLINE_MS),
    });
    assert.equal(`${file.status} ${await file.text()}`, "200 A", what);
    const created = await post('{"title":"x"}');
    assert.equal(created.status, 201, `${what}: ${created.body}`);
    assert.deepEqual(JSON.parse(created.body), { title: "x" });
    const rejected = await post('{"title":1}');
    assert.equal(rejected.status, 400, `${what}: ${rejected.body}`);
    waitingFor = `${what} to echo over a WebSocket`;
    assert.equal(await echo(port, "hi"), "echo: hi", what);
    if (options.h2c) {
      waitingFor = `${what} to answer GET /hello over h2c`;
      assert.equal(await h2cHello(port, " %{http_version}", what), "hello 2", what);
    }
  } catch (error) {
    if (killed) throw new Error(`Timed out after ${DEADLINE_MS} ms waiting for ${waitingFor}`);
    throw error;
  } finally {
    clearTimeout(timer);
    stop();
    await child.status;
    clearTimeout(hardKill);
    await restore();
  }
  const errors = await stderr;
  if (options.missing !== undefined) {
    for (const part of ["the upgrade handler", "the HTTP/2 stream server"]) {
      assert.match(
        errors,
        new RegExp(`weft: cannot load ${part}: Error \\[ERR_MODULE_NOT_FOUND\\]`),
        `${what}: the failed load of ${part} is reported`,
      );
    }
  }
}

// GET /hello over h2c with curl: the body, then what `writeOut` asks curl to add.
function h2cHello(port: number, writeOut: string, what: string): Promise<string> {
  return run("curl", [
    "--silent",
    "--http2-prior-knowledge",
    "--max-time",
    String(DEADLINE_MS / 1000),
    "--write-out",
    writeOut,
    `http://127.0.0.1:${port}/hello`,
  ], { timeoutMs: DEADLINE_MS, what: `curl of ${what}` });
}

// The lazy chunks of a split build that the test sets aside.
const LAZY = {
  upgrade: /^_node_upgrade-[\w-]+\.js$/,
  streams: /^_node_h2_stream-[\w-]+\.js$/,
  files: /^_static_respond-[\w-]+\.js$/,
};

// GET /hello and a WebSocket upgrade of /echo in one write over a plain socket; what the server
// sends until it closes the connection.
async function pipelinedUpgrade(port: number): Promise<string> {
  const conn = await Deno.connect({ hostname: "127.0.0.1", port });
  try {
    await conn.write(new TextEncoder().encode(
      "GET /hello HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n" +
        "GET /echo HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n" +
        "Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n",
    ));
    let text = "";
    const buffer = new Uint8Array(4096);
    for (;;) {
      const n = await conn.read(buffer);
      if (n === null) break;
      text += new TextDecoder().decode(buffer.subarray(0, n));
    }
    return text;
  } finally {
    conn.close();
  }
}

// Sends one text message over a WebSocket to /echo and resolves with the answer.
function echo(port: number, text: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(`ws://127.0.0.1:${port}/echo`);
    socket.onopen = () => socket.send(text);
    socket.onmessage = (event) => {
      resolve(String(event.data));
      socket.close();
    };
    socket.onerror = () => reject(new Error("The WebSocket failed"));
    socket.onclose = (event) => reject(new Error(`The WebSocket closed with ${event.code}`));
  });
}

Deno.test({
  name:
    "bundles of a decode app answer 201 and 400 and echo over a WebSocket (deno bundle; esbuild for Node, with h2c, no banner)",
  async fn(t) {
    const dir = await Deno.makeTempDir();
    const files = `${dir}/files`;
    await Deno.mkdir(files);
    await Deno.writeTextFile(`${files}/a.txt`, "A");
    try {
      await t.step("deno bundle of the app importing mod.ts", async () => {
        await denoBundle(app(`${ROOT}/mod.ts`, files), `${dir}/deno.js`, { minify: true });
        await checkServer(
          "the deno bundle",
          Deno.execPath(),
          ["run", "-A", `${dir}/deno.js`],
          dir,
          {
            h2c: false,
          },
        );
      });
      const project = await installPackedWeft(dir);
      await t.step("esbuild for Node of the app importing the npm tarball", async () => {
        const outdir = `${dir}/single`;
        const { entry } = await esbuildNode(project, app("weft", files), {
          outdir,
          splitting: false,
          minify: false,
        });
        await checkServer("the esbuild bundle", "node", [entry], outdir, { h2c: true });
      });
      await t.step("esbuild --splitting --minify for Node (what size_check measures)", async () => {
        const outdir = `${dir}/split`;
        const { entry } = await esbuildNode(project, app("weft", files), {
          outdir,
          splitting: true,
          minify: true,
        });
        await checkServer("the split esbuild bundle", "node", [entry], outdir, { h2c: true });
      });
      await t.step("the split bundle deployed without three of its lazy chunks", async () => {
        const outdir = `${dir}/split`;
        const entry = `${outdir}/entry.js`;
        await checkServer("the split bundle without three chunks", "node", [entry], outdir, {
          h2c: true,
          missing: outdir,
        });
      });
    } finally {
      await esbuild.stop();
      await Deno.remove(dir, { recursive: true });
    }
  },
});
