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
    budget: 21_000,
    why:
      "every export: core with the router compiler, six middleware, JSON; ~5% headroom; MIME table and " +
      "static-file internals load lazily",
  },
];

/**
 * Bundles `code` (imports resolved from the repository root) with code splitting, as an app's
 * bundler would, and returns the gzipped size of what loads up front (the entry chunk and the
 * chunks it imports statically). Modules behind a dynamic `import()` (the JSON decoder behind
 * `ctx.decode()`) load only when used and are reported as `lazy`.
 */
export async function gzippedSize(
  code: string,
): Promise<{ raw: number; gzip: number; lazy: number }> {
  const root = new URL("..", import.meta.url).pathname;
  const dir = await Deno.makeTempDir();
  try {
    const entry = `${dir}/entry.ts`;
    await Deno.writeTextFile(entry, code.replaceAll('"./', `"${root}`));
    const result = await esbuild.build({
      entryPoints: [entry],
      bundle: true,
      splitting: true,
      outdir: `${dir}/out`,
      absWorkingDir: dir,
      minify: true,
      format: "esm",
      platform: "neutral",
      target: "es2022",
      write: false,
      metafile: true,
      external: ["node:*", "ws"],
      logLevel: "silent",
      // The npm package declares `"sideEffects": false`; bundlers then drop modules whose
      // exports go unused. Tell esbuild the same about the sources measured here.
      plugins: [{
        name: "side-effect-free",
        setup(build) {
          build.onResolve({ filter: /\.ts$/ }, async (args) => {
            if (args.pluginData === "inner") return undefined;
            const resolved = await build.resolve(args.path, {
              kind: args.kind,
              resolveDir: args.resolveDir,
              pluginData: "inner",
            });
            return { ...resolved, sideEffects: resolved.path.startsWith(root) ? false : undefined };
          });
        },
      }],
    });
    const files = new Map(
      result.outputFiles.map((f) => [f.path.slice(dir.length + 1), f.contents]),
    );
    const outputs = result.metafile.outputs;
    const eager = new Set<string>();
    const visit = (name: string) => {
      if (eager.has(name)) return;
      eager.add(name);
      for (const i of outputs[name].imports) if (i.kind === "import-statement") visit(i.path);
    };
    visit(Object.keys(outputs).find((name) => outputs[name].entryPoint !== undefined)!);
    let raw = 0, gzip = 0, lazy = 0;
    for (const [name, bytes] of files) {
      if (eager.has(name)) {
        raw += bytes.byteLength;
        gzip += gzipSync(bytes, { level: 9 }).byteLength;
      } else if (name.endsWith(".js")) lazy += gzipSync(bytes, { level: 9 }).byteLength;
    }
    return { raw, gzip, lazy };
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

if (import.meta.main) {
  let failed = false;
  const rows = [];
  try {
    for (const { name, code, budget, why } of BUDGETS) {
      const { raw, gzip, lazy } = await gzippedSize(code);
      const ok = gzip <= budget;
      failed ||= !ok;
      rows.push({ name, raw, gzip, lazy, budget, ok, why });
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
