/**
 * The demo application, a team-notes service:
 *
 * - a JSON API in groups with CORS, a typed and validated query, per-route bearer authentication
 *   with a typed user, and its OpenAPI document at `/openapi.json`;
 * - static assets (`examples/public/`, under `/static/`, with an index page);
 * - HTML pages compiled from templates (`examples/templates/`), with a login form, a signed-cookie
 *   session, CSRF protection and security headers with a per-request CSP nonce;
 * - notes stored in SQLite through `node:sqlite` (`NOTES_DB`; in memory by default here, in
 *   `notes.db` under `deno task start`);
 * - a live feed: every new note is published on the `notes` topic and pushed to the event streams
 *   of `/api/feed`, in process, across the workers of `deno serve --parallel`
 *   (`NOTES_TOPICS=broadcast`) or across processes through Redis (`REDIS_URL`).
 *
 * `examples/main.ts` (`deno task start`) serves its own instance, with the notes in `notes.db`;
 * `deno serve --parallel examples/app.ts` serves this module's default export on every core. Try it (`npx -y deno@2.9.6 task start`), then open http://localhost:8000/login
 * (name `demo`, password `demo`), or:
 *
 *     curl localhost:8000/api/notes?limit=1
 *     curl -N localhost:8000/api/feed &
 *     curl -H 'authorization: Bearer demo-token' -d 'buy milk' localhost:8000/api/me/notes
 *
 * Environment: `NOTES_DB` (a SQLite file, created on first start; `:memory:` by default here),
 * `SESSION_SECRET` (at least 32 characters; a fixed demo secret by default, so that every worker
 * and process of the demo verifies the others' cookies), `NOTES_PASSWORD` (the password of
 * `demo`), `REDIS_URL`, `NOTES_TOPICS` (`memory` or `broadcast`).
 *
 * @module
 */
import { demoFromEnv } from "./demo.ts";

export * from "./demo.ts";

/** The demo configured by its environment. */
export const demo = await demoFromEnv();

/** The demo app's router (what `openapi()` documents). */
export const api = demo.api;

/** The demo app. */
export const app = demo.app;

export default app;
