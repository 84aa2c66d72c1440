// The demo's store: SQLite through node:sqlite (in memory and in a file that outlives the
// process's connection), the in-memory fallback where the runtime has no node:sqlite, and
// parameters that stay data whatever they contain.
import assert from "node:assert/strict";
import { memoryStore, type NoteStore, openStore } from "../../examples/notes_store.ts";
import { spawnChild } from "../_child.ts";

const HOSTILE = `x'); DROP TABLE notes; --`;

function exercise(store: NoteStore): void {
  assert.deepEqual(store.list({ limit: 10 }), [
    { id: 1, author: "weft", text: "Welcome to the demo", createdBy: "seed" },
  ]);
  const added = store.add({ author: HOSTILE, text: 'O\'Brien said "hi"', createdBy: "test" });
  assert.equal(added.id, 2);
  assert.deepEqual(store.get(2), added);
  assert.equal(store.get(99), undefined);
  assert.deepEqual(store.list({ limit: 10, author: HOSTILE }), [added]);
  assert.deepEqual(store.list({ limit: 1 }).map((note) => note.id), [1]);
  assert.equal(store.list({ limit: 10 }).length, 2); // the table is still there
}

Deno.test("the SQLite store keeps notes in memory, with bound parameters", async () => {
  const store = await openStore();
  assert.equal(store.kind, "sqlite::memory:");
  try {
    exercise(store);
  } finally {
    store.close();
  }
});

Deno.test("the SQLite store's file is created on first start and read again", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const path = `${dir}/notes.db`;
    const first = await openStore(path);
    exercise(first);
    first.close();
    const second = await openStore(path);
    try {
      assert.deepEqual(second.list({ limit: 10 }).map((note) => note.text), [
        "Welcome to the demo", // seeded once, not again
        'O\'Brien said "hi"',
      ]);
    } finally {
      second.close();
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

// Workers of `deno serve --parallel` open the file at the same moment: one that finds the other
// holding the write lock waits for it (the busy timeout) instead of failing to start with
// "database is locked", and the seed goes in once.
Deno.test("the SQLite store opens a file another process holds locked, and seeds it once", async () => {
  const dir = await Deno.makeTempDir();
  const path = `${dir}/notes.db`;
  const holder = spawnChild(Deno.execPath(), {
    what: "a process holding the notes file's write lock",
    args: [
      "eval",
      `import { DatabaseSync } from "node:sqlite";
       const db = new DatabaseSync(${JSON.stringify(path)});
       db.exec("BEGIN IMMEDIATE");
       console.log("locked");
       setTimeout(() => { db.exec("COMMIT"); db.close(); }, 400);`,
    ],
    stdout: "piped",
    stderr: "piped",
    deadlineMs: 30_000,
  });
  try {
    await holder.waitForOutput("stdout", /locked/, { ms: 20_000, what: "the lock to be held" });
    const store = await openStore(path);
    try {
      exercise(store);
    } finally {
      store.close();
    }
  } finally {
    await holder.stop();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("the memory store answers as the SQLite store does", () => {
  exercise(memoryStore());
});

Deno.test("without node:sqlite the notes are kept in memory, after a one-line notice", async () => {
  const printed: unknown[][] = [];
  const error = console.error;
  console.error = (...args: unknown[]) => printed.push(args);
  try {
    const store = await openStore("notes.db", () => Promise.reject(new Error("no such module")));
    assert.equal(store.kind, "memory");
    exercise(store);
  } finally {
    console.error = error;
  }
  assert.deepEqual(printed, [[
    "notes: this runtime has no node:sqlite; the notes are kept in memory",
  ]]);
});
