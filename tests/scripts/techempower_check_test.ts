// The TechEmpower-style workload's checker (bench/techempower/check.ts) against the SQLite
// variants of the Deno implementations, so that CI proves they follow the published rules,
// and against a deliberately wrong server, so that it is known to catch violations. No
// PostgreSQL here: `deno run -A bench/techempower/check.ts` checks that too.
import assert from "node:assert/strict";
import { chain, get, type Middleware, router, serve } from "../../mod.ts";
import { checkAll, checkServer } from "../../bench/techempower/check.ts";
import { openDatabase, randomId } from "../../bench/techempower/db.mjs";
import { sqliteDatabase } from "../../bench/techempower/implementations.ts";
import { stopAll } from "../../bench/_proc.ts";
import { withDeadline } from "../_deadline.ts";

const TIME_LIMIT_MS = 60_000;

Deno.test("Weft and Hono on Deno, on SQLite, follow the TechEmpower rules", async () => {
  const { problems } = await withDeadline(
    checkAll(["weft-deno", "hono-deno"], "sqlite"),
    TIME_LIMIT_MS,
    "the checker",
    { onTimeout: stopAll },
  );
  assert.deepEqual(Object.fromEntries(problems), { "weft-deno": [], "hono-deno": [] });
});

Deno.test("the checker reports headers, escaping, sorting, clamping and lost updates", async () => {
  const sqlite = await sqliteDatabase();
  const file = sqlite.file("wrong");
  const db = await openDatabase("sqlite", file);
  const server: Middleware = (ctx, next) => {
    if (ctx.path !== "/json") ctx.setHeader("server", "wrong");
    return next();
  };
  const app = chain(
    [server],
    router([
      get("/plaintext", (ctx) => ctx.respond("Hello, World!", "text/html")),
      get("/json", (ctx) => ctx.json({ message: "Hello, World!" })),
      get("/db", async (ctx) => ctx.json([await db.world(randomId())])),
      get("/queries", async (ctx) => {
        // not clamped, and 0 for 0
        const n = Number(ctx.query("queries") ?? 1);
        return ctx.json(await db.worlds(Array.from({ length: Math.max(0, n) }, randomId)));
      }),
      get("/fortunes", async (ctx) => {
        const rows = (await db.fortunes()).map((f) =>
          `<tr><td>${f.id}</td><td>${f.message}</td></tr>`
        );
        return ctx.respond(
          `<!DOCTYPE html><html><head><title>Fortunes</title></head><body><table>` +
            `<tr><th>id</th><th>message</th></tr>${rows.join("")}</table></body></html>`,
          "text/html; charset=utf-8",
        );
      }),
      get("/updates", async (ctx) => {
        const worlds = await db.worlds(Array.from({ length: 20 }, randomId));
        return ctx.json(worlds.map((w) => ({ ...w, randomNumber: randomId() })));
      }),
    ]),
  );
  const listening = serve(app, { port: 0, hostname: "127.0.0.1", onListen: () => {} });
  try {
    const problems = await withDeadline(
      checkServer(`http://127.0.0.1:${listening.addr.port}`, "sqlite", file),
      TIME_LIMIT_MS,
      "the checker",
    );
    const has = (text: string) =>
      assert.ok(
        problems.some((p) => p.includes(text)),
        `expected "${text}" in:\n${problems.join("\n")}`,
      );
    has("/plaintext: Content-Type text/html, expected text/plain");
    has("/json: no Server header");
    has("/db: not a World");
    has("/queries?queries=501: 501 worlds, expected 500");
    has("/queries?queries=0: 0 worlds, expected 1");
    has("/fortunes: a fortune's <script> is not escaped");
    has("/fortunes: rows differ");
    has("/updates?queries=1: 20 worlds, expected 1");
    has("but stores");
  } finally {
    await listening.shutdown();
    await db.close();
    sqlite.remove();
  }
});
