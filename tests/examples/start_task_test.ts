// `deno task start` keeps the notes: the task's own command (read from deno.json), run in an
// empty working directory without NOTES_DB, creates notes.db there on first start, and a note
// added through the API is still there after the process is stopped and started again.
import assert from "node:assert/strict";
import { type ChildHandle, spawnChild } from "../_child.ts";
import { freePort } from "../realtime/_redis_server.ts";

const ROOT = new URL("../..", import.meta.url).pathname;

async function startTask(cwd: string, port: number): Promise<ChildHandle> {
  const config = JSON.parse(await Deno.readTextFile(`${ROOT}deno.json`));
  const [deno, ...args] = (config.tasks.start as string).split(" ");
  assert.equal(deno, "deno");
  assert.equal(args.at(-1), "examples/main.ts");
  const env: Record<string, string> = {
    ...Deno.env.toObject(),
    PORT: String(port),
    HOST: "127.0.0.1",
  };
  delete env.NOTES_DB;
  const child = spawnChild(Deno.execPath(), {
    what: "deno task start",
    args: [...args.slice(0, -1), `${ROOT}examples/main.ts`],
    cwd,
    env,
    clearEnv: true,
    stdout: "piped",
    stderr: "piped",
    deadlineMs: 120_000,
  });
  await child.waitForOutput("stderr", /Listening on http:\/\/127\.0\.0\.1:\d+\//, {
    ms: 60_000,
    what: "the demo to listen",
  });
  return child;
}

Deno.test("deno task start stores the notes in notes.db and keeps them across restarts", async () => {
  const dir = await Deno.makeTempDir();
  const port = freePort();
  const base = `http://127.0.0.1:${port}`;
  let child: ChildHandle | undefined;
  try {
    child = await startTask(dir, port);
    assert.match(child.output.stderr, /notes: stored in sqlite:notes\.db/);
    assert.ok((await Deno.stat(`${dir}/notes.db`)).isFile);
    const created = await fetch(`${base}/api/me/notes`, {
      method: "POST",
      headers: { authorization: "Bearer demo-token" },
      body: "kept across restarts",
    });
    assert.equal(created.status, 201);
    const note = await created.json();
    assert.equal((await child.stop()).ended, "SIGTERM");

    child = await startTask(dir, port);
    const read = await fetch(`${base}/api/notes/${note.id}`);
    assert.deepEqual(await read.json(), note);
    // The seed note went in once, at the first start.
    const all = await (await fetch(`${base}/api/notes?limit=100`)).json();
    assert.deepEqual(all.map((n: { id: number }) => n.id), [1, note.id]);
  } finally {
    await child?.stop();
    await Deno.remove(dir, { recursive: true });
  }
});
