// Reading the params, query and headers of a request through object schemas: the run-time
// check of validate() and of describe({ params, query, headers }), written once.
import { type FieldError, type PartReader, partReader } from "../_coerce.ts";
import type { Context } from "../context.ts";
import { HttpError } from "../http/http_error.ts";
import { automaticPreflight } from "./_preflight.ts";

/**
 * Prepares the check of the parts `schemas` names (`undefined` when it names none). The check
 * sets `ctx.var.params`, `ctx.var.query` and `ctx.var.headers` to the typed values, or throws
 * one 400 `HttpError` whose `errors` list every failing field of every part.
 */
export function partsCheck(
  schemas: { params?: unknown; query?: unknown; headers?: unknown },
): ((ctx: Context) => void) | undefined {
  const params = schemas.params === undefined ? undefined : partReader("params", schemas.params);
  const query = schemas.query === undefined ? undefined : partReader("query", schemas.query);
  const headers = schemas.headers === undefined
    ? undefined
    : partReader("headers", schemas.headers, true);
  if (params === undefined && query === undefined && headers === undefined) return undefined;
  return function check(ctx) {
    // Every part is read before any fails, so that one 400 lists every failing field.
    const results: [string, ReturnType<PartReader>][] = [];
    if (params !== undefined) {
      const record = ctx.params as Record<string, string | undefined>;
      results.push(["params", params((key) => record[key] === undefined ? [] : [record[key]])]);
    }
    if (query !== undefined) {
      const url = ctx.req.url;
      const start = url.indexOf("?");
      const search = new URLSearchParams(start === -1 ? "" : url.slice(start + 1));
      results.push(["query", query((key) => search.getAll(key), search.keys())]);
    }
    if (headers !== undefined) {
      const request = ctx.req.headers;
      results.push([
        "headers",
        headers((key) => {
          const value = request.get(key);
          return value === null ? [] : [value];
        }),
      ]);
    }
    const errors: FieldError[] = [];
    for (const [, result] of results) if ("errors" in result) errors.push(...result.errors);
    if (errors.length > 0) {
      throw new HttpError(400, "The request is not valid", { problem: { errors } });
    }
    // A part an earlier check set (a group's validate()) keeps its fields: every check of a part
    // runs, and the handler's type has the fields of all of them.
    const vars = ctx.var as unknown as Record<string, Record<string, unknown> | undefined>;
    for (const [part, result] of results) {
      const value = (result as { value: Record<string, unknown> }).value;
      const earlier = vars[part];
      vars[part] = earlier === undefined ? value : { ...earlier, ...value };
    }
  };
}

/**
 * Runs `check`. A CORS preflight that fails it (it carries none of the request's headers or
 * body) goes on when the router answers it itself ({@linkcode automaticPreflight}), so that a
 * group's checks do not refuse the router's automatic answer to it.
 */
export function runCheck(check: (ctx: Context) => void, ctx: Context): void {
  try {
    check(ctx);
  } catch (error) {
    if (!automaticPreflight(ctx)) throw error;
  }
}
