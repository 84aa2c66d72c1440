/**
 * `describe({ summary, tags, body, responses, security })`: a route's documentation, declared
 * in its middleware list next to the route.
 *
 * @module
 */
import type { Schema } from "../json/schema.ts";
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
  /** The schema of the JSON request body (`application/json`), required. */
  body?: Schema;
  /** Responses by status: the schema of a JSON body, or a description with an optional schema. */
  responses?: { readonly [status: number]: Schema | ResponseDescription };
  /** `"bearer"`: the route needs `Authorization: Bearer …` (as `auth()` checks), else 401. */
  security?: "bearer";
}

/** The key of the {@linkcode Description} on a `describe()` middleware (non-enumerable). */
export const DESCRIBES: unique symbol = /* @__PURE__ */ Symbol("weft.describes");

/**
 * Declares a route's documentation where the route is written, as a middleware in its list:
 * `get("/notes/:id", [describe({ … }), validate({ … })], handler)`. The middleware itself
 * only calls `next()`: it costs one layer per request and checks nothing; the params, query and
 * headers schemas come from the route's `validate()`, and `openapi()` reads both. In a
 * `group()`'s middleware it applies to every route of the group (a route's own `describe()`
 * wins field by field).
 *
 * @param description Summary, tags, `deprecated`, body and response schemas, security.
 * @returns A middleware that carries the description.
 *
 * @example
 * ```ts
 * import { get, router, schema } from "../../mod.ts";
 * import { describe, openapi } from "./mod.ts";
 * import assert from "node:assert/strict";
 *
 * const Note = schema.object({ id: schema.integer(), text: schema.string() });
 * const routes = [
 *   get("/notes/:id", [describe({ summary: "One note", responses: { 200: Note } })], (ctx) =>
 *     ctx.json({ id: Number(ctx.params.id), text: "hi" })),
 * ];
 * const doc = openapi(routes, { title: "Notes", version: "1.0.0" });
 * assert.equal(doc.paths["/notes/{id}"].get?.summary, "One note");
 * ```
 */
export function describe(description: Description): Middleware {
  const middleware: Middleware = function describe(_ctx, next) {
    return next();
  };
  return Object.defineProperty(middleware, DESCRIBES, { value: description });
}
