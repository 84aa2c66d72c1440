// openapi() over 1,000 routes of every shape (static, params, wildcards, validated queries,
// bodies, responses, groups). Issue 26's goal: under 50 ms. The second case adds the
// JSON.stringify that serving the document costs.
import { router } from "../mod.ts";
import { openapi } from "../lib/openapi/mod.ts";
import { generatedRoutes } from "../tests/openapi/_generated.ts";

const app = router(generatedRoutes(1_000));
const info = { title: "Generated", version: "1.0.0" };

Deno.bench({ group: "openapi", name: "openapi() of 1,000 routes", baseline: true }, () => {
  openapi(app, info);
});

Deno.bench({ group: "openapi", name: "openapi() of 1,000 routes + JSON.stringify" }, () => {
  JSON.stringify(openapi(app, info));
});
