/**
 * A typed client for a Weft app: `client<typeof app>(baseUrl)` gives `get`, `post`, `put`,
 * `patch`, `delete`, `head` and `options`, each taking one of the app's route patterns and that
 * route's input, all checked against the app's type: a path the app has no route for, a missing
 * param, a query or body of the wrong type are compile errors. The answer is typed per status
 * from the route's `describe({ responses })`; an error comes back as RFC 9457 problem details,
 * never as a throw.
 * It runs on `fetch` alone (Deno, Node 18+, browsers, workers), and imports nothing of the
 * server: a browser bundle carries only this module.
 *
 * @example
 * ```ts
 * import { get, router, schema } from "weft";
 * import { describe } from "weft/openapi";
 * import { client } from "weft/client";
 * import assert from "node:assert/strict";
 *
 * const Note = schema.object({ id: schema.integer(), text: schema.string() });
 * const app = router([
 *   get("/notes/:id", [describe({
 *     params: schema.object({ id: schema.integer() }),
 *     responses: { 200: Note },
 *   })], (ctx) => ctx.json({ id: ctx.var.params.id, text: "hi" })),
 * ]);
 *
 * // Over a socket: client<typeof app>("http://localhost:8000"); here through app.fetch.
 * const api = client<typeof app>("http://localhost", { fetch: app.fetch });
 * const res = await api.get("/notes/:id", { params: { id: 7 } });
 * if (res.problem) throw new Error(res.problem.title);
 * assert.equal(res.data.text, "hi"); // res.data: { id: number; text: string }
 *
 * const bad = await api.get("/notes/:id", { params: { id: -1.5 } });
 * assert.equal(bad.problem?.status, 400);
 * ```
 *
 * @module
 */
import type { AnswerAny, CallInput } from "./_call.ts";
import { call } from "./_call.ts";
import type { Client } from "./types.ts";

export type {
  AppRoutes,
  ArrayKeys,
  BodilessResponse,
  BodyInput,
  BothChecks,
  CheckedPart,
  Client,
  ClientArgs,
  ClientInput,
  ClientResponse,
  Combine,
  Data,
  DeclarationOf,
  Declared,
  DeclaredAnswers,
  HeadArgs,
  HeadersInput,
  OptionsArgs,
  Override,
  ParamsInput,
  ParamsOf,
  Part,
  PathsOf,
  ProblemAnswer,
  ProblemDetails,
  QueryInput,
  RouteAt,
  StatusOf,
  Success,
  TextFields,
  TextValue,
  UndeclaredAnswer,
} from "./types.ts";

/** Options of {@linkcode client}: how requests are sent, and what each one carries. */
export interface ClientInit extends Omit<RequestInit, "method" | "body"> {
  /**
   * Sends a request: the global `fetch` by default; `app.fetch` calls an app in the same
   * process, without a socket.
   */
  fetch?: (request: Request) => Promise<Response>;
}

/**
 * Makes the typed client of an app. Paths are the app's own patterns (`"/notes/:id"`), so a
 * call reads like the route it calls; the params fill the pattern (percent-encoded), the query
 * becomes the query string (an array: one key per item), `json` the `application/json` body.
 * An answer in `application/problem+json`, a JSON body that does not parse, and a request that
 * fails or cannot be built (status 0) all resolve to `{ ok: false, problem }`. Only a call that
 * cannot fill its pattern rejects, with a `TypeError` and nothing sent: a param that is missing,
 * empty, `.` or `..`. A query field or header that is `null` is left out, as
 * `undefined` is.
 *
 * @param baseUrl Where the app is served, such as `"http://localhost:8000"` (a path prefix is
 * kept).
 * @param init The `fetch` to send with, and defaults of every request (`headers`,
 * `credentials`…).
 * @returns The client: `get`, `post`, `put`, `patch`, `delete`, `head`, `options`.
 *
 * @example
 * ```ts
 * import { post, router, schema } from "weft";
 * import { describe } from "weft/openapi";
 * import { client } from "weft/client";
 * import assert from "node:assert/strict";
 *
 * const app = router([
 *   post("/notes", [describe({
 *     body: schema.object({ text: schema.string() }),
 *     responses: { 201: schema.object({ text: schema.string() }) },
 *   })], (ctx) => ctx.json({ text: ctx.var.body.text }, { status: 201 })),
 * ]);
 * const api = client<typeof app>("http://localhost", { fetch: app.fetch });
 * const created = await api.post("/notes", { json: { text: "buy milk" } });
 * assert.equal(created.status, 201);
 * assert.deepEqual(created.data, { text: "buy milk" });
 * ```
 */
export function client<A>(baseUrl: string | URL, init: ClientInit = {}): Client<A> {
  const { fetch: send = (request: Request) => fetch(request), ...defaults } = init;
  let base = String(baseUrl);
  while (base.endsWith("/")) base = base.slice(0, -1);
  const method = (name: string) => (path: string, input?: CallInput): Promise<AnswerAny> =>
    call(send, base, defaults, name, path, input);
  return {
    get: method("GET"),
    post: method("POST"),
    put: method("PUT"),
    patch: method("PATCH"),
    delete: method("DELETE"),
    head: method("HEAD"),
    options: method("OPTIONS"),
  } as unknown as Client<A>;
}
