// The demo under `deno serve --parallel` with two workers, run by the command docs/deploying.md
// gives (read from it: its environment and flags), with three changes: a SQLite file of the
// test's own, a loopback host and a free port, and tests/fixtures/parallel_app.ts in place of
// examples/app.ts (it serves that app and names the worker that answers in `x-worker`). The
// workers share the file and carry the live feed over a BroadcastChannel, so a note created on
// one worker reaches a feed held by the other.
import assert from "node:assert/strict";
import { spawnChild } from "../_child.ts";
import { withDeadline } from "../_deadline.ts";
import { freePort } from "../realtime/_redis_server.ts";
import { eventReader } from "./_events.ts";
import { guideCommands } from "../docs/_markdown.ts";

const ROOT = new URL("../..", import.meta.url).pathname;

/** POSTs a note over a new connection, so that the kernel may hand it to either worker. */
async function createNote(port: number, text: string) {
  const client = Deno.createHttpClient({ poolMaxIdlePerHost: 0 });
  try {
    const res = await withDeadline(
      fetch(`http://127.0.0.1:${port}/api/me/notes`, {
        method: "POST",
        headers: { authorization: "Bearer demo-token" },
        body: text,
        client,
      }),
      10_000,
      "a worker to create a note",
    );
    assert.equal(res.status, 201);
    return { worker: res.headers.get("x-worker"), note: await res.json() };
  } finally {
    client.close();
  }
}

Deno.test({
  name: "deno serve --parallel: a note created on one worker reaches a feed on another",
  sanitizeResources: false,
  async fn() {
    const dir = await Deno.makeTempDir();
    const port = freePort();
    const command = (await guideCommands("docs/deploying.md"))
      .find(({ words }) => words[1] === "serve" && words.includes("--parallel"));
    assert.ok(command, "docs/deploying.md has no deno serve --parallel command");
    const [deno, ...args] = command.words;
    assert.equal(deno, "deno");
    assert.equal(args.pop(), "examples/app.ts");
    assert.equal(command.env.NOTES_TOPICS, "broadcast");
    const server = spawnChild(Deno.execPath(), {
      what: command.source,
      args: [...args, "--host=127.0.0.1", `--port=${port}`, "tests/fixtures/parallel_app.ts"],
      cwd: ROOT,
      env: { ...command.env, DENO_JOBS: "2", NOTES_DB: `${dir}/notes.db` },
      stdout: "null",
      stderr: "piped",
      deadlineMs: 120_000,
    });
    const client = Deno.createHttpClient({ poolMaxIdlePerHost: 0 });
    try {
      await server.waitForOutput("stderr", /Listening on \S+ with 2 threads/, {
        ms: 60_000,
        what: "deno serve to listen",
      });
      // Both workers answer before the test goes on (one may still be starting).
      const workers = new Set<string>();
      await withDeadline(
        (async () => {
          while (workers.size < 2) {
            const res = await fetch(`http://127.0.0.1:${port}/hello/x`, { client });
            await res.body?.cancel();
            workers.add(res.headers.get("x-worker") ?? "");
          }
        })(),
        60_000,
        "answers from both workers",
        { onTimeout: () => console.error(server.output.stderr) },
      );
      const feed = await withDeadline(
        fetch(`http://127.0.0.1:${port}/api/feed`, { client }),
        10_000,
        "the feed",
      );
      const feedWorker = feed.headers.get("x-worker");
      assert.ok(feedWorker);
      const events = eventReader(feed.body!);
      try {
        assert.equal((await events.next("the ready event")).event, "ready");
        // Every note reaches the feed, whichever worker created it; go on until one came from
        // the other worker (each new connection goes to either one: all 40 on one is 2^-40).
        let crossed = false;
        for (let i = 0; i < 40 && !crossed; i++) {
          const { worker, note } = await createNote(port, `note ${i}`);
          const message = await events.next(`note ${i} on the feed`, (e) => e.event === "message");
          assert.deepEqual(JSON.parse(message.data), note);
          crossed = worker !== feedWorker;
        }
        assert.ok(crossed, "no note was created on the other worker");
      } finally {
        await events.cancel();
      }
    } finally {
      client.close();
      const { ended } = await server.stop();
      await Deno.remove(dir, { recursive: true });
      assert.equal(ended, "SIGTERM", server.output.stderr);
    }
  },
});
