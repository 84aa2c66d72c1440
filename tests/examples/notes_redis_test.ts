// The scaled demo, run by the commands docs/deploying.md gives (read from it): two processes of
// examples/main.ts on two ports, sharing one redis-server (the test's own, started with the
// guide's flags on a free port and stopped by PID) and one SQLite file (the test's own). The
// guide's two curl commands run as written (on the test's ports): the note created through one
// process reaches the feed opened on the other, and the other reads it from the shared file.
import assert from "node:assert/strict";
import { type ChildHandle, runChild, spawnChild } from "../_child.ts";
import { freePort, startRedis } from "../realtime/_redis_server.ts";
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
    // The guide's one-process command is the same, without Redis and port: tested with them.
    const single = commands.find(({ env }) => Object.keys(env).join() === "NOTES_DB");
    assert.deepEqual(single?.words, demos[0].words);
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

      // 1. The guide's feed on B (curl -N), subscribed through Redis once "ready" arrives.
      const onPorts = (words: string[]) =>
        words.map((word) =>
          word.replace("localhost:8001", `127.0.0.1:${portA}`)
            .replace("localhost:8002", `127.0.0.1:${portB}`)
        );
      const [feedCommand, postCommand] = commands.filter(({ words }) => words[0] === "curl");
      assert.ok(feedCommand.words.includes("localhost:8002/api/feed"), feedCommand.source);
      assert.ok(postCommand.words.includes("localhost:8001/api/me/notes"), postCommand.source);
      const feed = spawnChild("curl", {
        what: feedCommand.source,
        args: ["--max-time", "60", ...onPorts(feedCommand.words.slice(1))],
        stdout: "piped",
        stderr: "piped",
        deadlineMs: 90_000,
      });
      processes.push(feed);
      await feed.waitForOutput("stdout", /event: ready\n/, { ms: 15_000, what: "B's ready event" });

      // 2. The guide's note, created through A's API.
      const created = await runChild("curl", {
        what: postCommand.source,
        args: ["--max-time", "10", "-s", ...onPorts(postCommand.words.slice(1))],
        deadlineMs: 20_000,
      });
      assert.ok(created.success);
      const note = JSON.parse(new TextDecoder().decode(created.stdout));
      assert.equal(note.text, "hello from 8001");

      // 3. It reaches B's subscriber, and B reads it from the shared database.
      const [, data] = await feed.waitForOutput("stdout", /\ndata: (\{.*\})\n\n/, {
        ms: 15_000,
        what: "the note on B's feed",
      });
      assert.deepEqual(JSON.parse(data), note);
      const read = await fetch(`http://127.0.0.1:${portB}/api/notes/${note.id}`);
      assert.deepEqual(await read.json(), note);

      // 4. SIGTERM ends a process even while a client still holds its feed open.
      const { ended } = await processes[1].stop();
      assert.equal(ended, "SIGTERM", processes[1].output.stderr);
    } finally {
      for (const child of processes) await child.stop();
      await redis.stop();
      await Deno.remove(dir, { recursive: true });
    }
  },
});
