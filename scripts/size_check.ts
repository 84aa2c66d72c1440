// Bundle-size budgets, enforced in CI: each entry is bundled with esbuild (minified, ESM,
// tree-shaken) and gzipped; the task fails when a budget is exceeded.
//
//   deno task size            check every budget
//   deno task size --json     print the sizes as JSON
import * as esbuild from "esbuild";
import { gzipSync } from "node:zlib";

/** Budgets in gzipped bytes, in one place. */
export const BUDGETS: readonly { name: string; code: string; budget: number; why: string }[] = [
  {
    name: "core (router, get, chain, serve)",
    code: `export { chain, get, router, serve } from "./mod.ts";`,
    budget: 5_971,
    why: "hono/tiny measured with esbuild 0.28; the aim is 5,000",
  },
  {
    name: "mod.ts (everything)",
    code: `export * from "./mod.ts";`,
    budget: 12_000,
    why: "the core plus the built-in middleware and the JSON module; MIME tables stay out",
  },
];

/** Bundles `code` (resolved from the repository root) and returns its gzipped size. */
export async function gzippedSize(code: string): Promise<{ raw: number; gzip: number }> {
  const root = new URL("..", import.meta.url).pathname;
  const result = await esbuild.build({
    stdin: { contents: code, resolveDir: root, loader: "ts" },
    bundle: true,
    minify: true,
    format: "esm",
    platform: "neutral",
    target: "es2022",
    write: false,
    external: ["node:*", "ws"],
    logLevel: "silent",
  });
  const bytes = result.outputFiles[0].contents;
  return { raw: bytes.byteLength, gzip: gzipSync(bytes, { level: 9 }).byteLength };
}

if (import.meta.main) {
  let failed = false;
  const rows = [];
  try {
    for (const { name, code, budget, why } of BUDGETS) {
      const { raw, gzip } = await gzippedSize(code);
      const ok = gzip <= budget;
      failed ||= !ok;
      rows.push({ name, raw, gzip, budget, ok, why });
    }
  } finally {
    await esbuild.stop();
  }
  if (Deno.args.includes("--json")) console.log(JSON.stringify(rows, null, 2));
  else {
    for (const r of rows) {
      console.log(
        `${
          r.ok ? "ok  " : "OVER"
        } ${r.name}: ${r.gzip} B gzip (${r.raw} B min), budget ${r.budget} B (${r.why})`,
      );
    }
  }
  if (failed) Deno.exit(1);
}
