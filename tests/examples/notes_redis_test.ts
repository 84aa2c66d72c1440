// The scaled demo, run by the commands docs/deploying.md gives (read from it): two processes of
// examples/main.ts on two ports, sharing one redis-server (the test's own, started with the
// guide's flags on a free port and stopped by PID) and one SQLite file (the test's own). The
// guide's two curl commands are done with fetch: a note created through one process reaches an
// event stream opened on the other, and the other reads it from the shared file.
import assert from "node:assert/strict";
import { type ChildHandle, spawnChild } from "../_child.ts";
import { freePort, startRedis } from "../realtime/_redis_server.ts";
import { eventReader } from "./_events.ts";
import { withDeadline } from "../_deadline.ts";
import { guideCommands, type ShellCommand } from "../docs/_markdown.ts";

const ROOT = new URL("../..", import.meta.url).pathname;

function startDemo(command: ShellCommand, env: Record<string, string>): ChildHandle {
  const [deno, ...args] = command.words;
  assert.equal(deno, "deno");
  return spawnChild(Deno.execPath(), {
    what: command.source,
    args,
    cwd: ROOT,
    env: { ...command.env, ...env, HOST: "127.0.0.1" },
    stdout: "piped",
    stderr: "piped",
    deadlineMs: 120_000,
  });
}

Deno.test({
  name: "two demo processes sharing Redis: a note created on one reaches a feed on the other",
  sanitizeResources: false,
  async fn() {
    const commands = await guideCommands("docs/deploying.md");
    const redisCommand = commands.find(({ words }) => words[0] === "redis-server");
    assert.deepEqual(redisCommand?.words.slice(3), ["--save", "", "--appendonly", "no"]);
    const demos = commands.filter(({ env, words }) =>
      env.REDIS_URL !== undefined && words.at(-1) === "examples/main.ts"
    );
    assert.equal(demos.length, 2, "docs/deploying.md gives two processes sharing Redis");
    const redis = await startRedis();
    const dir = await Deno.makeTempDir();
    const env = { REDIS_URL: redis.url, NOTES_DB: `${dir}/notes.db` };
    const [portA, portB] = [freePort(), freePort()];
    const processes: ChildHandle[] = [];
    try {
      processes.push(
        startDemo(demos[0], { ...env, PORT: String(portA) }),
        startDemo(demos[1], { ...env, PORT: String(portB) }),
      );
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
