/**
 * `describe({ summary, tags, params, query, headers, body, responses, security })`: a route's
 * documentation and its checked inputs, declared once in its middleware list next to the route.
 *
 * @module
 */
import { PASS } from "../chain.ts";
import { jsonErrorResponse } from "../json/json_error.ts";
import type { ObjectSchema, Schema, Shape } from "../json/schema.ts";
import type { Infer } from "../json/standard_schema.ts";
import { partsCheck, runCheck } from "../middleware/_parts.ts";
import { automaticPreflight } from "../middleware/_preflight.ts";
import type { ValidatedParts } from "../middleware/validate.ts";
import type { Middleware } from "../types.ts";

/** One documented response: a description, and the schema of its JSON body if it has one. */
export interface ResponseDescription {
  /** What the response means; the status's reason phrase by default. */
  description?: string;
  /** The JSON body (`application/json`); none for a response without a body. */
  schema?: Schema;
}

/** What {@linkcode describe} declares about a route. */
export interface Description {
  /** A one-line summary of the operation. */
  summary?: string;
  /** A longer description (CommonMark). */
  description?: string;
  /** A unique name for the operation, which client generators use for method names. */
  operationId?: string;
  /** Tags that group operations in documentation tools. */
  tags?: readonly string[];
  /** The operation is deprecated. */
  deprecated?: boolean;
  /** The route's path params, checked as `validate({ params })` checks them. */
  params?: ObjectSchema<Shape>;
  /** The query string, checked as `validate({ query })` checks it. */
  query?: ObjectSchema<Shape>;
  /** Request headers, checked as `validate({ headers })` checks them. */
  headers?: ObjectSchema<Shape>;
  /** The schema of the JSON request body (`application/json`), required and decoded. */
  body?: Schema;
  /** Responses by status: the schema of a JSON body, or a description with an optional schema. */
  responses?: { readonly [status: number]: Schema | ResponseDescription };
  /** `"bearer"`: the route needs `Authorization: Bearer …` (as `auth()` checks), else 401. */
  security?: "bearer";
}

/**
 * The variables a {@linkcode describe} sets for the handler after it: the checked `params`,
 * `query` and `headers` (as `validate()` sets them) and the decoded `body`, each typed by its
 * schema.
 */
export type DescribedParts<D extends Description> =
  & ValidatedParts<D>
  & (D extends { readonly body: infer B extends Schema } ? { body: Infer<B> }
    : Record<never, never>);

/**
 * What {@linkcode describe} returns: a middleware that checks what the description declares,
 * and (type only) the description, which typed clients (`weft/client`) read.
 */
export type Described<D extends Description> = Middleware<DescribedParts<D>> & {
  /** Type only: the description (never set). */
  readonly "~describes"?: D;
};

/** The key of the {@linkcode Description} on a `describe()` middleware (non-enumerable). */
export const DESCRIBES: unique symbol = /* @__PURE__ */ Symbol("weft.describes");

/**
 * Declares a route where the route is written, as a middleware in its list:
 * `get("/notes/:id", [describe({ … })], handler)`. One declaration drives both the document
 * and the checks, so they cannot drift:
 *
 * - `params`, `query` and `headers` are checked as `validate()` checks them (text coerced to the
 *   field's type; one 400 problem listing every failing field) and set as `ctx.var.params`,
 *   `ctx.var.query` and `ctx.var.headers`;
 * - `body` is read and decoded as `ctx.decode()` does (415 for a Content-Type that is not JSON,
 *   413 over the body limit, a 400 problem from `jsonErrorResponse()` for a body that does not
 *   match) and set as `ctx.var.body`;
 * - the rest (summary, tags, responses, security…) is documentation only.
 *
 * A `describe()` that declares none of the four checked parts is left out of the chain when
 * the route is built: it costs nothing per request. In a `group()`'s middleware it applies to
 * every route of the group (a route's own `describe()` wins field by field in the document, but
 * for `params`, `query` and `headers`, which add up: the group's check and the route's both run).
 *
 * @param description Summary, tags, `deprecated`, the checked parts, response schemas, security.
 * @returns A middleware that checks the declared parts and carries the description.
 * @throws {TypeError} When a response status is not an HTTP status (100 to 599), or a checked
 * part is not a `schema.object()` whose fields text can hold (see `validate()`).
 *
 * @example
 * ```ts
 * import { post, router, schema } from "../../mod.ts";
 * import { describe, openapi } from "./mod.ts";
 * import assert from "node:assert/strict";
 *
 * const Note = schema.object({ id: schema.integer(), text: schema.string() });
 * const routes = [
 *   post("/boards/:board/notes", [describe({
 *     summary: "Add a note",
 *     params: schema.object({ board: schema.integer() }),
 *     body: schema.object({ text: schema.string() }),
 *     responses: { 201: Note },
 *   })], (ctx) => ctx.json({ id: ctx.var.params.board, text: ctx.var.body.text }, { status: 201 })),
 * ];
 * const doc = openapi(routes, { title: "Notes", version: "1.0.0" });
 * assert.equal(doc.paths["/boards/{board}/notes"].post?.summary, "Add a note");
 *
 * const app = router(routes);
 * const headers = { "content-type": "application/json" };
 * const send = (path: string, body: string) =>
 *   app.fetch(new Request(`http://localhost${path}`, { method: "POST", headers, body }));
 * assert.equal((await send("/boards/3/notes", '{"text":"hi"}')).status, 201);
 * assert.equal((await send("/boards/x/notes", '{"text":"hi"}')).status, 400);
 * assert.equal((await send("/boards/3/notes", '{"text":7}')).status, 400);
 * ```
 */
export function describe<const D extends Description>(description: D): Described<D> {
  for (const status of Object.keys(description.responses ?? {})) {
    // an OpenAPI response key is an HTTP status (RFC 9110 §15: three digits, 100 to 599)
    if (!/^[1-5][0-9][0-9]$/.test(status)) {
      throw new TypeError(
        `Cannot describe the route: the response status ${status} is not an HTTP status ` +
          "(100 to 599)",
      );
    }
  }
  const check = partsCheck(description);
  const body = description.body;
  let middleware: Middleware;
  if (body !== undefined) {
    middleware = async function describe(ctx, next) {
      if (check !== undefined) runCheck(check, ctx);
      const result = await ctx.decode(body);
      if (result.ok) (ctx.var as unknown as Record<string, unknown>).body = result.value;
      // a preflight has no body: it goes on as runCheck() lets one go
      else if (!automaticPreflight(ctx)) return jsonErrorResponse(result.error);
      return next();
    };
  } else if (check !== undefined) {
    middleware = function describe(ctx, next) {
      runCheck(check, ctx);
      return next();
    };
  } else {
    middleware = function describe(_ctx, next) {
      return next();
    };
    Object.defineProperty(middleware, PASS, { value: true });
  }
  return Object.defineProperty(middleware, DESCRIBES, { value: description }) as Described<D>;
}
