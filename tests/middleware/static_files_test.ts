import assert from "node:assert/strict";
import { brotliDecompressSync, gunzipSync } from "node:zlib";
import { chain, type Middleware } from "../../mod.ts";
import { fileEtag } from "../../lib/http/etag.ts";
import { staticFiles, type StaticFilesOptions } from "../../lib/middleware/static_files.ts";
import {
  clock,
  type Entry,
  ENTRY_OVERHEAD,
  FileCache,
} from "../../lib/middleware/_static_cache.ts";
import { withDeadline } from "../_deadline.ts";
import {
  APP_JS,
  BIG_SIZE,
  buildStaticFixture,
  DOT_CANARY,
  MTIME_S,
  pattern,
} from "../fixtures/static/fixture.ts";

const fixture = buildStaticFixture();
const { root } = fixture;
globalThis.addEventListener("unload", () => fixture.remove());

const LAST_MODIFIED = "Tue, 14 Nov 2023 22:13:20 GMT";
const decoder = new TextDecoder();

/** A chain with staticFiles() under /static and a handler that marks what reached next(). */
function setup(options: Partial<StaticFilesOptions> = {}) {
  const app = chain(
    [staticFiles({ root, prefix: "/static", ...options })],
    (ctx) => new Response(`next ${ctx.req.method} ${ctx.path}`, { headers: { "x-next": "1" } }),
  );
  return async (path: string, init: RequestInit = {}) => {
    const res = await app.fetch(new Request(`http://localhost${path}`, init));
    const body = new Uint8Array(await res.arrayBuffer());
    return { res, status: res.status, headers: res.headers, body, text: decoder.decode(body) };
  };
}

function etagOf(size: number): string {
  return fileEtag(size, BigInt(MTIME_S * 1000) * 1_000_000n);
}

Deno.test("staticFiles() serves a file with every validator and entity header", async () => {
  const get = setup();
  const { status, headers, text } = await get("/static/hello.txt");
  assert.equal(status, 200);
  assert.equal(text, "hello world");
  assert.equal(headers.get("etag"), etagOf(11));
  assert.match(headers.get("etag")!, /^"[0-9a-f]{16}"$/);
  assert.equal(headers.get("last-modified"), LAST_MODIFIED);
  assert.equal(headers.get("content-type"), "text/plain; charset=utf-8");
  assert.equal(headers.get("content-length"), "11");
  assert.equal(headers.get("cache-control"), "max-age=0");
  assert.equal(headers.get("accept-ranges"), "bytes");
  assert.equal(headers.get("vary"), null);
  assert.equal(headers.get("x-next"), null);
});

Deno.test("staticFiles() types files from mime-db with the spec's additions", async () => {
  const get = setup();
  const expected: Record<string, string> = {
    "index.html": "text/html; charset=utf-8",
    "app.js": "application/javascript; charset=utf-8",
    "data.json": "application/json; charset=utf-8",
    "logo.svg": "image/svg+xml; charset=utf-8",
    "readme.md": "text/markdown; charset=utf-8",
    "style.css": "text/css; charset=utf-8",
    "image.png": "image/png",
    "font.woff2": "font/woff2",
    "unknown.zzqx": "application/octet-stream",
    "big.bin": "application/octet-stream",
  };
  for (const [name, type] of Object.entries(expected)) {
    const { status, headers } = await get(`/static/${name}`);
    assert.equal(status, 200, name);
    assert.equal(headers.get("content-type"), type, name);
  }
});

Deno.test("staticFiles() serves nested files, non-ASCII names, 1-byte and empty files", async () => {
  const get = setup();
  assert.equal((await get("/static/nested/deep/file.css")).text, "deep{}");
  assert.equal((await get("/static/caf%C3%A9.txt")).text, "café");
  assert.equal((await get("/static/café.txt")).text, "café"); // URL-encoded by Request
  assert.equal((await get("/static/100%25.txt")).text, "percent");
  const one = await get("/static/one.bin");
  assert.deepEqual([...one.body], [42]);
  assert.equal(one.headers.get("content-length"), "1");
  const empty = await get("/static/empty.txt");
  assert.equal(empty.status, 200);
  assert.equal(empty.body.length, 0);
  assert.equal(empty.headers.get("content-length"), "0");
  assert.equal(empty.headers.get("etag"), etagOf(0));
});

Deno.test("staticFiles() streams files larger than the in-memory limit intact", async () => {
  for (const cache of [undefined, false] as const) {
    const get = setup({ cache });
    const big = await get("/static/big.bin");
    assert.equal(big.status, 200);
    assert.equal(big.headers.get("content-length"), String(BIG_SIZE));
    assert.deepEqual(big.body, pattern(BIG_SIZE));
    const exact = await get("/static/exact.bin"); // exactly 64 KiB: kept in memory
    assert.deepEqual(exact.body, pattern(65_536));
  }
});

Deno.test("staticFiles() answers HEAD with the headers of GET and no body", async () => {
  const get = setup();
  for (const name of ["hello.txt", "big.bin", "empty.txt"]) {
    const full = await get(`/static/${name}`);
    const head = await get(`/static/${name}`, { method: "HEAD" });
    assert.equal(head.status, 200);
    assert.equal(head.body.length, 0);
    for (const field of ["etag", "last-modified", "content-type", "content-length"]) {
      assert.equal(head.headers.get(field), full.headers.get(field), `${name} ${field}`);
    }
  }
});

Deno.test("staticFiles() passes other methods and paths outside the prefix to next()", async () => {
  const get = setup();
  for (const method of ["POST", "PUT", "DELETE", "PATCH", "OPTIONS"]) {
    const res = await get("/static/hello.txt", { method });
    assert.equal(res.headers.get("x-next"), "1", method);
    assert.equal(res.text, `next ${method} /static/hello.txt`);
  }
  for (const path of ["/", "/hello.txt", "/staticfoo/hello.txt", "/stat", "/other/static/x"]) {
    const res = await get(path);
    assert.equal(res.headers.get("x-next"), "1", path);
  }
});

Deno.test("staticFiles() answers misses under the prefix with a 404 problem", async () => {
  const get = setup();
  for (
    const path of [
      "/static",
      "/static/",
      "/static/missing.txt",
      "/static/nested",
      "/static/nested/",
      "/static/hello.txt/",
      "/static/dir",
      "/static/link_dangling.txt",
    ]
  ) {
    const res = await get(path);
    assert.equal(res.status, 404, path);
    assert.equal(res.headers.get("content-type"), "application/problem+json", path);
    assert.equal(JSON.parse(res.text).status, 404);
    assert.equal(res.headers.get("x-next"), null);
  }
});

Deno.test("staticFiles() answers 400 to malformed escapes, NUL, backslashes and encoded slashes", async () => {
  const get = setup();
  for (
    const path of [
      "/static/%zz",
      "/static/%",
      "/static/%c0%af",
      "/static/%ff.txt",
      "/static/hello.txt%00",
      "/static/%00/etc/passwd",
      "/static/nested%5cdeep%5cfile.css",
      "/static/nested%2fdeep%2ffile.css",
      "/static/..%2f..%2fcanary.txt",
      "/static/..%5c..%5ccanary.txt",
    ]
  ) {
    const res = await get(path);
    assert.equal(res.status, 400, path);
    assert.equal(res.headers.get("content-type"), "application/problem+json");
  }
});

Deno.test("staticFiles() serves symlinks inside the root and nothing outside it", async () => {
  const get = setup();
  assert.equal((await get("/static/link_inside.txt")).text, "hello world");
  assert.equal((await get("/static/link_dir_inside/deep/file.css")).text, "deep{}");
  for (
    const name of [
      "link_outside.txt",
      "link_evil.txt",
      "link_evil_dir/secret.txt",
      "link_absolute.txt",
      "link_to_dotfile.txt",
    ]
  ) {
    const res = await get(`/static/${name}`);
    assert.equal(res.status, 404, name);
    assert.ok(!res.text.includes("CANARY"), name);
  }
});

Deno.test("staticFiles() denies dotfiles by default and serves them with dotfiles: allow", async () => {
  const deny = setup();
  for (const name of [".env", ".hidden/visible.txt", "link_to_dotfile.txt", "%2eenv"]) {
    const res = await deny(`/static/${name}`);
    assert.equal(res.status, 404, name);
    assert.ok(!res.text.includes(DOT_CANARY));
  }
  const allow = setup({ dotfiles: "allow" });
  for (const name of [".env", ".hidden/visible.txt", "link_to_dotfile.txt"]) {
    assert.equal((await allow(`/static/${name}`)).text, DOT_CANARY, name);
  }
});

Deno.test({
  name: "staticFiles() answers 404 for a FIFO without opening it",
  ignore: !fixture.fifo,
  async fn() {
    const get = setup({ cache: false });
    for (const name of ["fifo", "fifo.txt"]) {
      const res = await withDeadline(get(`/static/${name}`), 5_000, `GET ${name} (a FIFO)`);
      assert.equal(res.status, 404);
      const head = await withDeadline(
        get(`/static/${name}`, { method: "HEAD" }),
        5_000,
        `HEAD ${name} (a FIFO)`,
      );
      assert.equal(head.status, 404);
    }
  },
});

Deno.test("staticFiles() passes misses and client errors to next() with fallthrough", async () => {
  const get = setup({ fallthrough: true });
  for (
    const path of ["/static/missing.txt", "/static/nested/", "/static/.env", "/static/%zz"]
  ) {
    const res = await get(path);
    assert.equal(res.headers.get("x-next"), "1", path);
  }
  assert.equal((await get("/static/hello.txt")).text, "hello world");
});

Deno.test("staticFiles() mounts at / by default and accepts prefixes with or without slashes", async () => {
  const atRoot = chain([staticFiles({ root })], () => new Response("next"));
  const res = await atRoot.fetch(new Request("http://localhost/hello.txt"));
  assert.equal(await res.text(), "hello world");
  for (const prefix of ["assets", "/assets/", "/assets//"]) {
    const app = chain([staticFiles({ root, prefix })], () => new Response("next"));
    const hit = await app.fetch(new Request("http://localhost/assets/hello.txt"));
    assert.equal(await hit.text(), "hello world", prefix);
  }
  const deep = chain([staticFiles({ root, prefix: "/a/b" })], () => new Response("next"));
  assert.equal(await (await deep.fetch(new Request("http://localhost/a/b/one.bin"))).text(), "*");
  // escapes compared decoded (RFC 3986 §6.2.2), an encoded slash is no separator
  for (const path of ["/%61/b/one.bin", "/a/%62/one.bin"]) {
    assert.equal(await (await deep.fetch(new Request(`http://localhost${path}`))).text(), "*");
  }
  for (const path of ["/a%2Fb/one.bin", "/a/%zz/one.bin", "/%61/bc/one.bin"]) {
    assert.equal(await (await deep.fetch(new Request(`http://localhost${path}`))).text(), "next");
  }
});

Deno.test("staticFiles() sets Cache-Control from maxAge and immutable", async () => {
  assert.equal(
    (await setup({ maxAge: 3600 })("/static/hello.txt")).headers.get("cache-control"),
    "max-age=3600",
  );
  const hashed = /\.[0-9a-f]{8}\./;
  for (const immutable of [hashed, (path: string) => hashed.test(path)]) {
    const get = setup({ maxAge: 60, immutable });
    assert.equal(
      (await get("/static/assets/app.3f9a2c1b.js")).headers.get("cache-control"),
      "max-age=31536000, immutable",
    );
    assert.equal((await get("/static/hello.txt")).headers.get("cache-control"), "max-age=60");
  }
  const all = setup({ immutable: true });
  assert.equal(
    (await all("/static/hello.txt")).headers.get("cache-control"),
    "max-age=31536000, immutable",
  );
});

Deno.test("staticFiles() rejects invalid options", () => {
  const bad: unknown[] = [
    undefined,
    {},
    { root: "" },
    { root: 5 },
    { root, maxAge: -1 },
    { root, maxAge: 1.5 },
    { root, maxAge: "60" },
    { root, dotfiles: "ignore" },
    { root, immutable: 5 },
    { root, prefix: 7 },
    { root, cache: null },
    { root, cache: { maxBytes: -1 } },
    { root, cache: { revalidateMs: 0.5 } },
  ];
  for (const options of bad) {
    assert.throws(
      () => staticFiles(options as StaticFilesOptions),
      TypeError,
      JSON.stringify(options),
    );
  }
});

Deno.test("staticFiles() keeps headers set by earlier middleware", async () => {
  const tag: Middleware = (ctx, next) => {
    ctx.setHeader("x-request-id", "42");
    return next();
  };
  const app = chain([tag, staticFiles({ root })], () => new Response("next"));
  const res = await app.fetch(new Request("http://localhost/hello.txt"));
  assert.equal(res.headers.get("x-request-id"), "42");
  assert.equal(await res.text(), "hello world");
});

Deno.test("staticFiles() gives each request its own 304, HEAD and text response", async () => {
  // the same prebuilt answers repeat (a file kept as a string is cloned on Deno): headers one
  // request adds, and bytes a reader changes, must not reach the next
  let seq = 0;
  const stamp: Middleware = async (ctx, next) => {
    const n = String(++seq);
    ctx.setHeader("x-request-id", n);
    const res = await next();
    res.headers.append("x-seq", n);
    return res;
  };
  const app = chain([stamp, staticFiles({ root })], () => new Response("next"));
  const etag = etagOf(11);
  for (let i = 1; i <= 9; i++) {
    const kind = ["get", "304", "head"][i % 3];
    const init = kind === "head"
      ? { method: "HEAD" }
      : kind === "304"
      ? { headers: { "if-none-match": etag } }
      : {};
    const res = await app.fetch(new Request("http://localhost/hello.txt", init));
    assert.equal(res.status, kind === "304" ? 304 : 200);
    assert.equal(res.headers.get("x-seq"), String(i));
    assert.equal(res.headers.get("x-request-id"), String(i));
    assert.equal(res.headers.get("etag"), etag);
    assert.equal(res.headers.get("content-length"), kind === "304" ? null : "11");
    if (kind !== "get") {
      assert.equal(await res.text(), "");
      continue;
    }
    const bytes = await res.bytes();
    assert.equal(new TextDecoder().decode(bytes), "hello world");
    bytes.fill(0x21); // a reader that writes into what it read
  }
});

// --- conditional requests (RFC 9110 §13) -------------------------------------------------

const VECTORS = JSON.parse(
  Deno.readTextFileSync(
    new URL("../fixtures/rfc-vectors/vectors.json", import.meta.url),
  ),
);

Deno.test("staticFiles() answers 304 with the validators, Cache-Control and Vary, and no body", async () => {
  const get = setup({ maxAge: 120, precompressed: true });
  const etag = etagOf(11);
  for (const inm of [etag, `W/${etag}`, `"x", ${etag}`, "*", `"a",W/${etag.slice(0)} , "b"`]) {
    for (const method of ["GET", "HEAD"]) {
      const res = await get("/static/hello.txt", { method, headers: { "if-none-match": inm } });
      assert.equal(res.status, 304, `${method} ${inm}`);
      assert.equal(res.body.length, 0);
      assert.equal(res.headers.get("etag"), etag);
      assert.equal(res.headers.get("last-modified"), LAST_MODIFIED);
      assert.equal(res.headers.get("cache-control"), "max-age=120");
      assert.equal(res.headers.get("content-type"), null);
    }
  }
  const variant = await get("/static/app.js", {
    headers: { "accept-encoding": "br", "if-none-match": "*" },
  });
  assert.equal(variant.status, 304);
  assert.equal(variant.headers.get("vary"), "Accept-Encoding");
  assert.equal(variant.headers.get("cache-control"), "max-age=120");
});

Deno.test("staticFiles() evaluates If-Modified-Since only without If-None-Match", async () => {
  const get = setup();
  const later = "Wed, 15 Nov 2023 00:00:00 GMT";
  const earlier = "Mon, 13 Nov 2023 00:00:00 GMT";
  const check = async (headers: Record<string, string>) =>
    (await get("/static/hello.txt", { headers })).status;
  assert.equal(await check({ "if-modified-since": LAST_MODIFIED }), 304);
  assert.equal(await check({ "if-modified-since": later }), 304);
  assert.equal(await check({ "if-modified-since": earlier }), 200);
  assert.equal(await check({ "if-modified-since": "yesterday" }), 200); // unparseable: ignored
  // RFC 9110 §13.1.3: ignored when If-None-Match is present, even if that does not match
  assert.equal(await check({ "if-none-match": '"stale"', "if-modified-since": later }), 200);
});

Deno.test("staticFiles() answers 412 for failed If-Match and If-Unmodified-Since", async () => {
  const get = setup({ maxAge: 5 });
  const etag = etagOf(11);
  const check = async (headers: Record<string, string>) => {
    const res = await get("/static/hello.txt", { headers });
    if (res.status === 412) {
      assert.equal(res.headers.get("content-type"), "application/problem+json");
      assert.equal(res.headers.get("etag"), etag);
      assert.equal(res.headers.get("cache-control"), "max-age=5");
    }
    return res.status;
  };
  assert.equal(await check({ "if-match": etag }), 200);
  assert.equal(await check({ "if-match": "*" }), 200);
  assert.equal(await check({ "if-match": `"other", ${etag}` }), 200);
  assert.equal(await check({ "if-match": '"other"' }), 412);
  assert.equal(await check({ "if-match": `W/${etag}` }), 412); // strong comparison
  assert.equal(await check({ "if-unmodified-since": "Mon, 13 Nov 2023 00:00:00 GMT" }), 412);
  assert.equal(await check({ "if-unmodified-since": LAST_MODIFIED }), 200);
  assert.equal(await check({ "if-unmodified-since": "garbage" }), 200);
  // If-Unmodified-Since is ignored when If-Match is present (RFC 9110 §13.1.4)
  assert.equal(
    await check({ "if-match": etag, "if-unmodified-since": "Mon, 13 Nov 2023 00:00:00 GMT" }),
    200,
  );
});

Deno.test("staticFiles() follows the RFC 9110 ETag comparison table of the corpus", async () => {
  const get = setup();
  const opaque = etagOf(11).slice(1, -1);
  const table: { etag1: string; etag2: string; strong: boolean; weak: boolean }[] =
    VECTORS.etag_comparison_rfc9110_8_8_3_2;
  assert.equal(table.length, 4);
  let driven = 0;
  for (const row of table) {
    // The file's entity tag plays etag2 (the server only has strong tags), the request's etag1;
    // "1" stands for the file's opaque tag and "2" for another one.
    if (row.etag2.startsWith("W/")) continue;
    const request = row.etag1.replace('"1"', `"${opaque}"`).replace('"2"', '"deadbeef"');
    const server = row.etag2.replace('"1"', `"${opaque}"`);
    assert.equal(server, etagOf(11));
    const inm = await get("/static/hello.txt", { headers: { "if-none-match": request } });
    assert.equal(inm.status === 304, row.weak, `If-None-Match ${row.etag1} vs ${row.etag2}`);
    const im = await get("/static/hello.txt", { headers: { "if-match": request } });
    assert.equal(im.status === 200, row.strong, `If-Match ${row.etag1} vs ${row.etag2}`);
    driven++;
  }
  assert.equal(driven, 2); // rows with a weak etag2 are covered by tests/http/etag_test.ts
});

Deno.test("staticFiles() evaluates preconditions in the corpus's RFC 9110 §13.2.2 order", async () => {
  const rules = VECTORS.conditional_rules_rfc9110;
  assert.equal(rules.ref_order, "RFC 9110 §13.2.2");
  assert.equal(rules.evaluation_order.length, 4);
  const get = setup({ precompressed: true });
  const etag = etagOf(11);
  const old = "Mon, 13 Nov 2023 00:00:00 GMT";
  const status = async (headers: Record<string, string>) =>
    (await get("/static/hello.txt", { headers })).status;
  // 1. If-Match (else If-Unmodified-Since) → 412 comes before If-None-Match → 304
  assert.equal(await status({ "if-match": '"other"', "if-none-match": etag }), 412);
  assert.equal(await status({ "if-unmodified-since": old, "if-none-match": etag }), 412);
  // 2. If-None-Match (else If-Modified-Since) → 304 comes before Range
  assert.equal(await status({ "if-match": etag, "if-none-match": etag }), 304);
  assert.equal(await status({ "if-none-match": etag, range: "bytes=0-0" }), 304);
  assert.equal(await status({ "if-modified-since": LAST_MODIFIED, range: "bytes=0-0" }), 304);
  // 3. If-Range only with Range on GET
  assert.equal(await status({ "if-range": '"other"' }), 200);
  assert.equal(await status({ "if-range": etag, range: "bytes=0-0" }), 206);
  assert.equal(
    (await get("/static/hello.txt", { method: "HEAD", headers: { range: "bytes=0-0" } })).status,
    200,
  );
  // 4. otherwise perform the method
  assert.equal(await status({}), 200);
  // the 304 carries what a 200 would (§15.4.5): ETag, Cache-Control, Vary
  const notModified = await get("/static/app.js", { headers: { "if-none-match": "*" } });
  assert.ok(rules["304_response"].includes("Vary"));
  for (const field of ["etag", "cache-control", "vary", "last-modified"]) {
    assert.ok(notModified.headers.has(field), field);
  }
});

// --- ranges (RFC 9110 §14) ---------------------------------------------------------------

Deno.test("staticFiles() answers single byte ranges with 206 and Content-Range", async () => {
  for (const name of ["hello.txt", "big.bin"]) {
    const get = setup();
    const whole = (await get(`/static/${name}`)).body;
    const size = whole.length;
    const cases: [string, number, number][] = [
      ["bytes=0-0", 0, 0],
      ["bytes=-1", size - 1, size - 1],
      ["bytes=2-4", 2, 4],
      ["bytes=5-", 5, size - 1],
      ["bytes=0-999999999", 0, size - 1],
      ["bytes=-999999999", 0, size - 1],
      ["BYTES = 1 - 2", 1, 2],
    ];
    for (const [range, start, end] of cases) {
      const res = await get(`/static/${name}`, { headers: { range } });
      assert.equal(res.status, 206, `${name} ${range}`);
      assert.equal(res.headers.get("content-range"), `bytes ${start}-${end}/${size}`);
      assert.equal(res.headers.get("content-length"), String(end - start + 1));
      assert.deepEqual(res.body, whole.subarray(start, end + 1), `${name} ${range}`);
      assert.equal(res.headers.get("etag"), (await get(`/static/${name}`)).headers.get("etag"));
    }
  }
});

Deno.test("staticFiles() answers unsatisfiable ranges with 416 and keeps the validators", async () => {
  const get = setup({ maxAge: 9, precompressed: true });
  const files: [string, number][] = [["hello.txt", 11], ["empty.txt", 0], ["big.bin", BIG_SIZE]];
  for (const [name, size] of files) {
    for (const range of [`bytes=${size}-`, `bytes=${size + 10}-${size + 20}`, "bytes=-0"]) {
      const res = await get(`/static/${name}`, { headers: { range } });
      assert.equal(res.status, 416, `${name} ${range}`);
      assert.equal(res.headers.get("content-range"), `bytes */${size}`);
      assert.equal(res.headers.get("etag"), etagOf(size));
      assert.equal(res.headers.get("last-modified"), LAST_MODIFIED);
      assert.equal(res.headers.get("cache-control"), "max-age=9");
    }
  }
  const variant = await get("/static/app.js", { headers: { range: "bytes=999999-" } });
  assert.equal(variant.status, 416);
  assert.equal(variant.headers.get("vary"), "Accept-Encoding");
});

Deno.test("staticFiles() sends the whole file for several ranges and invalid ones", async () => {
  const get = setup();
  for (const range of ["bytes=0-1,3-4", "bytes=0-0,-1", "bytes=5-2", "items=0-1", "bytes=x-y"]) {
    const res = await get("/static/hello.txt", { headers: { range } });
    assert.equal(res.status, 200, range);
    assert.equal(res.text, "hello world");
  }
});

Deno.test("staticFiles() honours If-Range with the ETag or the exact date", async () => {
  const get = setup();
  const etag = etagOf(11);
  const check = async (ifRange: string) =>
    (await get("/static/hello.txt", { headers: { range: "bytes=0-4", "if-range": ifRange } }))
      .status;
  assert.equal(await check(etag), 206);
  assert.equal(await check(LAST_MODIFIED), 206);
  assert.equal(await check('"other"'), 200);
  assert.equal(await check(`W/${etag}`), 200); // If-Range needs a strong match
  assert.equal(await check("Wed, 15 Nov 2023 00:00:00 GMT"), 200); // not equal to mtime
});

// --- precompressed variants --------------------------------------------------------------

Deno.test("staticFiles() negotiates precompressed variants by q-value", async () => {
  const get = setup({ precompressed: true });
  const cases: [string | null, string | null][] = [
    [null, null],
    ["", null],
    ["br", "br"],
    ["gzip", "gzip"],
    ["gzip, br", "br"],
    ["br;q=0.5, gzip", "gzip"],
    ["br;q=0.5, gzip;q=0.5", "br"],
    ["gzip;q=0, br;q=0", null],
    ["*", "br"],
    ["*;q=0.3, br;q=0", "gzip"],
    ["identity, br;q=0.5", null],
    ["br;q=0.5, identity;q=0.5", "br"],
    ["deflate, compress", null],
    ["BR", "br"],
    ["x-gzip", "gzip"],
    ["br;q=2", null], // an invalid weight ignores the member
    ["br;q=0.001", "br"],
  ];
  const identityEtag = etagOf(APP_JS.length);
  const etags = new Set<string>();
  for (const [accept, coding] of cases) {
    const headers: Record<string, string> = accept === null ? {} : { "accept-encoding": accept };
    const res = await get("/static/app.js", { headers });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("content-encoding"), coding, String(accept));
    assert.equal(res.headers.get("vary"), "Accept-Encoding", String(accept));
    assert.equal(res.headers.get("content-type"), "application/javascript; charset=utf-8");
    assert.equal(res.headers.get("content-length"), String(res.body.length));
    const text = coding === "br"
      ? decoder.decode(brotliDecompressSync(res.body))
      : coding === "gzip"
      ? decoder.decode(gunzipSync(res.body))
      : res.text;
    assert.equal(text, APP_JS, String(accept));
    const etag = res.headers.get("etag")!;
    if (coding === null) assert.equal(etag, identityEtag);
    else assert.ok(etag.endsWith(`-${coding}"`), etag);
    etags.add(etag);
  }
  assert.equal(etags.size, 3); // one ETag per coding
});

Deno.test("staticFiles() validates each coding against its own ETag", async () => {
  const get = setup({ precompressed: true });
  const br = await get("/static/app.js", { headers: { "accept-encoding": "br" } });
  const brEtag = br.headers.get("etag")!;
  const identityEtag = etagOf(APP_JS.length);
  const again = await get("/static/app.js", {
    headers: { "accept-encoding": "br", "if-none-match": brEtag },
  });
  assert.equal(again.status, 304);
  assert.equal(again.headers.get("etag"), brEtag);
  const other = await get("/static/app.js", {
    headers: { "accept-encoding": "br", "if-none-match": identityEtag },
  });
  assert.equal(other.status, 200);
  assert.equal(other.headers.get("content-encoding"), "br");
  const plain = await get("/static/app.js", { headers: { "if-none-match": brEtag } });
  assert.equal(plain.status, 200);
  const ranged = await get("/static/app.js", {
    headers: { "accept-encoding": "gzip", range: "bytes=0-1", "if-range": identityEtag },
  });
  assert.equal(ranged.status, 200); // If-Range names another representation
  const gz = await get("/static/app.js", {
    headers: { "accept-encoding": "gzip", range: "bytes=0-1" },
  });
  assert.equal(gz.status, 206);
  assert.deepEqual([...gz.body], [0x1f, 0x8b]); // the gzip magic: a range of the variant
});

Deno.test("staticFiles() sends Vary only for files with a variant, and no variant outside the root", async () => {
  const get = setup({ precompressed: true });
  const onlyGz = await get("/static/only.css", { headers: { "accept-encoding": "br, gzip" } });
  assert.equal(onlyGz.headers.get("content-encoding"), "gzip");
  assert.equal(onlyGz.headers.get("vary"), "Accept-Encoding");
  const none = await get("/static/hello.txt", { headers: { "accept-encoding": "br, gzip" } });
  assert.equal(none.headers.get("vary"), null);
  assert.equal(none.headers.get("content-encoding"), null);
  const evil = await get("/static/evil.js", { headers: { "accept-encoding": "br" } });
  assert.equal(evil.text, "evil()");
  assert.equal(evil.headers.get("content-encoding"), null);
  assert.equal(evil.headers.get("vary"), null);
  const off = await setup()("/static/app.js", { headers: { "accept-encoding": "br" } });
  assert.equal(off.headers.get("content-encoding"), null);
  assert.equal(off.headers.get("vary"), null);
});

// --- the cache ---------------------------------------------------------------------------

function scratch(): { dir: string; remove(): void } {
  const dir = Deno.makeTempDirSync({ prefix: "weft_static_cache_" });
  return { dir, remove: () => Deno.removeSync(dir, { recursive: true }) };
}

async function fetchText(app: ReturnType<typeof chain>, path: string) {
  const res = await app.fetch(new Request(`http://localhost${path}`));
  return { status: res.status, etag: res.headers.get("etag"), text: await res.text() };
}

Deno.test("staticFiles() serves a changed file within the revalidation bound", async () => {
  const { dir, remove } = scratch();
  // The bound is a matter of time: the cache's clock is moved past it, not slept through.
  const realNow = clock.now;
  let now = realNow();
  clock.now = () => now;
  try {
    Deno.writeTextFileSync(`${dir}/a.txt`, "one");
    Deno.utimeSync(`${dir}/a.txt`, 1_000_000, 1_000_000);
    const app = chain(
      [staticFiles({ root: dir, cache: { revalidateMs: 300 } })],
      () => new Response("next"),
    );
    const first = await fetchText(app, "/a.txt");
    assert.equal(first.text, "one");
    Deno.writeTextFileSync(`${dir}/a.txt`, "two!");
    Deno.utimeSync(`${dir}/a.txt`, 2_000_000, 2_000_000);
    const soon = await fetchText(app, "/a.txt");
    // within the bound the cached version may still be served, but always consistently
    assert.ok(
      (soon.text === "one" && soon.etag === first.etag) ||
        (soon.text === "two!" && soon.etag !== first.etag),
    );
    now += 299;
    const edge = await fetchText(app, "/a.txt");
    assert.equal(edge.etag, soon.etag, "1 ms before the bound the same version is served");
    now += 1;
    const later = await fetchText(app, "/a.txt");
    assert.equal(later.text, "two!");
    assert.notEqual(later.etag, first.etag);
    Deno.removeSync(`${dir}/a.txt`);
    now += 300;
    assert.equal((await fetchText(app, "/a.txt")).status, 404);
  } finally {
    clock.now = realNow;
    remove();
  }
});

Deno.test("staticFiles() sees every change at once with revalidateMs: 0 or cache: false", async () => {
  const { dir, remove } = scratch();
  try {
    for (const cache of [{ revalidateMs: 0 }, false as const]) {
      Deno.writeTextFileSync(`${dir}/a.txt`, "one");
      Deno.utimeSync(`${dir}/a.txt`, 1_000_000, 1_000_000);
      const app = chain([staticFiles({ root: dir, cache })], () => new Response("next"));
      assert.equal((await fetchText(app, "/a.txt")).text, "one");
      Deno.writeTextFileSync(`${dir}/a.txt`, "two!");
      Deno.utimeSync(`${dir}/a.txt`, 2_000_000, 2_000_000);
      assert.equal((await fetchText(app, "/a.txt")).text, "two!");
    }
  } finally {
    remove();
  }
});

Deno.test("staticFiles() never sends a streamed file with stale headers", async () => {
  const { dir, remove } = scratch();
  try {
    const path = `${dir}/big.bin`;
    Deno.writeFileSync(path, pattern(200_000));
    const app = chain(
      [staticFiles({ root: dir, cache: { revalidateMs: 60_000 } })],
      () => new Response("next"),
    );
    const first = await app.fetch(new Request("http://localhost/big.bin"));
    assert.equal((await first.arrayBuffer()).byteLength, 200_000);
    // replaced within the bound: the open file's fstat no longer matches the cached entry
    Deno.writeFileSync(path, pattern(150_000));
    Deno.utimeSync(path, 3_000_000, 3_000_000);
    const second = await app.fetch(new Request("http://localhost/big.bin"));
    const body = new Uint8Array(await second.arrayBuffer());
    assert.equal(second.headers.get("content-length"), "150000");
    assert.deepEqual(body, pattern(150_000));
    assert.notEqual(second.headers.get("etag"), first.headers.get("etag"));
  } finally {
    remove();
  }
});

Deno.test("staticFiles() shares one file-system check among concurrent requests", async () => {
  const get = setup();
  const results = await Promise.all(
    Array.from({ length: 50 }, () => get("/static/big.bin", { headers: { range: "bytes=0-9" } })),
  );
  for (const res of results) {
    assert.equal(res.status, 206);
    assert.deepEqual(res.body, pattern(10));
  }
});

function entry(size: number): Entry {
  return { size, hot: false, checkedAt: 0 } as unknown as Entry;
}

Deno.test("FileCache stays within its byte bound and gives recently used entries a second chance", () => {
  const cache = new FileCache(10 * ENTRY_OVERHEAD);
  for (let i = 0; i < 10; i++) cache.set(`/${i}`, entry(ENTRY_OVERHEAD));
  assert.equal(cache.bytes, 10 * ENTRY_OVERHEAD);
  cache.get("/0"); // recently used: survives the next eviction
  cache.set("/10", entry(ENTRY_OVERHEAD));
  assert.ok(cache.get("/0") !== undefined);
  assert.equal(cache.get("/1"), undefined); // the least recently used went first
  assert.ok(cache.bytes <= 10 * ENTRY_OVERHEAD);
  cache.set("/big", entry(5 * ENTRY_OVERHEAD));
  assert.ok(cache.bytes <= 10 * ENTRY_OVERHEAD);
  cache.set("/huge", entry(11 * ENTRY_OVERHEAD)); // larger than the bound: never held
  assert.equal(cache.get("/huge"), undefined);
  assert.ok(cache.bytes <= 10 * ENTRY_OVERHEAD);
  cache.delete("/big");
  const held = cache.size;
  cache.set("/0", entry(ENTRY_OVERHEAD)); // replacing a key does not double-count it
  assert.equal(cache.size, held);
});

Deno.test("staticFiles() keeps its cache within cache.maxBytes", async () => {
  const { dir, remove } = scratch();
  try {
    const size = 4096;
    for (let i = 0; i < 64; i++) Deno.writeFileSync(`${dir}/f${i}.bin`, pattern(size));
    const maxBytes = 8 * (size + ENTRY_OVERHEAD);
    const app = chain(
      [staticFiles({ root: dir, cache: { maxBytes } })],
      () => new Response("next"),
    );
    for (let round = 0; round < 2; round++) {
      for (let i = 0; i < 64; i++) {
        const res = await app.fetch(new Request(`http://localhost/f${i}.bin`));
        assert.deepEqual(new Uint8Array(await res.arrayBuffer()), pattern(size));
      }
    }
  } finally {
    remove();
  }
});

Deno.test("staticFiles() sends cached text and binary files byte for byte", async () => {
  const { dir, remove } = scratch();
  try {
    const files: Record<string, Uint8Array> = {
      "bom.txt": new Uint8Array([0xef, 0xbb, 0xbf, 0x68, 0x69]),
      "utf8.html": new TextEncoder().encode("<p>naïve – 日本語 – 🎉</p>"),
      "latin1.txt": new Uint8Array([0x63, 0x61, 0x66, 0xe9]), // not UTF-8
      "nul.bin": new Uint8Array([0, 1, 2, 0, 255]),
    };
    for (const [name, bytes] of Object.entries(files)) Deno.writeFileSync(`${dir}/${name}`, bytes);
    const app = chain([staticFiles({ root: dir })], () => new Response("next"));
    for (let round = 0; round < 2; round++) { // the first read fills the cache, the second hits it
      for (const [name, bytes] of Object.entries(files)) {
        const res = await app.fetch(new Request(`http://localhost/${name}`));
        assert.deepEqual(new Uint8Array(await res.arrayBuffer()), bytes, name);
        assert.equal(res.headers.get("content-length"), String(bytes.length));
        assert.ok(!res.headers.get("content-type")!.startsWith("text/plain;charset=UTF-8"));
      }
    }
  } finally {
    remove();
  }
});
