import assert from "node:assert/strict";
import { fileEtag, parseEtagList, strongMatch, weakMatch } from "../../lib/http/etag.ts";
import { sha256, toHex } from "../../lib/http/_sha256.ts";

const VECTORS = new URL("../fixtures/rfc-vectors/vectors.json", import.meta.url);
const vectors = JSON.parse(Deno.readTextFileSync(VECTORS));
const table: { etag1: string; etag2: string; strong: boolean; weak: boolean }[] =
  vectors.etag_comparison_rfc9110_8_8_3_2;

Deno.test("strongMatch() and weakMatch() follow RFC 9110 §8.8.3.2's comparison table", () => {
  assert.equal(table.length, 4);
  for (const { etag1, etag2, strong, weak } of table) {
    assert.equal(strongMatch(etag1, etag2), strong, `strong ${etag1} ${etag2}`);
    assert.equal(strongMatch(etag2, etag1), strong, `strong ${etag2} ${etag1}`);
    assert.equal(weakMatch(etag1, etag2), weak, `weak ${etag1} ${etag2}`);
    assert.equal(weakMatch(etag2, etag1), weak, `weak ${etag2} ${etag1}`);
  }
});

Deno.test("_sha256 matches FIPS 180-4 test vectors and node:crypto", async () => {
  const enc = new TextEncoder();
  assert.equal(
    toHex(sha256(enc.encode(""))),
    "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
  );
  assert.equal(
    toHex(sha256(enc.encode("abc"))),
    "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
  );
  assert.equal(
    toHex(sha256(enc.encode("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"))),
    "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1",
  );
  const { createHash } = await import("node:crypto");
  for (let n = 0; n < 200; n++) {
    const data = Uint8Array.from({ length: n }, (_, i) => (i * 31 + n) & 0xff);
    assert.equal(
      toHex(sha256(data)),
      createHash("sha256").update(data).digest("hex"),
      `length ${n}`,
    );
  }
});

Deno.test("fileEtag() is the first 16 hex digits of SHA-256 of <size>-<mtime_ns>, quoted", async () => {
  const { createHash } = await import("node:crypto");
  for (
    const [size, ns] of [[0, 0n], [5, 1700000000123000000n], [1 << 30, 1700000000123456789n], [
      Number.MAX_SAFE_INTEGER,
      4102444800555000000n,
    ]] as const
  ) {
    const hex = createHash("sha256").update(`${size}-${ns}`).digest("hex").slice(0, 16);
    assert.equal(fileEtag(size, ns), `"${hex}"`);
    assert.equal(fileEtag(size, ns), `"${hex}"`); // cached
  }
});

Deno.test("fileEtag() stays correct past its cache limit", async () => {
  const { createHash } = await import("node:crypto");
  for (let i = 0; i < 5000; i++) fileEtag(i, 1n);
  const hex = createHash("sha256").update("3-1").digest("hex").slice(0, 16);
  assert.equal(fileEtag(3, 1n), `"${hex}"`);
});

Deno.test("parseEtagList() reads lists, weak tags and *", () => {
  assert.equal(parseEtagList("*"), "*");
  assert.equal(parseEtagList("  *\t"), "*");
  assert.deepEqual(parseEtagList('"a"'), ['"a"']);
  assert.deepEqual(parseEtagList('"a","b"'), ['"a"', '"b"']);
  assert.deepEqual(parseEtagList(' W/"a" ,\t"b", ,, W/"" '), ['W/"a"', '"b"', 'W/""']);
  assert.deepEqual(parseEtagList('"with,comma", "x"'), ['"with,comma"', '"x"']);
  assert.deepEqual(parseEtagList(""), []);
});

Deno.test("parseEtagList() skips malformed members", () => {
  assert.deepEqual(parseEtagList('abc, "ok"'), ['"ok"']);
  assert.deepEqual(parseEtagList('"unterminated, "ok"'), ['"ok"']);
  assert.deepEqual(parseEtagList('"never closed'), []);
  assert.deepEqual(parseEtagList('w/"lower", "ok"'), ['"ok"']);
  assert.deepEqual(parseEtagList('"a"junk, "b"'), ['"b"']);
  assert.deepEqual(parseEtagList('"sp ace", "b"'), ['"b"']);
  assert.deepEqual(parseEtagList('*, "a"'), ['"a"']);
  assert.deepEqual(parseEtagList('"a", *'), ['"a"']);
});
