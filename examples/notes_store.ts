/**
 * Where the demo keeps its notes: SQLite through `node:sqlite` (Deno 2.2 and later, Node 22.5 and
 * later), in a file or in memory, with an in-memory fallback where the runtime has no
 * `node:sqlite` (Node 20). Every query is a prepared statement with bound parameters.
 *
 * @module
 */

/** A stored note. `createdBy` says where it came from and never leaves the server. */
export interface StoredNote {
  id: number;
  author: string;
  text: string;
  createdBy: string;
}

/** What the demo's routes need from a store. */
export interface NoteStore {
  /** Where the notes live: `"sqlite:<path>"` or `"memory"`. */
  readonly kind: string;
  /** Notes in id order, at most `limit`, only `author`'s when given. */
  list(query: { limit: number; author?: string }): StoredNote[];
  /** One note, or `undefined`. */
  get(id: number): StoredNote | undefined;
  /** Stores a new note and returns it with its id. */
  add(note: Omit<StoredNote, "id">): StoredNote;
  /** Closes the database. */
  close(): void;
}

const SEED: Omit<StoredNote, "id"> = {
  author: "weft",
  text: "Welcome to the demo",
  createdBy: "seed",
};

/** The notes in an array, for runtimes without `node:sqlite`. */
export function memoryStore(): NoteStore {
  const notes: StoredNote[] = [{ id: 1, ...SEED }];
  return {
    kind: "memory",
    list: ({ limit, author }) =>
      notes.filter((note) => author === undefined || note.author === author).slice(0, limit),
    get: (id) => notes.find((note) => note.id === id),
    add(note) {
      const stored = { id: notes.length + 1, ...note };
      notes.push(stored);
      return stored;
    },
    close() {},
  };
}

// The part of node:sqlite's DatabaseSync the store uses (typed here: Node 20's types lack it).
interface Statement {
  run(...params: (string | number)[]): { lastInsertRowid: number | bigint };
  get(...params: (string | number)[]): unknown;
  all(...params: (string | number)[]): unknown[];
}
interface Database {
  exec(sql: string): void;
  prepare(sql: string): Statement;
  close(): void;
}
type SqliteModule = { DatabaseSync: new (path: string) => Database };

const SCHEMA = `
  CREATE TABLE IF NOT EXISTS notes (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    author TEXT NOT NULL,
    text TEXT NOT NULL,
    created_by TEXT NOT NULL
  )`;

/** A store on a `node:sqlite` database at `path` (`":memory:"` for one that lives in memory). */
export function sqliteStore(sqlite: SqliteModule, path: string): NoteStore {
  const db = new sqlite.DatabaseSync(path);
  if (path !== ":memory:") {
    // Several processes (deno serve --parallel, two ports) may share the file: each write waits
    // for another's lock (the busy timeout) instead of failing with "database is locked".
    // openStore() has switched the file to WAL already; this is then a no-op.
    db.exec("PRAGMA busy_timeout = 5000");
    db.exec("PRAGMA journal_mode = WAL");
  }
  db.exec(SCHEMA);
  const columns = "id, author, text, created_by AS createdBy";
  const insert = db.prepare("INSERT INTO notes (author, text, created_by) VALUES (?, ?, ?)");
  const byId = db.prepare(`SELECT ${columns} FROM notes WHERE id = ?`);
  const all = db.prepare(`SELECT ${columns} FROM notes ORDER BY id LIMIT ?`);
  const byAuthor = db.prepare(`SELECT ${columns} FROM notes WHERE author = ? ORDER BY id LIMIT ?`);
  const count = db.prepare("SELECT count(*) AS n FROM notes");
  // The seed goes in once however many processes start together: the check and the insert run
  // under one write lock (BEGIN IMMEDIATE waits for it through the busy timeout).
  db.exec("BEGIN IMMEDIATE");
  try {
    if ((count.get() as { n: number }).n === 0) insert.run(SEED.author, SEED.text, SEED.createdBy);
    db.exec("COMMIT");
  } catch (error) {
    db.exec("ROLLBACK");
    throw error;
  }
  const row = (value: unknown) => value === undefined ? undefined : { ...value as StoredNote };
  return {
    kind: `sqlite:${path}`,
    list: ({ limit, author }) =>
      (author === undefined ? all.all(limit) : byAuthor.all(author, limit)).map((r) => row(r)!),
    get: (id) => row(byId.get(id)),
    add(note) {
      const { lastInsertRowid } = insert.run(note.author, note.text, note.createdBy);
      return { id: Number(lastInsertRowid), ...note };
    },
    close: () => db.close(),
  };
}

/**
 * Opens the store at `path` in SQLite, or, where the runtime has no `node:sqlite`, an
 * in-memory store after a one-line notice on stderr.
 */
export async function openStore(
  path = ":memory:",
  load: () => Promise<SqliteModule> = () => import("node:sqlite") as Promise<SqliteModule>,
): Promise<NoteStore> {
  let sqlite: SqliteModule;
  try {
    sqlite = await load();
  } catch {
    console.error("notes: this runtime has no node:sqlite; the notes are kept in memory");
    return memoryStore();
  }
  if (path !== ":memory:") await switchToWal(sqlite, path);
  return sqliteStore(sqlite, path);
}

// Switching a file to WAL needs it unlocked, and SQLite answers "database is locked" at once,
// without the busy timeout, while another process holds a write lock on it (the workers of
// `deno serve --parallel` start together). The mode is kept in the file, so one switch serves
// every later connection: it is tried again every 50 ms, for up to 10 s.
async function switchToWal(sqlite: SqliteModule, path: string): Promise<void> {
  const db = new sqlite.DatabaseSync(path);
  try {
    for (let waited = 0;; waited += 50) {
      try {
        db.exec("PRAGMA journal_mode = WAL");
        return;
      } catch (error) {
        if (waited >= 10_000 || !/locked|busy/i.test(String(error))) throw error;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    }
  } finally {
    db.close();
  }
}
