// Compile-time checks: params are typed from the pattern. `deno test` type-checks this file,
// and an unused @ts-expect-error would fail the check.
import { get } from "../../mod.ts";
import type { PathParams } from "../../mod.ts";

Deno.test("route params are typed from the pattern", () => {
  get("/users/:id/files/*path", (ctx) => new Response(ctx.params.id + ctx.params.path));
  // @ts-expect-error: "nope" is not a param of this pattern
  get("/users/:id", (ctx) => new Response(ctx.params.nope));
  const params: PathParams<"/a/:x/b/:y"> = { x: "1", y: "2" };
  // @ts-expect-error: y is missing
  const missing: PathParams<"/a/:x/b/:y"> = { x: "1" };
  void params;
  void missing;
});
