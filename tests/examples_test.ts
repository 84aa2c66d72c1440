// The demo application: its routes through fetch(), and `deno serve --parallel` with its
// default export over a real socket.
import assert from "node:assert/strict";
import app from "../examples/app.ts";

Deno.test("the demo app answers its routes", async () => {
  const home = await app.fetch(new Request("http://localhost/"));
  assert.equal(home.status, 200);
  assert.match(await home.text(), /Weft demo/);
  const hello = await app.fetch(new Request("http://localhost/hello/you"));
  assert.deepEqual(await hello.json(), { hello: "you" });
});

function freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const { port } = listener.addr as Deno.NetAddr;
  listener.close();
  return port;
}

Deno.test("deno serve --parallel runs the demo's default export", async () => {
  const port = freePort();
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "serve",
      "--parallel",
      "--quiet",
      "--allow-net",
      "--allow-env",
      "--allow-read",
      `--host=127.0.0.1`,
      `--port=${port}`,
      "examples/app.ts",
    ],
    cwd: new URL("..", import.meta.url).pathname,
    env: { DENO_JOBS: "2" },
    stdout: "null",
    stderr: "piped",
  }).spawn();
  try {
    let body: unknown;
    for (let attempt = 0; attempt < 100 && body === undefined; attempt++) {
      try {
        const res = await fetch(`http://127.0.0.1:${port}/hello/parallel`);
        body = await res.json();
      } catch {
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
    assert.deepEqual(body, { hello: "parallel" });
  } finally {
    child.kill("SIGTERM");
    await child.stderr.cancel();
    await child.status;
  }
});
