// An app of routes of every shape, for the OpenAPI tests and the openapi() benchmark.
import { get, type Group, group, post, type Route, schema, validate } from "../../mod.ts";
import { describe } from "../../lib/openapi/mod.ts";

/**
 * An app of `n` routes (a multiple of 5) of every shape: static, params, wildcards, bodies,
 * queries, groups.
 */
export function generatedRoutes(n: number): (Route | Group)[] {
  const Item = schema.object({ id: schema.integer(), name: schema.string() });
  const search = validate({ query: schema.object({ q: schema.optional(schema.string()) }) });
  const out = [];
  for (let i = 0; i * 5 < n; i++) {
    out.push(
      get(
        `/r${i}`,
        [describe({ summary: `Static ${i}`, responses: { 200: Item } })],
        (ctx) => ctx.text("ok"),
      ),
      get(
        `/r${i}/:id`,
        [validate({ params: schema.object({ id: schema.integer() }) })],
        (ctx) => ctx.text("ok"),
      ),
      post(`/r${i}/:id/items`, [
        describe({ body: Item, responses: { 201: Item }, security: "bearer" }),
      ], (ctx) => ctx.text("ok")),
      group(`/g${i}`, [search], [
        get("/files/*path", (ctx) => ctx.text(ctx.params.path)),
        get("/", (ctx) => ctx.text("ok")),
      ]),
    );
  }
  return out;
}
