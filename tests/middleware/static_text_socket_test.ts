// Small cached files whose bytes are valid UTF-8 are sent from strings (Deno sends a string
// body without the copy it makes of a byte body); the bytes on the wire must stay those of the
// file. This test compares them byte for byte, over a real socket, for UTF-8, BOM-prefixed and
// invalid UTF-8 files, and checks which ones were kept as strings.
import assert from "node:assert/strict";
import { chain, serve } from "../../mod.ts";
import { staticFiles } from "../../lib/middleware/static_files.ts";
import { resolveEntry } from "../../lib/middleware/_static_resolve.ts";
import { problem } from "../../lib/http/problem.ts";
import { rootBase } from "../../lib/http/file_path.ts";
import { parseList } from "../../lib/middleware/_headers.ts";
import { fs } from "../../lib/server/deno.ts";
import { withDeadline } from "../_deadline.ts";

const encoder = new TextEncoder();
const FILES: Record<string, { bytes: Uint8Array; text: boolean }> = {
  "utf8.txt": { bytes: encoder.encode("héllo wörld ✓ 𝄞\n"), text: true },
  "bom.txt": {
    bytes: new Uint8Array([0xef, 0xbb, 0xbf, ...encoder.encode("after a BOM")]),
    text: true,
  },
  "bom_only.txt": { bytes: new Uint8Array([0xef, 0xbb, 0xbf]), text: true },
  "ascii.css": { bytes: encoder.encode("body{margin:0}"), text: true },
  "invalid.txt": { bytes: new Uint8Array([0x66, 0xff, 0xfe, 0x80, 0x67]), text: false },
  "surrogate.txt": { bytes: new Uint8Array([0x61, 0xed, 0xa0, 0x80, 0x62]), text: false }, // CESU-8
  "overlong.txt": { bytes: new Uint8Array([0xc0, 0xaf]), text: false },
  "truncated.txt": { bytes: new Uint8Array([0x61, 0xe2, 0x82]), text: false },
  "nul.bin": { bytes: new Uint8Array([0, 1, 2, 3, 0xff]), text: false },
};

Deno.test("staticFiles() sends small files byte for byte, from strings only when they are UTF-8", async () => {
  const root = await Deno.makeTempDir({ prefix: "weft_text_" });
  try {
    for (const [name, { bytes }] of Object.entries(FILES)) {
      await Deno.writeFile(`${root}/${name}`, bytes);
    }
    // 1. which files are kept as strings
    const config = {
      fs,
      problem,
      base: rootBase(await Deno.realPath(root)),
      dotfiles: "deny" as const,
      precompressed: false,
      maxFileBytes: 65_536,
      cacheControl: () => "max-age=0",
      parseList,
      cloneText: true,
    };
    for (const [name, { text }] of Object.entries(FILES)) {
      const entry = await resolveEntry(config, `/${name}`, null);
      assert.equal(entry?.identity.text !== null, text, name);
    }
    // 2. the bytes on the wire, twice (the second answer comes from the cache)
    const server = serve(chain([staticFiles({ root })], () => new Response("no")), {
      hostname: "127.0.0.1",
      port: 0,
      onListen() {},
    });
    try {
      for (let round = 0; round < 2; round++) {
        for (const [name, { bytes }] of Object.entries(FILES)) {
          const res = await withDeadline(
            fetch(`http://127.0.0.1:${server.addr.port}/${name}`),
            20_000,
            name,
          );
          const body = new Uint8Array(await res.arrayBuffer());
          assert.equal(res.status, 200, name);
          assert.equal(res.headers.get("content-length"), String(bytes.length), name);
          assert.deepEqual(body, bytes, `${name}, round ${round}`);
        }
      }
    } finally {
      await withDeadline(server.shutdown(), 10_000, "the server to shut down");
    }
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
