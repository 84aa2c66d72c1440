// Fails when a module of lib/ or wsgi/ other than the runtime adapters touches the runtime
// directly (`Deno.` in code, or a `node:` server module), so the npm build can swap
// lib/server/deno.ts for lib/server/node.ts and nothing else. The Node adapter is split into
// private modules, lib/server/_node_*.ts, which only node.ts imports. Doc comments may use
// Deno.* in examples (they run under `deno test --doc`); build-time tools may use node:fs,
// which both runtimes implement.
//
//   deno run -A scripts/check_runtime_isolation.ts
import { modules } from "./_modules.ts";

const NODE_ADAPTER = /^lib\/server\/(node|_node_[a-z0-9_]+)\.ts$/;
const DENO_ADAPTER = "lib/server/deno.ts";
// Importing a part of the Node adapter from anywhere else would take Node into the Deno build.
const NODE_PART_IMPORT = /from\s+["'][^"']*\/_node_[a-z0-9_]+\.ts["']/;
const FORBIDDEN = [/\bDeno\s*\./, /from\s+["']node:(http|http2|net|tls)["']/, NODE_PART_IMPORT];

/** Lists `file:line: text` for every forbidden use; exported for the test of this script. */
export async function findViolations(root: string): Promise<string[]> {
  const found: string[] = [];
  for await (const relative of modules(root)) {
    if (NODE_ADAPTER.test(relative)) continue;
    const forbidden = relative === DENO_ADAPTER ? [NODE_PART_IMPORT] : FORBIDDEN;
    const lines = (await Deno.readTextFile(`${root}/${relative}`)).split("\n");
    lines.forEach((line, i) => {
      const trimmed = line.trimStart();
      if (trimmed.startsWith("*") || trimmed.startsWith("/*")) return; // doc comments
      const code = line.replace(/\/\/.*$/, "");
      if (forbidden.some((re) => re.test(code))) {
        found.push(`${relative}:${i + 1}: ${line.trim()}`);
      }
    });
  }
  return found;
}

if (import.meta.main) {
  const root = new URL("..", import.meta.url).pathname.replace(/\/$/, "");
  const violations = await findViolations(root);
  if (violations.length > 0) {
    console.error(
      "Only lib/server/deno.ts, lib/server/node.ts and lib/server/_node_*.ts may touch the runtime:",
    );
    for (const v of violations) console.error(`  ${v}`);
    Deno.exit(1);
  }
  console.log("runtime isolation: ok");
}
