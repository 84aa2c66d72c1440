// Topics across the workers of `deno serve --parallel` (the case of a broadcast that reached
// only the clients of the worker that sent it): event-stream clients spread over the workers
// all receive every message, whichever worker published it, in order per publisher.
import assert from "node:assert/strict";
import http from "node:http";
import { spawnChild } from "../_child.ts";
import { eventually, withDeadline } from "../_deadline.ts";
import { openHttp1, type SsePeer } from "../conformance/_sse_peer.ts";
import { freePort } from "./_redis_server.ts";

const WORKERS = 2;
const MESSAGES = 40;

Deno.test("broadcastChannelTransport() shares topics between deno serve --parallel workers", async () => {
  const port = freePort();
  const server = spawnChild(Deno.execPath(), {
    what: "deno serve --parallel",
    args: [
      "serve",
      "--parallel",
      "--allow-net",
      "--host=127.0.0.1",
      `--port=${port}`,
      "tests/fixtures/topics_parallel_app.ts",
    ],
    cwd: new URL("../..", import.meta.url).pathname,
    env: { DENO_JOBS: String(WORKERS) },
    stdout: "null",
    stderr: "piped",
    deadlineMs: 120_000,
  });
  const base = `http://127.0.0.1:${port}`;
  const clients: SsePeer[] = [];
  try {
    await server.waitForOutput("stderr", /Listening on \S+ with \d+ threads/, {
      ms: 30_000,
      what: "deno serve to listen",
    });
    // 1. Event-stream clients until both workers hold some (connections spread by the kernel).
    const workers = new Set<string>();
    await withDeadline(
      (async () => {
        while (workers.size < WORKERS || clients.length < 6) {
          const client = await openHttp1(`${base}/feed`);
          clients.push(client);
          await client.until(
            "the hello event",
            () => client.parser.events.length === 1,
          );
          workers.add(client.parser.events[0].data);
        }
      })(),
      60_000,
      "clients on every worker",
    );
    // 2. Messages published through whichever worker takes each request.
    const publishers = new Set<string>();
    for (let i = 0; i < MESSAGES; i++) {
      publishers.add(
        await withDeadline(
          publish(`${base}/publish`, String(i)),
          10_000,
          "a publish",
        ),
      );
    }
    // 3. Every client has every message once, in order per publisher.
    await eventually(
      "every client to receive every message",
      () => clients.every((client) => client.parser.events.length === MESSAGES + 1),
      20_000,
    );
    for (const client of clients) {
      const messages = client.parser.events.slice(1).map((event) => event.data.split(" "));
      const numbers = messages.map(([, n]) => Number(n));
      assert.deepEqual([...numbers].sort((x, y) => x - y), [
        ...Array(MESSAGES).keys(),
      ]);
      for (const publisher of publishers) {
        const own = messages.filter(([worker]) => worker === publisher).map((
          [, n],
        ) => Number(n));
        assert.deepEqual(
          own,
          [...own].sort((x, y) => x - y),
          "order per publisher",
        );
      }
    }
    assert.equal(workers.size, WORKERS);
    assert.equal(
      publishers.size,
      WORKERS,
      "messages were published through every worker",
    );
  } finally {
    for (const client of clients) client.close();
    await server.stop();
  }
});

// A POST on a connection of its own (fetch would reuse one, and so reach one worker only).
function publish(url: string, body: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const request = http.request(
      url,
      { method: "POST", agent: false },
      (response) => {
        let text = "";
        response.on("data", (chunk) => text += chunk);
        response.on("end", () => resolve(text));
        response.on("error", reject);
      },
    );
    request.on("error", reject);
    request.end(body);
  });
}
