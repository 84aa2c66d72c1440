// Fails when a module of lib/ or wsgi/ other than the runtime adapters touches the runtime
// directly (`Deno.` in code, or a `node:` server module), so the npm build can swap
// lib/server/deno.ts for lib/server/node.ts and nothing else. Doc comments may use Deno.* in
// examples (they run under `deno test --doc`); build-time tools may use node:fs, which both
// runtimes implement.
//
//   deno run -A scripts/check_runtime_isolation.ts
const ALLOWED = new Set(["lib/server/deno.ts", "lib/server/node.ts"]);
const FORBIDDEN = [/\bDeno\s*\./, /from\s+["']node:(http|http2|net|tls)["']/];

async function* walk(dir: string): AsyncGenerator<string> {
  for await (const entry of Deno.readDir(dir)) {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory) yield* walk(path);
    else if (entry.name.endsWith(".ts")) yield path;
  }
}

/** Lists `file:line: text` for every forbidden use; exported for the test of this script. */
export async function findViolations(root: string): Promise<string[]> {
  const found: string[] = [];
  for (const dir of ["lib", "wsgi"]) {
    try {
      await Deno.stat(`${root}/${dir}`);
    } catch {
      continue;
    }
    for await (const path of walk(`${root}/${dir}`)) {
      const relative = path.slice(root.length + 1);
      if (ALLOWED.has(relative)) continue;
      const lines = (await Deno.readTextFile(path)).split("\n");
      lines.forEach((line, i) => {
        const trimmed = line.trimStart();
        if (trimmed.startsWith("*") || trimmed.startsWith("/*")) return; // doc comments
        const code = line.replace(/\/\/.*$/, "");
        if (FORBIDDEN.some((re) => re.test(code))) {
          found.push(`${relative}:${i + 1}: ${line.trim()}`);
        }
      });
    }
  }
  return found;
}

if (import.meta.main) {
  const root = new URL("..", import.meta.url).pathname.replace(/\/$/, "");
  const violations = await findViolations(root);
  if (violations.length > 0) {
    console.error("Only lib/server/deno.ts and lib/server/node.ts may touch the runtime:");
    for (const v of violations) console.error(`  ${v}`);
    Deno.exit(1);
  }
  console.log("runtime isolation: ok");
}
