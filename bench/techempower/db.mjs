// @ts-self-types="./db.d.ts"
// The TechEmpower-style workload's data, shared by every implementation (Deno and Node):
// the World table (10 000 rows, random numbers 1..10 000) and the Fortune table (the 12 rows
// the published rules give), stored in SQLite through node:sqlite or in PostgreSQL through the
// `postgres` driver. Each implementation opens the database with openDatabase() and runs the
// same queries through it, so the frameworks differ only in their HTTP and rendering layers.
//
//   openDatabase("sqlite", "/path/to/file.db")
//   openDatabase("postgres", "postgres://…", postgres)
// The `postgres` driver is passed in by the caller, which resolves it: Deno from deno.json's
// imports, Node from node/package.json.

/** The Fortune table's rows, as the rules give them. */
export const FORTUNES = [
  { id: 1, message: "fortune: No such file or directory" },
  { id: 2, message: "A computer scientist is someone who fixes things that aren't broken." },
  { id: 3, message: "After enough decimal places, nobody gives a damn." },
  { id: 4, message: "A bad random number generator: 1, 1, 1, 1, 1, 4.33e+67, 1, 1, 1" },
  { id: 5, message: "A computer program does what you tell it to do, not what you want it to do." },
  { id: 6, message: "Emacs is a nice operating system, but I prefer UNIX. — Tom Christaensen" },
  { id: 7, message: "Any program that runs right is obsolete." },
  { id: 8, message: "A list is only as strong as its weakest link. — Donald Knuth" },
  { id: 9, message: "Feature: A bug with seniority." },
  { id: 10, message: "Computers make very fast, very accurate mistakes." },
  {
    id: 11,
    message: '<script>alert("This should not be displayed in a browser alert box.");</script>',
  },
  { id: 12, message: "フレームワークのベンチマーク" },
];

/** The row every fortunes response adds at request time. */
export const ADDED_FORTUNE = { id: 0, message: "Additional fortune added at request time." };

/** Rows of the World table. */
export const WORLD_ROWS = 10_000;

/** A random World id, 1..10 000. */
export const randomId = () => 1 + Math.floor(Math.random() * WORLD_ROWS);

/** The `queries` parameter as the rules read it: missing or not a number is 1; 1..500. */
export function queryCount(value) {
  const n = Number.parseInt(value ?? "", 10);
  return Number.isNaN(n) || n < 1 ? 1 : n > 500 ? 500 : n;
}

/** The fortunes of the table plus the added one, sorted by message. */
export function withAddedFortune(rows) {
  const all = rows.map((row) => ({ id: row.id, message: row.message }));
  all.push(ADDED_FORTUNE);
  return all.sort((a, b) => (a.message < b.message ? -1 : a.message > b.message ? 1 : 0));
}

/**
 * Opens the database: "sqlite" with a file path, "postgres" with a connection URL. Every
 * method returns a promise, whatever the engine.
 */
export function openDatabase(kind, location, postgres) {
  if (kind === "sqlite") return openSqlite(location);
  if (kind === "postgres") return Promise.resolve(openPostgres(location, postgres));
  return Promise.reject(new Error(`unknown database ${kind}: sqlite or postgres`));
}

async function openSqlite(file) {
  const { DatabaseSync } = await import("node:sqlite");
  const db = new DatabaseSync(file);
  const worldById = db.prepare("SELECT id, randomNumber FROM World WHERE id = ?");
  const allFortunes = db.prepare("SELECT id, message FROM Fortune");
  const setNumber = db.prepare("UPDATE World SET randomNumber = ? WHERE id = ?");
  const read = (id) => {
    const row = worldById.get(id);
    return { id: row.id, randomNumber: row.randomNumber };
  };
  return {
    world: (id) => Promise.resolve(read(id)),
    worlds: (ids) => Promise.resolve(ids.map(read)),
    fortunes: () => Promise.resolve(allFortunes.all()),
    update(worlds) {
      db.exec("BEGIN");
      try {
        for (const [id, number] of lastNumbers(worlds)) setNumber.run(number, id);
        db.exec("COMMIT");
      } catch (error) {
        db.exec("ROLLBACK");
        throw error;
      }
      return Promise.resolve();
    },
    close: () => Promise.resolve(db.close()),
  };
}

function openPostgres(url, postgres) {
  const sql = postgres(url, { max: 4, onnotice: () => {} });
  const read = async (id) => {
    const [row] = await sql`SELECT id, randomnumber FROM world WHERE id = ${id}`;
    return { id: row.id, randomNumber: row.randomnumber };
  };
  return {
    world: read,
    // one query per id, as the rules ask (no IN (…)); the driver pipelines them
    worlds: (ids) => Promise.all(ids.map(read)),
    fortunes: () => sql`SELECT id, message FROM fortune`,
    async update(worlds) {
      // one statement for the batch, in id order so that concurrent batches cannot deadlock
      const rows = [...lastNumbers(worlds)].sort((a, b) => a[0] - b[0]);
      await sql`UPDATE world SET randomnumber = (v.n)::int FROM (VALUES ${sql(rows)}) AS v (id, n)
        WHERE world.id = (v.id)::int`;
    },
    close: () => sql.end({ timeout: 5 }),
  };
}

// id → the number its last occurrence in the response carries (ids may repeat in a request)
function lastNumbers(worlds) {
  const numbers = new Map();
  for (const world of worlds) numbers.set(world.id, world.randomNumber);
  return numbers;
}

/** Creates the tables and loads the standard contents (World numbers at random). */
export async function seed(kind, location, postgres) {
  const numbers = Array.from({ length: WORLD_ROWS }, (_, i) => [i + 1, randomId()]);
  if (kind === "sqlite") {
    const { DatabaseSync } = await import("node:sqlite");
    const db = new DatabaseSync(location);
    db.exec(`DROP TABLE IF EXISTS World; DROP TABLE IF EXISTS Fortune;
      CREATE TABLE World (id INTEGER PRIMARY KEY, randomNumber INTEGER NOT NULL);
      CREATE TABLE Fortune (id INTEGER PRIMARY KEY, message TEXT NOT NULL);
      PRAGMA journal_mode = WAL;`);
    const world = db.prepare("INSERT INTO World (id, randomNumber) VALUES (?, ?)");
    const fortune = db.prepare("INSERT INTO Fortune (id, message) VALUES (?, ?)");
    db.exec("BEGIN");
    for (const [id, number] of numbers) world.run(id, number);
    for (const { id, message } of FORTUNES) fortune.run(id, message);
    db.exec("COMMIT");
    db.close();
    return;
  }
  const sql = postgres(location, { max: 1, onnotice: () => {} });
  try {
    await sql`DROP TABLE IF EXISTS world, fortune`;
    await sql`CREATE TABLE world (id integer PRIMARY KEY, randomnumber integer NOT NULL)`;
    await sql`CREATE TABLE fortune (id integer PRIMARY KEY, message varchar(2048) NOT NULL)`;
    for (let i = 0; i < numbers.length; i += 1000) {
      await sql`INSERT INTO world ${
        sql(numbers.slice(i, i + 1000).map(([id, randomnumber]) => ({ id, randomnumber })))
      }`;
    }
    await sql`INSERT INTO fortune ${sql(FORTUNES)}`;
  } finally {
    await sql.end({ timeout: 5 });
  }
}
