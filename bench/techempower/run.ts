// Times the TechEmpower-style workload: Hono on Deno, Fastify on Node, Weft on Node and Weft on
// Deno in one run, in paired rounds (see ../_load.ts; wrk, 1 thread, 64 connections), on each
// test type: /plaintext, /json, /db, /queries?queries=20, /fortunes, /updates?queries=20.
// Every implementation is checked against the rules first (check.ts); a violation stops the
// run. Prints requests/s and server CPU per request, then Weft's ratios to Hono (Deno) and to
// Fastify (Node), taken within each round.
//
//   deno task build:npm && (cd bench/techempower/node && npm ci)
//   deno run -A bench/techempower/run.ts [--db sqlite|postgres|both] [--impl weft-deno,…]
//       [--seconds 5] [--warmup 2] [--rounds 6] [--json out.json]
//
// SQLite: each server gets its own copy of a seeded database file, made fresh each round.
// PostgreSQL: one throwaway cluster (see implementations.ts) for the whole run, shared by the
// servers, which are measured one at a time. On Node 20 node:sqlite is missing, so the Node
// implementations run on PostgreSQL only there.
import { type LoadResult, runLoad } from "../_load.ts";
import { median } from "../_proc.ts";
import { checkAll } from "./check.ts";
import {
  available,
  type Engine,
  IMPLEMENTATIONS,
  type Postgres,
  serverCommand,
  sqliteDatabase,
  startPostgres,
} from "./implementations.ts";

/** The test types, as the paths wrk loads. */
export const TEST_TYPES = [
  "/plaintext",
  "/json",
  "/db",
  "/queries?queries=20",
  "/fortunes",
  "/updates?queries=20",
];

/** The paired ratios of `kind` to `anchor` in `result`, per path: median, min, max. */
export function pairedRatios(
  result: LoadResult,
  kind: string,
  anchor: string,
): Map<string, { median: number; min: number; max: number }> {
  const out = new Map();
  for (const path of result.paths) {
    const own = result.cells[path]?.[kind], base = result.cells[path]?.[anchor];
    if (!own || !base) continue;
    const ratios = own.rps.map((x, r) => x / base.rps[r]);
    out.set(path, { median: median(ratios), min: Math.min(...ratios), max: Math.max(...ratios) });
  }
  return out;
}

/** Checks, then times the implementations on `engine`; returns undefined when none can run. */
export async function runEngine(
  engine: Engine,
  names: readonly string[],
  args: readonly string[],
): Promise<LoadResult | undefined> {
  const { names: usable, skipped } = await available(names, engine);
  for (const line of skipped) console.log(`skipped ${line}`);
  if (usable.length === 0) return undefined;
  let pg: Postgres | undefined;
  const sqlite = engine === "sqlite" ? await sqliteDatabase() : undefined;
  try {
    if (engine === "postgres") pg = await startPostgres();
    const { problems } = await checkAll(usable, engine, pg?.url);
    for (const [name, list] of problems) {
      if (list.length > 0) {
        throw new Error(`${name} on ${engine} breaks the rules:\n  ${list.join("\n  ")}`);
      }
    }
    console.log(`checked ${usable.join(", ")} on ${engine}: every response follows the rules`);
    const jsonAt = args.indexOf("--json");
    const result = await runLoad({
      title: `TechEmpower-style test types on ${engine === "sqlite" ? "SQLite" : "PostgreSQL"}`,
      kinds: usable,
      paths: TEST_TYPES,
      h2: false,
      command: (kind, port) =>
        serverCommand(kind, engine, sqlite ? sqlite.file(kind) : pg!.url, port),
    }, jsonAt === -1 ? args : args.filter((_, i) => i !== jsonAt && i !== jsonAt + 1));
    for (const [subject, anchor] of [["weft-deno", "hono-deno"], ["weft-node", "fastify-node"]]) {
      const ratios = pairedRatios(result, subject, anchor);
      if (ratios.size === 0) continue;
      console.log(`\n${subject} against ${anchor}, req/s ratio per round: median [min–max]`);
      for (const [path, r] of ratios) {
        console.log(
          `  ${path.padEnd(20)} ${r.median.toFixed(3)} [${r.min.toFixed(3)}–${r.max.toFixed(3)}]`,
        );
      }
    }
    return result;
  } finally {
    await pg?.stop();
    sqlite?.remove();
  }
}

if (import.meta.main) {
  const args = Deno.args;
  const option = (name: string) => {
    const i = args.indexOf(name);
    return i === -1 ? undefined : args[i + 1];
  };
  const db = option("--db") ?? "both";
  const engines: Engine[] = db === "both" ? ["sqlite", "postgres"] : [db as Engine];
  const names = option("--impl")?.split(",") ?? [...IMPLEMENTATIONS];
  const results: Record<string, LoadResult> = {};
  for (const engine of engines) {
    const result = await runEngine(engine, names, args);
    if (result) results[engine] = result;
  }
  const out = option("--json");
  if (out !== undefined) await Deno.writeTextFile(out, JSON.stringify(results, null, 2));
}
