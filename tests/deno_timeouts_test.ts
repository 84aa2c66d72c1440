// What the limits table of docs/deploying.md says Deno does about slow clients, checked against
// Deno itself:
// the table once claimed a 30 s header read timeout that Deno.serve does not have. The Deno
// column of the "header timeout" row must say "none", and a connection that sends half a header
// block and then waits past 30 s must still be open and answered.
import assert from "node:assert/strict";
import { get, router, serve } from "../mod.ts";
import { withDeadline } from "./_deadline.ts";

/** The Deno column of the row of docs/deploying.md's limits table that starts with `label`. */
async function denoColumn(label: string): Promise<string> {
  const guide = await Deno.readTextFile(new URL("../docs/deploying.md", import.meta.url));
  const row = guide.split("\n").find((line) => line.startsWith(`| ${label}`));
  assert.ok(row, `docs/deploying.md's limits table has no "${label}" row`);
  const cells = row.split("|").map((cell) => cell.trim());
  return cells[3];
}

// A bit past the 30 s that was claimed; nothing else is timed.
const CLAIMED_MS = 30_000;
const WAIT_MS = CLAIMED_MS + 2_000;

Deno.test({
  name: "Deno.serve has no header timeout, as the limits table of docs/deploying.md says",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const documented = await denoColumn("header timeout");
    assert.match(
      documented,
      /^none\b/,
      `docs/deploying.md says Deno's header timeout is: ${documented}`,
    );

    const server = serve(router([get("/", () => new Response("ok"))]), {
      port: 0,
      hostname: "127.0.0.1",
      onListen: () => {},
    });
    const conn = await Deno.connect({ hostname: "127.0.0.1", port: server.addr.port });
    try {
      const encoder = new TextEncoder();
      await conn.write(encoder.encode("GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n"));
      await new Promise((resolve) => setTimeout(resolve, WAIT_MS));
      await conn.write(encoder.encode("Connection: close\r\n\r\n"));
      const chunks: Uint8Array[] = [];
      const read = (async () => {
        const buffer = new Uint8Array(4096);
        for (;;) {
          const n = await conn.read(buffer);
          if (n === null) break;
          chunks.push(buffer.slice(0, n));
        }
      })();
      await withDeadline(read, 10_000, "the answer to the header block finished after 32 s");
      const text = new TextDecoder().decode(
        new Uint8Array(chunks.flatMap((chunk) => [...chunk])),
      );
      assert.match(text, /^HTTP\/1\.1 200 /, `the connection was not answered: ${text}`);
    } finally {
      try {
        conn.close();
      } catch {
        // closed by the server after the answer
      }
      await server.shutdown();
    }
  },
});
