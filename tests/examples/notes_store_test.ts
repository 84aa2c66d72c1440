// The demo's store: SQLite through node:sqlite (in memory and in a file that outlives the
// process's connection), the in-memory fallback where the runtime has no node:sqlite, and
// parameters that stay data whatever they contain.
import assert from "node:assert/strict";
import { memoryStore, type NoteStore, openStore } from "../../examples/notes_store.ts";

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
