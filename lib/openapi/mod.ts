/**
 * OpenAPI 3.1 from the routes: `describe()` declares a route's documentation next to it, and
 * `openapi(app, info)` writes the document from the routes, their `validate()` schemas and
 * their descriptions. Serving it is one route: `get("/openapi.json", (ctx) => ctx.json(doc))`.
 *
 * @example
 * ```ts
 * import { get, router, schema } from "../../mod.ts";
 * import { describe, openapi } from "./mod.ts";
 * import assert from "node:assert/strict";
 *
 * const Health = schema.object({ ok: schema.boolean() });
 * const app = router([
 *   get("/health", [describe({ summary: "Liveness", responses: { 200: Health } })], (ctx) =>
 *     ctx.json({ ok: true })),
 *   get("/openapi.json", (ctx): Response => ctx.json(openapi(app, { title: "Demo", version: "1.0.0" }))),
 * ]);
 * const res = await app.fetch(new Request("http://localhost/openapi.json"));
 * assert.equal((await res.json()).paths["/health"].get.summary, "Liveness");
 * ```
 *
 * @module
 */
export {
  describe,
  type Described,
  type DescribedParts,
  type Description,
  type ResponseDescription,
} from "./describe.ts";
export {
  openapi,
  type OpenApiDocument,
  type OpenApiInfo,
  type OpenApiOperation,
  type OpenApiValue,
} from "./openapi.ts";
