/**
 * Starts the demo application on http://localhost:8000 (`deno task start`), with its notes in
 * the SQLite file `notes.db` in the working directory (created on first start, kept across
 * restarts). Environment: `PORT` (8000), `HOST` (every interface), and the demo's own (see
 * `examples/app.ts`); `NOTES_DB` names another file, or `:memory:`. SIGINT and SIGTERM shut the
 * server down (which ends the open event streams), then the topics and the store.
 *
 * @module
 */
import { serve } from "../mod.ts";
import { demoFromEnv } from "./demo.ts";

// What `deno task start` uses where the environment says nothing.
const defaults: Record<string, string> = { NOTES_DB: "notes.db" };
const demo = await demoFromEnv((name) => Deno.env.get(name) ?? defaults[name]);
const port = Number(Deno.env.get("PORT") ?? 8000);
const stop = new AbortController();
console.error(`notes: stored in ${demo.store.kind}`);
const server = serve(demo.app, { port, hostname: Deno.env.get("HOST"), signal: stop.signal });
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  Deno.addSignalListener(signal, () => stop.abort());
}
await server.finished;
await demo.close();
