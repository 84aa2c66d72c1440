// docs/deploying.md's Node snippet as a reader runs it: its `file=server.mjs` block is written
// next to this suite's node_modules (where `weft` is the npm build, installed by name), started
// with plain `node` on a free port, asked for a route, and stopped by its PID.
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import assert from "node:assert/strict";
import { test } from "vitest";
import { terminate, withDeadline } from "../_deadline.ts";

const guide = readFileSync(new URL("../../docs/deploying.md", import.meta.url), "utf8");

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer().listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    }).on("error", reject);
  });
}

test("docs/deploying.md: the Node server.mjs serves its route from the npm package", async () => {
  const block = guide.match(/^```js[^\n]*file=server\.mjs\n([\s\S]*?)^```/m);
  assert.ok(block, "docs/deploying.md has no server.mjs block");
  // Inside tests/node, so that `import "weft"` finds node_modules/weft.
  const dir = mkdtempSync(join(fileURLToPath(new URL(".", import.meta.url)), ".docs-"));
  const port = await freePort();
  writeFileSync(join(dir, "server.mjs"), block[1]);
  const child = spawn(process.execPath, ["server.mjs"], {
    cwd: dir,
    env: { ...process.env, PORT: String(port) },
    stdio: ["ignore", "ignore", "pipe"],
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  let stderr = "";
  try {
    await withDeadline(
      new Promise<void>((resolve, reject) => {
        child.stderr!.on("data", (chunk: Buffer) => {
          stderr += chunk;
          if (stderr.includes("Listening on")) resolve();
        });
        child.once("exit", () => reject(new Error(`node server.mjs exited:\n${stderr}`)));
      }),
      20_000,
      "node server.mjs to listen",
    );
    const res = await withDeadline(
      fetch(`http://127.0.0.1:${port}/hello/node`),
      10_000,
      "an answer from server.mjs",
    );
    assert.deepEqual(await res.json(), { hello: "node" });
  } finally {
    await terminate({ kill: (signal) => child.kill(signal), exited }, "node server.mjs", {
      graceMs: 5_000,
    });
    rmSync(dir, { recursive: true, force: true });
  }
});
