// The demo's store on Node: node:sqlite where the runtime has it (Node 22.5 and later), and on
// Node 20, which lacks it, the in-memory store after its one-line notice.
import assert from "node:assert/strict";
import { test } from "vitest";
import { openStore } from "../../examples/notes_store.ts";

const [major, minor] = process.versions.node.split(".").map(Number);
const hasSqlite = major > 22 || (major === 22 && minor >= 5);

test(`the demo's store on Node ${process.versions.node}: ${hasSqlite ? "SQLite" : "memory"}`, async () => {
  const printed: unknown[][] = [];
  const error = console.error;
  console.error = (...args: unknown[]) => void printed.push(args);
  let store;
  try {
    store = await openStore();
  } finally {
    console.error = error;
  }
  try {
    if (hasSqlite) {
      assert.equal(store.kind, "sqlite::memory:");
      assert.deepEqual(printed, []);
    } else {
      assert.equal(store.kind, "memory");
      assert.deepEqual(printed, [[
        "notes: this runtime has no node:sqlite; the notes are kept in memory",
      ]]);
    }
    const added = store.add({ author: "node", text: "hi", createdBy: "test" });
    assert.deepEqual(store.get(added.id), added);
    assert.deepEqual(store.list({ limit: 10 }).map((note) => note.author), [
      "weft",
      "node",
    ]);
  } finally {
    store.close();
  }
});
