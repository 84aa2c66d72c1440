// Verifies that implementations of the TechEmpower-style workload follow the published rules
// before anything is timed:
//   deno run -A bench/techempower/check.ts [--db sqlite|postgres|both] [--impl weft-deno,…]
// It starts each implementation, requests every test type and reports each violation: the
// status, the Server and Date headers, the exact Content-Type, the body's shape, ids and
// random numbers within 1..10 000, the queries parameter's clamping (1..500, 1 when missing
// or not a number), the fortunes (all rows plus the one added at request time, sorted by
// message, escaped) and that updates are persisted. Exits 1 on any violation.
import postgres from "postgres";
import { startServer } from "../_load.ts";
import { stop } from "../_proc.ts";
import { ADDED_FORTUNE, FORTUNES, openDatabase, WORLD_ROWS } from "./db.mjs";
import {
  available,
  buildNodeTemplate,
  type Engine,
  IMPLEMENTATIONS,
  serverCommand,
  sqliteDatabase,
  startPostgres,
} from "./implementations.ts";

interface World {
  id: number;
  randomNumber: number;
}

/** The violations of the rules by the server at `base`, whose database is at `location`. */
export async function checkServer(
  base: string,
  engine: Engine,
  location: string,
): Promise<string[]> {
  const problems: string[] = [];
  const fail = (path: string, what: string) => problems.push(`${path}: ${what}`);

  async function request(path: string, mime: string, charset?: string): Promise<string | null> {
    const res = await fetch(base + path);
    const body = await res.text();
    if (res.status !== 200) fail(path, `status ${res.status}, expected 200`);
    if (!res.headers.get("server")) fail(path, "no Server header");
    const date = res.headers.get("date");
    if (!date || Number.isNaN(Date.parse(date))) fail(path, `no valid Date header (${date})`);
    const type = res.headers.get("content-type") ?? "";
    const [given, ...params] = type.split(";").map((part) => part.trim().toLowerCase());
    const givenCharset = params.find((p) => p.startsWith("charset="))?.slice(8);
    if (given !== mime) fail(path, `Content-Type ${type}, expected ${mime}`);
    if (charset !== undefined && givenCharset !== charset) {
      fail(path, `Content-Type ${type}, expected charset=${charset}`);
    } else if (givenCharset !== undefined && givenCharset !== "utf-8") {
      fail(path, `Content-Type ${type}: charset must be utf-8`);
    }
    return res.status === 200 ? body : null;
  }

  const json = (path: string, body: string | null): unknown => {
    if (body === null) return undefined;
    try {
      return JSON.parse(body);
    } catch {
      fail(path, `the body is not JSON: ${body.slice(0, 80)}`);
      return undefined;
    }
  };
  const inRange = (n: unknown) =>
    Number.isInteger(n) && (n as number) >= 1 && (n as number) <= WORLD_ROWS;
  const isWorld = (path: string, value: unknown): value is World => {
    const world = value as World;
    const ok = typeof value === "object" && value !== null && !Array.isArray(value) &&
      Object.keys(value).sort().join() === "id,randomNumber" && inRange(world.id) &&
      inRange(world.randomNumber);
    if (!ok) {
      fail(
        path,
        `not a World {id, randomNumber} within 1..${WORLD_ROWS}: ${JSON.stringify(value)}`,
      );
    }
    return ok;
  };
  const worlds = (path: string, value: unknown, count: number): World[] => {
    if (!Array.isArray(value)) {
      if (value !== undefined) fail(path, `expected a JSON array, got ${JSON.stringify(value)}`);
      return [];
    }
    if (value.length !== count) fail(path, `${value.length} worlds, expected ${count}`);
    return value.filter((world) => isWorld(path, world));
  };

  // plaintext and JSON
  const plain = await request("/plaintext", "text/plain");
  if (plain !== null && plain !== "Hello, World!") {
    fail("/plaintext", `body ${JSON.stringify(plain)}`);
  }
  const message = json("/json", await request("/json", "application/json"));
  if (message !== undefined && JSON.stringify(message) !== '{"message":"Hello, World!"}') {
    fail("/json", `body ${JSON.stringify(message)}, expected {"message":"Hello, World!"}`);
  }

  // single query: an object, not an array of one
  for (let i = 0; i < 5; i++) {
    const world = json("/db", await request("/db", "application/json"));
    if (world !== undefined) isWorld("/db", world);
  }

  // multiple queries, with the parameter read as the rules say
  const counts: [string, number][] = [
    ["", 1],
    ["?queries=", 1],
    ["?queries=foo", 1],
    ["?queries=0", 1],
    ["?queries=-1", 1],
    ["?queries=1", 1],
    ["?queries=20", 20],
    ["?queries=500", 500],
    ["?queries=501", 500],
  ];
  for (const [query, count] of counts) {
    const path = `/queries${query}`;
    worlds(path, json(path, await request(path, "application/json")), count);
  }

  // fortunes: every row and the added one, sorted by message, escaped, UTF-8
  const page = await request("/fortunes", "text/html", "utf-8");
  if (page !== null) {
    const expected = [...FORTUNES, ADDED_FORTUNE]
      .sort((a, b) => (a.message < b.message ? -1 : 1))
      .map(({ id, message }) => `${id} ${message}`);
    const flat = page.replace(/\s*\n\s*/g, "");
    if (!/^<!doctype html>/i.test(flat)) fail("/fortunes", "does not start with <!DOCTYPE html>");
    if (!flat.includes("<title>Fortunes</title>")) fail("/fortunes", "no <title>Fortunes</title>");
    if (!flat.includes("<tr><th>id</th><th>message</th></tr>")) fail("/fortunes", "no header row");
    if (page.includes("<script")) fail("/fortunes", "a fortune's <script> is not escaped");
    const rows = [...flat.matchAll(/<tr><td>([^<]*)<\/td><td>([^<]*)<\/td><\/tr>/g)]
      .map(([, id, text]) => `${decode(id)} ${decode(text)}`);
    if (rows.join("\n") !== expected.join("\n")) {
      fail("/fortunes", `rows differ from the expected ones:\n  ${rows.join("\n  ")}`);
    }
  }

  // updates: the parameter as for queries, the new numbers persisted
  const db = await openDatabase(engine, location, postgres);
  try {
    for (const [query, count] of counts.filter(([q]) => q !== "?queries=500")) {
      const path = `/updates${query}`;
      const before = new Map(
        (await db.worlds(range(WORLD_ROWS))).map((w: World) => [w.id, w.randomNumber]),
      );
      const got = worlds(path, json(path, await request(path, "application/json")), count);
      const last = new Map(got.map((w) => [w.id, w.randomNumber]));
      let changed = 0, lost = 0;
      for (const [id, number] of last) {
        const stored = (await db.world(id)).randomNumber;
        if (stored !== number && lost++ < 3) {
          fail(path, `world ${id} answered ${number} but stores ${stored}`);
        }
        if (before.get(id) !== number) changed++;
      }
      if (count >= 20 && changed === 0) fail(path, "no random number changed");
    }
  } finally {
    await db.close();
  }
  return problems;
}

const range = (n: number) => Array.from({ length: n }, (_, i) => i + 1);

function decode(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#\d+|lt|gt|amp|quot|apos);/gi, (_, entity: string) => {
    const name = entity.toLowerCase();
    if (name.startsWith("#x")) return String.fromCodePoint(parseInt(name.slice(2), 16));
    if (name.startsWith("#")) return String.fromCodePoint(Number(name.slice(1)));
    return { lt: "<", gt: ">", amp: "&", quot: '"', apos: "'" }[name]!;
  });
}

/**
 * Starts each implementation against a fresh database of `engine`, checks it, stops it.
 * Returns the violations by implementation, and the implementations that cannot run here.
 */
export async function checkAll(
  names: readonly string[],
  engine: Engine,
  postgresUrl?: string,
): Promise<{ problems: Map<string, string[]>; skipped: string[] }> {
  const { names: usable, skipped } = await available(names, engine);
  if (usable.some((name) => name.endsWith("-node"))) await buildNodeTemplate();
  const sqlite = engine === "sqlite" ? await sqliteDatabase() : undefined;
  const problems = new Map<string, string[]>();
  try {
    for (const name of usable) {
      const location = sqlite ? sqlite.file(name) : postgresUrl!;
      const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
      const port = (listener.addr as Deno.NetAddr).port;
      listener.close();
      const child = await startServer(serverCommand(name, engine, location, port));
      try {
        problems.set(name, await checkServer(`http://127.0.0.1:${port}`, engine, location));
      } finally {
        await stop(child);
      }
    }
  } finally {
    sqlite?.remove();
  }
  return { problems, skipped };
}

if (import.meta.main) {
  const option = (name: string) => {
    const i = Deno.args.indexOf(name);
    return i === -1 ? undefined : Deno.args[i + 1];
  };
  const dbs = option("--db") ?? "both";
  const engines: Engine[] = dbs === "both" ? ["sqlite", "postgres"] : [dbs as Engine];
  const names = option("--impl")?.split(",") ?? [...IMPLEMENTATIONS];
  let failed = false;
  for (const engine of engines) {
    const pg = engine === "postgres" ? await startPostgres() : undefined;
    try {
      const { problems, skipped } = await checkAll(names, engine, pg?.url);
      for (const line of skipped) console.log(`skipped ${line}`);
      for (const [name, list] of problems) {
        console.log(`${list.length === 0 ? "ok  " : "FAIL"} ${name} on ${engine}`);
        for (const problem of list) console.log(`       ${problem}`);
        failed ||= list.length > 0;
      }
    } finally {
      await pg?.stop();
    }
  }
  Deno.exit(failed ? 1 : 0);
}
