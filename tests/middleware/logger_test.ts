import assert from "node:assert/strict";
import {
  chain,
  type Context,
  get,
  HttpError,
  type Middleware,
  post,
  router,
  serve,
} from "../../mod.ts";
import { logger, type LogRecord } from "../../lib/middleware/logger.ts";
import { auth } from "../../lib/middleware/auth.ts";
import { runChild } from "../_child.ts";
import { withDeadline } from "../_deadline.ts";

function capture(format?: "text" | "json") {
  const lines: string[] = [];
  const records: LogRecord[] = [];
  const middleware = logger({
    format,
    sink: (line, record) => {
      lines.push(line);
      records.push(record);
    },
  });
  return { middleware, lines, records };
}

// Keeps the default report of a 500 (console.error) out of the test output.
function quietly<T>(fn: () => Promise<T>): Promise<T> {
  const original = console.error;
  console.error = () => {};
  return fn().finally(() => console.error = original);
}

const routes = router([
  get("/users/:id", (ctx) => ctx.json({ id: ctx.params.id })),
  post("/login", async (ctx) => new Response(`got ${(await ctx.body()).byteLength} bytes`)),
  get("/boom", () => {
    throw new Error("boom");
  }),
  get("/gone", () => {
    throw new HttpError(410, "Gone for good");
  }),
  get("/slow", async () => {
    await new Promise((resolve) => setTimeout(resolve, 30));
    return new Response("slow");
  }),
]);

Deno.test("logger() writes one text line with method, path, status and duration", async () => {
  const { middleware, lines, records } = capture();
  const res = await chain([middleware], routes).fetch(new Request("http://localhost/users/7"));
  await res.body?.cancel();
  assert.equal(lines.length, 1);
  assert.match(
    lines[0],
    /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z GET \/users\/7 200 \d+(\.\d+)?ms$/,
  );
  assert.equal(records[0].method, "GET");
  assert.equal(records[0].path, "/users/7");
  assert.equal(records[0].status, 200);
  assert.ok(!lines[0].includes("\x1b"), "a sink never gets colours");
});

Deno.test("logger() writes JSON lines with exactly time, method, path, status and ms", async () => {
  const { middleware, lines } = capture("json");
  await chain([middleware], routes).fetch(new Request("http://localhost/users/7?x=1"));
  const record = JSON.parse(lines[0]);
  assert.deepEqual(Object.keys(record), ["time", "method", "path", "status", "ms"]);
  assert.equal(new Date(record.time).toISOString(), record.time);
  assert.equal(record.method, "GET");
  assert.equal(record.path, "/users/7");
  assert.equal(record.status, 200);
  assert.equal(typeof record.ms, "number");
  assert.ok(record.ms >= 0);
});

Deno.test("logger() measures the time until the response is ready", async () => {
  const { middleware, records } = capture();
  await chain([middleware], routes).fetch(new Request("http://localhost/slow"));
  assert.ok(records[0].ms >= 25, `${records[0].ms}ms`);
});

Deno.test("logger() never logs the query string, the body, Authorization or cookies", async () => {
  for (const format of ["text", "json"] as const) {
    const { middleware, lines } = capture(format);
    const app = chain([middleware], routes);
    await (await app.fetch(
      new Request("http://localhost/login?password=hunter2&token=hunter3", {
        method: "POST",
        headers: { authorization: "Bearer hunter4", cookie: "session=hunter5" },
        body: "password=hunter6",
      }),
    )).text();
    assert.equal(lines.length, 1);
    assert.ok(!lines[0].includes("hunter"), lines[0]);
    assert.ok(!lines[0].includes("?"), lines[0]);
  }
});

Deno.test("logger() logs responses of later middleware that answered early", async () => {
  const { middleware, records } = capture();
  const app = chain([middleware, auth({ validate: () => null })], routes);
  await (await app.fetch(new Request("http://localhost/users/7"))).body?.cancel();
  assert.equal(records[0].status, 401);
});

Deno.test("logger() logs a thrown error as the 500 it became, an HttpError with its status", async () => {
  await quietly(async () => {
    const { middleware, records } = capture();
    const app = chain([middleware], routes);
    await (await app.fetch(new Request("http://localhost/boom"))).body?.cancel();
    await (await app.fetch(new Request("http://localhost/gone"))).body?.cancel();
    assert.deepEqual(records.map((r) => r.status), [500, 410]);
  });
});

Deno.test("logger() logs 500 and rethrows when next() itself rejects", async () => {
  const { middleware, records } = capture();
  const { Context } = await import("../../mod.ts");
  const ctx = new Context(new Request("http://localhost/raw"));
  await assert.rejects(
    Promise.resolve(middleware(ctx, () => Promise.reject(new Error("broken next")))),
    /broken next/,
  );
  assert.equal(records[0].status, 500);
  assert.equal(records[0].path, "/raw");
});

Deno.test("logger() logs the request as it arrived, even when later middleware replaces it", async () => {
  const rewrite: Middleware = (ctx, next) => {
    ctx.req = new Request("http://localhost/users/rewritten", ctx.req);
    return next();
  };
  const { middleware, records } = capture();
  const res = await chain([middleware, rewrite], routes).fetch(
    new Request("http://localhost/users/original"),
  );
  assert.deepEqual(await res.json(), { id: "rewritten" });
  assert.equal(records[0].path, "/users/original");
});

Deno.test("logger() survives a sink that throws", async () => {
  const app = chain([
    logger({
      sink: () => {
        throw new Error("disk full");
      },
    }),
  ], routes);
  const res = await app.fetch(new Request("http://localhost/users/1"));
  assert.equal(res.status, 200);
  assert.deepEqual(await res.json(), { id: "1" });
});

Deno.test("logger() logs 404 and 405 from the router", async () => {
  const { middleware, records } = capture();
  const app = chain([middleware], routes);
  await (await app.fetch(new Request("http://localhost/nope"))).body?.cancel();
  await (await app.fetch(new Request("http://localhost/users/1", { method: "DELETE" }))).body
    ?.cancel();
  assert.deepEqual(records.map((r) => [r.method, r.path, r.status]), [
    ["GET", "/nope", 404],
    ["DELETE", "/users/1", 405],
  ]);
});

Deno.test("logger() logs a WebSocket upgrade as 101", async () => {
  const { middleware, records } = capture();
  const app = chain(
    [middleware],
    router([
      get("/ws", (ctx) => {
        const { socket, response } = Deno.upgradeWebSocket(ctx.req);
        socket.onopen = () => socket.close(1000, "bye");
        return response;
      }),
    ]),
  );
  const server = serve(app, { port: 0, hostname: "127.0.0.1", onListen: () => {} });
  try {
    const client = new WebSocket(`ws://127.0.0.1:${server.addr.port}/ws`);
    await withDeadline(
      new Promise<void>((resolve, reject) => {
        client.onclose = () => resolve();
        client.onerror = (event) => reject((event as ErrorEvent).error ?? new Error("ws error"));
      }),
      10_000,
      "the WebSocket to be closed by the server",
      { onTimeout: () => client.close() },
    );
    assert.equal(records.length, 1);
    assert.equal(records[0].status, 101);
    assert.equal(records[0].path, "/ws");
  } finally {
    await withDeadline(server.shutdown(), 10_000, "server.shutdown()");
  }
});

Deno.test("logger() escapes control characters in the method and path it logs", async () => {
  for (const format of ["text", "json"] as const) {
    const { middleware, lines, records } = capture(format);
    // What a raw request target can carry once a server decoded it: CR/LF, ESC, DEL, C1 (NEL)
    // and the Unicode line separators.
    const ctx = {
      req: { method: "GET\r\nX" },
      var: {},
      path: "/a\r\n2025-01-01T00:00:00.000Z GET /admin 200 1ms\x1b[2J\x7f\x85\u2028\u2029",
    } as unknown as Context;
    await middleware(ctx, () => Promise.resolve(new Response("ok")));
    assert.equal(records[0].method, "GET\\x0d\\x0aX");
    assert.equal(
      records[0].path,
      "/a\\x0d\\x0a2025-01-01T00:00:00.000Z GET /admin 200 1ms\\x1b[2J\\x7f\\x85\\u2028\\u2029",
    );
    // deno-lint-ignore no-control-regex
    assert.ok(!/[\0-\x1f\x7f-\x9f\u2028\u2029]/.test(lines[0]), JSON.stringify(lines[0]));
  }
});

// Sends `head` as raw bytes to a served app behind logger(); the reply's head and the lines logged.
async function logRaw(head: Uint8Array): Promise<{ reply: string; lines: string[] }> {
  const { middleware, lines } = capture();
  const app = chain([middleware], routes);
  const server = serve(app, { port: 0, hostname: "127.0.0.1", onListen: () => {} });
  try {
    const conn = await Deno.connect({ hostname: "127.0.0.1", port: server.addr.port });
    await conn.write(head);
    const reply = new TextDecoder().decode(await new Response(conn.readable).bytes());
    return { reply, lines };
  } finally {
    await server.shutdown();
  }
}

Deno.test("logger() escapes NEL and U+2028 sent raw in a request target", async () => {
  const encoder = new TextEncoder();
  // UTF-8 for U+0085 (NEL) and U+2028 (LINE SEPARATOR): line breaks to many log viewers.
  const { reply, lines } = await logRaw(
    new Uint8Array([
      ...encoder.encode("GET /users/a"),
      ...[0xc2, 0x85, 0xe2, 0x80, 0xa8],
      ...encoder.encode("b HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n"),
    ]),
  );
  assert.match(reply, /^HTTP\/1\.1 200/);
  assert.equal(lines.length, 1);
  assert.match(lines[0], / GET \/users\/a\\x85\\u2028b 200 /);
});

Deno.test("logger() escapes a right-to-left override sent raw in a request target", async () => {
  // Deno.serve puts the target's raw UTF-8 into the URL as characters: an RLO (U+202E) in the
  // path would make a terminal show the rest of the line reversed ("/users/a" then "002 ..."
  // read backwards), a log line that displays as another request.
  const { reply, lines } = await logRaw(
    new TextEncoder().encode(
      "GET /users/a\u202e\u2066b HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n",
    ),
  );
  assert.match(reply, /^HTTP\/1\.1 /);
  assert.equal(lines.length, 1);
  assert.match(lines[0], / GET \/users\/a\\u202e\\u2066b \d{3} /);
  assert.ok(!/[\u202a-\u202e\u2066-\u2069]/.test(lines[0]), JSON.stringify(lines[0]));
});

Deno.test("logger() rejects unknown options when it is created", () => {
  assert.throws(() => logger({ format: "xml" as "json" }), TypeError);
  assert.throws(() => logger({ sink: "stderr" as unknown as () => void }), TypeError);
  assert.equal(logger().name, "logger");
});

// ---------------------------------------------------------------------------------------------
// The default output, in a child process: stderr piped, or a terminal made by script(1).

const CHILD = new URL("./_logger_child.ts", import.meta.url).pathname;
const hasScript = await runChild("script", { args: ["--version"], deadlineMs: 10_000 })
  .then((output) => output.success, () => false);

async function runLoggerChild(opts: { tty: boolean; noColor: boolean }): Promise<string> {
  const env = Deno.env.toObject();
  delete env.NO_COLOR;
  if (opts.noColor) env.NO_COLOR = "1";
  const deno = [Deno.execPath(), "run", "--allow-env", CHILD];
  const { success, stdout, stderr } = opts.tty
    ? await runChild("script", {
      what: "the logger child on a terminal made by script(1)",
      // script(1) runs the command on a pseudo-terminal and copies it to its stdout.
      args: ["-q", "-e", "-c", deno.map((a) => `'${a}'`).join(" "), "/dev/null"],
      env,
      clearEnv: true,
    })
    : await runChild(deno[0], {
      what: "the logger child",
      args: deno.slice(1),
      env,
      clearEnv: true,
    });
  assert.ok(success, new TextDecoder().decode(stderr));
  return new TextDecoder().decode(opts.tty ? stdout : stderr);
}

Deno.test("logger() writes plain lines to stderr when it is not a terminal", async () => {
  const out = await runLoggerChild({ tty: false, noColor: false });
  const lines = out.trimEnd().split("\n");
  assert.equal(lines.length, 2);
  assert.match(lines[0], /Z GET \/x 200 [\d.]+ms$/);
  assert.match(lines[1], /Z GET \/missing 404 [\d.]+ms$/);
  assert.ok(!out.includes("\x1b"));
  assert.ok(!out.includes("hunter2"));
});

Deno.test({
  name: "logger() colours lines on a terminal",
  ignore: !hasScript,
  async fn() {
    const out = await runLoggerChild({ tty: true, noColor: false });
    assert.ok(out.includes("\x1b[32m200\x1b[0m"), JSON.stringify(out));
    assert.ok(out.includes("\x1b[33m404\x1b[0m"), JSON.stringify(out));
  },
});

Deno.test({
  name: "logger() does not colour a terminal when NO_COLOR is set",
  ignore: !hasScript,
  async fn() {
    const out = await runLoggerChild({ tty: true, noColor: true });
    assert.match(out, /GET \/x 200 [\d.]+ms/);
    assert.ok(!out.includes("\x1b"), JSON.stringify(out));
  },
});
