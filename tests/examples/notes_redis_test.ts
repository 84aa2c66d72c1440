// The scaled demo, as docs/deploying.md runs it: two processes of examples/main.ts on two ports,
// sharing one redis-server (started and stopped by PID here) and one SQLite file. A note created
// through one process reaches an event stream opened on the other, and the other reads it from
// the shared file.
import assert from "node:assert/strict";
import { type ChildHandle, spawnChild } from "../_child.ts";
import { freePort, startRedis } from "../realtime/_redis_server.ts";
import { eventReader } from "./_events.ts";
import { withDeadline } from "../_deadline.ts";

const ROOT = new URL("../..", import.meta.url).pathname;

function startDemo(port: number, env: Record<string, string>): ChildHandle {
  return spawnChild(Deno.execPath(), {
    what: `examples/main.ts on port ${port}`,
    args: ["run", "-A", "examples/main.ts"],
    cwd: ROOT,
    env: { ...env, PORT: String(port), HOST: "127.0.0.1" },
    stdout: "piped",
    stderr: "piped",
    deadlineMs: 120_000,
  });
}

Deno.test({
  name: "two demo processes sharing Redis: a note created on one reaches a feed on the other",
  sanitizeResources: false,
  async fn() {
    const redis = await startRedis();
    const dir = await Deno.makeTempDir();
    const env = { REDIS_URL: redis.url, NOTES_DB: `${dir}/notes.db` };
    const [portA, portB] = [freePort(), freePort()];
    const processes: ChildHandle[] = [];
    try {
      processes.push(startDemo(portA, env), startDemo(portB, env));
      for (const child of processes) {
        await child.waitForOutput("stderr", /Listening on http:\/\/127\.0\.0\.1:\d+\//, {
          ms: 60_000,
          what: "a demo process to listen",
        });
        assert.match(child.output.stderr, /notes: stored in sqlite:.*notes\.db/);
      }

      // 1. A feed on B, subscribed through Redis once its ready event arrives.
      const feed = await withDeadline(
        fetch(`http://127.0.0.1:${portB}/api/feed`),
        10_000,
        "the feed of process B",
      );
      assert.equal(feed.status, 200);
      const events = eventReader(feed.body!);
      try {
        assert.equal((await events.next("B's ready event")).event, "ready");

        // 2. A note created through A's API.
        const created = await withDeadline(
          fetch(`http://127.0.0.1:${portA}/api/me/notes`, {
            method: "POST",
            headers: { authorization: "Bearer demo-token" },
            body: "from process A",
          }),
          10_000,
          "process A to create the note",
        );
        assert.equal(created.status, 201);
        const note = await created.json();
        assert.equal(note.text, "from process A");

        // 3. It reaches B's subscriber, and B reads it from the shared database.
        const message = await events.next("the note on B's feed", (e) => e.event === "message");
        assert.deepEqual(JSON.parse(message.data), note);
        const read = await fetch(`http://127.0.0.1:${portB}/api/notes/${note.id}`);
        assert.deepEqual(await read.json(), note);
        // 4. SIGTERM ends a process even while a client still holds its feed open.
        const { ended } = await processes[1].stop();
        assert.equal(ended, "SIGTERM", processes[1].output.stderr);
      } finally {
        await events.cancel();
      }
    } finally {
      for (const child of processes) await child.stop();
      await redis.stop();
      await Deno.remove(dir, { recursive: true });
    }
  },
});
