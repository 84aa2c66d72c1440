/**
 * `validate({ params, query, headers })`: typed, checked path params, query and headers for
 * the routes it guards.
 *
 * @module
 */
import type { ObjectSchema, Shape } from "../json/schema.ts";
import type { Infer } from "../json/standard_schema.ts";
import type { Middleware } from "../types.ts";
import { partsCheck, runCheck } from "./_parts.ts";
import { VALIDATES } from "./_validated.ts";

/**
 * The request parts {@linkcode validate} checks, each with a `schema.object()`.
 *
 * @example
 * ```ts
 * import { schema, type ValidatedParts, type ValidateSchemas } from "../../mod.ts";
 *
 * const parts = { query: schema.object({ page: schema.integer() }) } satisfies ValidateSchemas;
 * const vars: ValidatedParts<typeof parts> = { query: { page: 2 } };
 * ```
 */
export interface ValidateSchemas {
  /** The route's path params (`"/notes/:id"` → `{ id: schema.integer() }`). */
  params?: ObjectSchema<Shape>;
  /** The query string; an array field collects a repeated key. */
  query?: ObjectSchema<Shape>;
  /** Request headers, by name (case-insensitive); an array field splits a comma list. */
  headers?: ObjectSchema<Shape>;
}

/** The variables {@linkcode validate} sets: each checked part, typed by its schema. */
export type ValidatedParts<S extends ValidateSchemas> = {
  -readonly [K in keyof S & keyof ValidateSchemas]-?: Infer<NonNullable<S[K]>>;
};

/**
 * What {@linkcode validate} returns: a middleware that sets the checked parts, and (type only)
 * the schemas it checks, which typed clients (`weft/client`) read.
 */
export type Validator<S extends ValidateSchemas> = Middleware<ValidatedParts<S>> & {
  /** Type only: the schemas (never set). */
  readonly "~validates"?: S;
};

/**
 * Reads the route's path params, the query string and request headers through object
 * schemas, and sets the typed results as `ctx.var.params`, `ctx.var.query` and
 * `ctx.var.headers` for the handler after it. Text becomes the field's type by one set of rules
 * (`schema.integer()` accepts `"42"` and refuses `"4.2"`, `"42abc"` and `""`; booleans are
 * `"true"`/`"false"`; an array field takes every value of a repeated query key), then the JSON
 * module's check runs. A request that fails gets a 400 problem whose `errors` list every failing
 * field with its path (`$.limit`) and the reason; the handler does not run. JSON bodies are
 * not coerced (`ctx.decode()`).
 *
 * @param schemas An object schema per request part to check.
 * @returns The middleware; use it per route or in a group.
 * @throws {TypeError} When a part's schema is not a `schema.object()`, or has a field that text
 * cannot hold (an object, a record, a union, `null`, an array of any of these or of arrays),
 * whose check could never pass, or a headers field whose name is not a header name.
 *
 * @example
 * ```ts
 * import { get, router, schema, validate } from "../../mod.ts";
 * import assert from "node:assert/strict";
 *
 * const input = validate({
 *   params: schema.object({ id: schema.integer() }),
 *   query: schema.object({ limit: schema.optional(schema.integer()), tag: schema.array(schema.string()) }),
 * });
 * const app = router([
 *   get("/notes/:id", [input], (ctx) => {
 *     const { id } = ctx.var.params; // number
 *     const { limit = 10, tag } = ctx.var.query;
 *     return ctx.json({ id, limit, tag });
 *   }),
 * ]);
 * const ok = await app.fetch(new Request("http://localhost/notes/7?limit=2&tag=a&tag=b"));
 * assert.deepEqual(await ok.json(), { id: 7, limit: 2, tag: ["a", "b"] });
 *
 * const bad = await app.fetch(new Request("http://localhost/notes/x?limit=4.2"));
 * assert.equal(bad.status, 400);
 * assert.deepEqual((await bad.json()).errors.map((e: { path: string }) => e.path), ["$.id", "$.limit"]);
 * ```
 */
export function validate<const S extends ValidateSchemas>(schemas: S): Validator<S> {
  const check = partsCheck(schemas);
  const middleware: Middleware<ValidatedParts<S>> = function validate(ctx, next) {
    if (check !== undefined) runCheck(check, ctx);
    return next();
  };
  return Object.defineProperty(middleware, VALIDATES, { value: schemas }) as Validator<S>;
}
