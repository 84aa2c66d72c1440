// The demo application: its routes through fetch(), and `deno serve --parallel` with its
// default export over a real socket (through tests/fixtures/parallel_app.ts, which names the
// worker that answers).
import assert from "node:assert/strict";
import app from "../examples/app.ts";
import { client } from "../lib/client/mod.ts";
import { spawnChild } from "./_child.ts";
import { withDeadline } from "./_deadline.ts";

Deno.test("the demo app answers its routes", async () => {
  const home = await app.fetch(new Request("http://localhost/"));
  assert.equal(home.status, 200);
  assert.match(await home.text(), /Weft demo/);
  const hello = await app.fetch(new Request("http://localhost/hello/you"));
  assert.deepEqual(await hello.json(), { hello: "you" });
  // the echo answers bytes as bytes: markup posted by a cross-site form is not a page
  const markup = "<script>alert(document.domain)</script>";
  const echo = await app.fetch(
    new Request("http://localhost/echo", { method: "POST", body: markup }),
  );
  assert.equal(echo.headers.get("content-type"), "application/octet-stream");
  assert.equal(echo.headers.get("x-content-type-options"), "nosniff");
  assert.equal(await echo.text(), markup);
});

const TOKEN = { authorization: "Bearer demo-token" };

Deno.test("the demo app's API: groups, per-route auth with a typed user, a typed query", async () => {
  const fetch = (path: string, init?: RequestInit) =>
    app.fetch(new Request(`http://localhost${path}`, init));
  const notes = await fetch("/api/notes?limit=1");
  assert.equal(notes.status, 200);
  assert.equal(notes.headers.get("access-control-allow-origin"), "*"); // the group's cors()
  assert.match(notes.headers.get("x-request-id") ?? "", /^[0-9a-f-]{36}$/);
  const [first] = await notes.json();
  assert.deepEqual(Object.keys(first), ["id", "author", "text"]); // createdBy never leaks

  for (const bad of ["4.2", "ten", "", "-1", "0", "101"]) { // -1 would be no limit to SQLite
    const res = await fetch(`/api/notes?limit=${bad}`);
    assert.equal(res.status, 400);
    assert.equal((await res.json()).errors[0].path, "$.limit");
  }
  assert.equal((await fetch("/api/notes/x")).status, 400);
  assert.equal((await fetch("/api/notes/1")).status, 200);

  const anonymous = await fetch("/api/me");
  assert.equal(anonymous.status, 401);
  await anonymous.body?.cancel();
  const me = await fetch("/api/me", { headers: TOKEN });
  assert.deepEqual(await me.json(), { name: "demo" });

  const created = await fetch("/api/me/notes", {
    method: "POST",
    headers: TOKEN,
    body: "buy milk",
  });
  assert.equal(created.status, 201);
  const note = await created.json();
  assert.equal(note.author, "demo");
  const mine = await fetch("/api/notes?author=demo");
  assert.ok((await mine.json()).some((n: { id: number }) => n.id === note.id));
});

Deno.test("the demo app through its typed client: typed answers, problems for refusals", async () => {
  const api = client<typeof app>("http://localhost", { fetch: app.fetch });
  const note = await api.get("/api/notes/:id", { params: { id: 1 } });
  assert.ok(!note.problem && note.status === 200);
  assert.equal(note.data.author, "weft"); // typed from describe({ responses: { 200: Note } })
  const notes = await api.get("/api/notes", { query: { author: "weft" } });
  assert.ok(!notes.problem && notes.status === 200);
  assert.deepEqual(notes.data.map((n) => n.id), [1]);
  const bad = await api.get("/api/notes/:id", { params: { id: 1.5 } });
  assert.equal(bad.problem?.status, 400);
  assert.equal(bad.problem?.errors?.[0].path, "$.id");
  const me = await api.get("/api/me", { init: { headers: TOKEN } });
  assert.deepEqual(me.data, { name: "demo" });
});

Deno.test("the demo app's hooks: a not-found page, and a 405 with Allow", async () => {
  const missing = await app.fetch(new Request("http://localhost/nowhere"));
  assert.equal(missing.status, 404);
  assert.equal(missing.headers.get("content-type"), "text/html; charset=utf-8");
  assert.match(await missing.text(), /No page at \/nowhere/);
  const refused = await app.fetch(new Request("http://localhost/api/notes", { method: "DELETE" }));
  assert.equal(refused.status, 405);
  await refused.body?.cancel();
});

function freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const { port } = listener.addr as Deno.NetAddr;
  listener.close();
  return port;
}

const WORKERS = 2;

/** GET `url` over a new connection (so that SO_REUSEPORT may pick any worker), bounded. */
async function getOnce(url: string): Promise<{ status: number; worker: string; body: unknown }> {
  const client = Deno.createHttpClient({ poolMaxIdlePerHost: 0 });
  try {
    const res = await withDeadline(fetch(url, { client }), 5_000, `an answer from ${url}`);
    const body = await withDeadline(res.json(), 5_000, `the body of ${url}`);
    return { status: res.status, worker: res.headers.get("x-worker") ?? "", body };
  } finally {
    client.close();
  }
}

Deno.test("deno serve --parallel runs the demo's default export", async () => {
  const port = freePort();
  const url = `http://127.0.0.1:${port}/hello/parallel`;
  const server = spawnChild(Deno.execPath(), {
    what: "deno serve --parallel",
    args: [
      "serve",
      "--parallel",
      "--allow-net",
      "--allow-env",
      "--allow-read",
      `--host=127.0.0.1`,
      `--port=${port}`,
      "tests/fixtures/parallel_app.ts",
    ],
    cwd: new URL("..", import.meta.url).pathname,
    env: { DENO_JOBS: String(WORKERS) },
    stdout: "null",
    stderr: "piped",
    deadlineMs: 60_000,
  });
  try {
    // 1. The main worker says it listens, and for how many workers.
    const [, threads] = await server.waitForOutput(
      "stderr",
      /Listening on \S+ with (\d+) threads/,
      {
        ms: 30_000,
        what: "deno serve to listen",
      },
    );
    assert.equal(Number(threads), WORKERS);
    // 2. Every worker answers: until then one may still be starting, and a worker stopped
    // while it starts can keep the process from exiting.
    const workers = new Set<string>();
    await withDeadline(
      (async () => {
        while (workers.size < WORKERS) {
          const res = await getOnce(url);
          assert.equal(res.status, 200);
          assert.deepEqual(res.body, { hello: "parallel" });
          workers.add(res.worker);
        }
      })(),
      30_000,
      `answers from ${WORKERS} distinct workers`,
    );
  } finally {
    // 3. SIGTERM ends every worker; SIGKILL after the grace period, and the test fails then.
    const { ended } = await server.stop();
    assert.equal(ended, "SIGTERM", `deno serve did not exit on SIGTERM:\n${server.output.stderr}`);
  }
});

Deno.test("the demo serves its static assets, with an index page, validators and no traversal", async () => {
  const fetch = (path: string, init?: RequestInit) =>
    app.fetch(new Request(`http://localhost${path}`, init));
  const css = await fetch("/static/style.css");
  assert.equal(css.status, 200);
  assert.equal(css.headers.get("content-type"), "text/css; charset=utf-8");
  assert.equal(css.headers.get("cache-control"), "max-age=3600");
  assert.match(await css.text(), /max-width/);
  const etag = css.headers.get("etag")!;
  const again = await fetch("/static/style.css", { headers: { "if-none-match": etag } });
  assert.equal(again.status, 304);

  const index = await fetch("/static/");
  assert.equal(index.status, 200);
  assert.match(await index.text(), /About the Weft demo/);
  const bare = await fetch("/static?x=1");
  assert.equal(bare.status, 308);
  assert.equal(bare.headers.get("location"), "/static/?x=1");
  await bare.body?.cancel();
  for (const path of ["/static/../deno.json", "/static/%2e%2e/deno.json", "/static/nope.css"]) {
    const res = await fetch(path);
    assert.ok(res.status === 404 || res.status === 400, `${path}: ${res.status}`);
    await res.body?.cancel();
  }

  // The pages link them; the notes page's script is a file that carries the page's CSP nonce.
  const login = await (await fetch("/login")).text();
  assert.match(login, /<link rel="stylesheet" href="\/static\/style.css">/);
  const script = await fetch("/static/notes.js");
  assert.match(
    script.headers.get("content-type") ?? "",
    /^(text|application)\/javascript; charset=utf-8$/,
  );
  assert.match(await script.text(), /new EventSource\("\/api\/feed"\)/);
});
