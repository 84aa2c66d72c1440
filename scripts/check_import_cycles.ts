// Fails when the modules of lib/ and wsgi/ import each other in a cycle. Every import counts:
// `import type` and `export … from` too (a type-only cycle still ties two modules together,
// so neither can be read, moved or tested alone), and `import()` (the lazily loaded parts
// must not reach back into what loads them). Types shared by two modules belong in a third,
// internal one that both import.
//
//   deno run -A scripts/check_import_cycles.ts
import { modules } from "./_modules.ts";

/**
 * Cycles known and not yet removed, as the modules that may import each other. An entry that
 * no longer holds a cycle fails the check, so the list only shrinks.
 */
export const KNOWN_CYCLES: readonly (readonly string[])[] = [];
// `from "x"` (import and export), `import "x"` and `import("x")`, once comments are gone.
const SPECIFIER = /\bfrom\s*["']([^"'\n]+)["']|\bimport\s*\(?\s*["']([^"'\n]+)["']/g;

// Block comments (doc examples import the package) and whole-line comments.
function code(source: string): string {
  return source.replace(/\/\*[\s\S]*?\*\//g, "").replace(/^\s*\/\/.*$/gm, "");
}

// `from` relative to the directory of `file`, both relative to the root; null when it leaves it.
function resolve(file: string, specifier: string): string | null {
  const parts = file.split("/").slice(0, -1);
  for (const part of specifier.split("/")) {
    if (part === "..") {
      if (parts.length === 0) return null;
      parts.pop();
    } else if (part !== ".") parts.push(part);
  }
  return parts.join("/");
}

/** The relative imports of every module under `root`'s lib/ and wsgi/, by module path. */
export async function importGraph(root: string): Promise<Map<string, string[]>> {
  const graph = new Map<string, string[]>();
  for await (const file of modules(root)) {
    const targets = new Set<string>();
    for (const match of code(await Deno.readTextFile(`${root}/${file}`)).matchAll(SPECIFIER)) {
      const specifier = match[1] ?? match[2];
      if (!specifier.startsWith(".")) continue; // npm:, node: and package names
      const target = resolve(file, specifier);
      if (target !== null) targets.add(target);
    }
    graph.set(file, [...targets]);
  }
  return graph;
}

/**
 * Every import cycle among the modules under `root`'s lib/ and wsgi/, each as the modules on
 * it with the first repeated at the end; exported for the test of this script.
 */
export async function findCycles(root: string): Promise<string[][]> {
  const graph = await importGraph(root);
  const cycles: string[][] = [];
  const done = new Set<string>();
  const path: string[] = [];
  const onPath = new Set<string>();
  // Depth first; an edge back to a module on the current path closes a cycle.
  function visit(file: string): void {
    path.push(file);
    onPath.add(file);
    for (const target of graph.get(file) ?? []) {
      if (onPath.has(target)) cycles.push([...path.slice(path.indexOf(target)), target]);
      else if (!done.has(target) && graph.has(target)) visit(target);
    }
    path.pop();
    onPath.delete(file);
    done.add(file);
  }
  for (const file of [...graph.keys()].sort()) if (!done.has(file)) visit(file);
  return cycles;
}

/**
 * What the check reports: the cycles outside {@linkcode KNOWN_CYCLES}, and the entries of that
 * list that hold no cycle any more (to be removed from it).
 */
export async function checkCycles(
  root: string,
  known: readonly (readonly string[])[] = KNOWN_CYCLES,
): Promise<{ cycles: string[][]; stale: string[][] }> {
  const all = await findCycles(root);
  const within = (cycle: string[], group: readonly string[]) =>
    cycle.every((file) => group.includes(file));
  return {
    cycles: all.filter((cycle) => !known.some((group) => within(cycle, group))),
    stale: known.filter((group) => !all.some((cycle) => within(cycle, group))).map((g) => [...g]),
  };
}

if (import.meta.main) {
  const root = new URL("..", import.meta.url).pathname.replace(/\/$/, "");
  const { cycles, stale } = await checkCycles(root);
  if (cycles.length > 0) {
    console.error("Modules of lib/ and wsgi/ import each other in a cycle (type imports count):");
    for (const cycle of cycles) console.error(`  ${cycle.join(" → ")}`);
    console.error("Move what both need into a module that both import.");
  }
  if (stale.length > 0) {
    console.error("KNOWN_CYCLES in scripts/check_import_cycles.ts lists cycles that are gone:");
    for (const group of stale) console.error(`  ${group.join(", ")}`);
  }
  if (cycles.length > 0 || stale.length > 0) Deno.exit(1);
  console.log(`import cycles: none beyond the ${KNOWN_CYCLES.length} known`);
}
