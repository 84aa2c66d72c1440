import assert from "node:assert/strict";
import { formatHttpDate } from "../../lib/http/date.ts";
import { fileEtag } from "../../lib/http/etag.ts";
import { fs } from "../../lib/server/deno.ts";
import { type FileWrapper, StaticMiddleware, validator, type WsgiApp } from "../../wsgi/mod.ts";
import {
  BIG_SIZE,
  buildFixture,
  call,
  CANARY,
  decoder,
  type EnvironOptions,
  fallbackApp,
  latin1,
  makeEnviron,
  pattern,
} from "./_harness.ts";

const fixture = await buildFixture();
const { root, base } = fixture;
globalThis.addEventListener("unload", () => fixture.remove());

/** The middleware under the validator on both sides, and its wrapped app's hit list. */
function setup(prefix = "/static", maxAge?: number, dir = root) {
  const fallback = fallbackApp();
  const inner = validator(fallback);
  const app = validator(StaticMiddleware(inner, dir, prefix, maxAge));
  const get = (path: string, options: EnvironOptions = {}) => {
    const res = call(app, makeEnviron(path, options));
    app.assertClosed();
    inner.assertClosed();
    return res;
  };
  return { fallback, app, get };
}

function stat(name: string) {
  const info = Deno.statSync(`${root}/${name}`);
  const mtimeMs = info.mtime!.getTime();
  return {
    etag: fileEtag(info.size, BigInt(mtimeMs) * 1_000_000n),
    lastModified: formatHttpDate(mtimeMs),
    size: info.size,
  };
}

Deno.test("StaticMiddleware() serves a file under the prefix with every spec header", () => {
  const { get, fallback } = setup();
  const res = get("/static/hello.txt");
  const expected = stat("hello.txt");
  assert.equal(res.status, "200 OK");
  assert.equal(res.text, "hello world");
  assert.equal(res.headers.get("etag"), expected.etag);
  assert.match(res.headers.get("etag")!, /^"[0-9a-f]{16}"$/);
  assert.equal(res.headers.get("last-modified"), expected.lastModified);
  assert.equal(res.headers.get("content-type"), "text/plain");
  assert.equal(res.headers.get("cache-control"), "max-age=60");
  assert.equal(res.headers.get("content-length"), "11");
  assert.deepEqual(fallback.hits, []);
});

Deno.test("StaticMiddleware() uses the configured maxAge and rejects invalid ones", () => {
  assert.equal(
    setup("/static", 3600).get("/static/hello.txt").headers.get("cache-control"),
    "max-age=3600",
  );
  assert.equal(
    setup("/static", 0).get("/static/hello.txt").headers.get("cache-control"),
    "max-age=0",
  );
  for (const bad of [-1, 1.5, NaN, Infinity]) {
    assert.throws(() => StaticMiddleware(fallbackApp(), root, "/static", bad), RangeError);
  }
});

Deno.test("StaticMiddleware() passes paths outside the prefix to the wrapped app", () => {
  const { get, fallback } = setup();
  for (
    const path of [
      "/",
      "/hello.txt",
      "/other/hello.txt",
      "/staticfoo/hello.txt",
      "/Static/hello.txt",
    ]
  ) {
    const res = get(path);
    assert.equal(res.text, "fallback", path);
  }
  assert.equal(fallback.hits.length, 5);
});

Deno.test("StaticMiddleware() matches prefixes with or without slashes, and the root prefix", () => {
  for (const prefix of ["/static/", "static", "/static//"]) {
    assert.equal(setup(prefix).get("/static/hello.txt").text, "hello world", prefix);
  }
  for (const prefix of ["/", ""]) {
    const { get } = setup(prefix);
    assert.equal(get("/hello.txt").text, "hello world", prefix);
    assert.equal(get("/nested/deep/file.txt").text, "deep", prefix);
  }
  const mounted = setup("/a/b");
  assert.equal(mounted.get("/a/b/hello.txt").text, "hello world");
  assert.equal(mounted.get("/a/hello.txt").text, "fallback");
});

Deno.test("StaticMiddleware() strips leading slashes and ignores empty and dot segments", () => {
  const { get } = setup();
  assert.equal(get("/static//hello.txt").text, "hello world");
  assert.equal(get("/static///nested//deep/./file.txt").text, "deep");
  assert.equal(get("/static/./hello.txt").text, "hello world");
});

Deno.test("StaticMiddleware() rejects every path shape of the spec's table by falling through", () => {
  const { get, fallback } = setup();
  const shapes: Record<string, string> = {
    "`..` at the start": "/static/../canary.txt",
    "`..` at the start, deeper": "/static/../../../etc/passwd",
    "`..` in the middle": "/static/nested/../hello.txt",
    "`..` in the middle, escaping": "/static/nested/../../canary.txt",
    "`..` at the end": "/static/nested/..",
    "absolute path (leading slashes stripped, then relative to the root)": "/static//etc/passwd",
    "absolute path to the canary": `/static/${base}/canary.txt`,
    "absolute path, many slashes": `/static////${base}/l1/l2/static_evil/secret.txt`,
    "Windows drive letter": "/static/C:/boot.ini",
    "sibling directory sharing the root's name prefix": "/static/../static_evil/secret.txt",
    "sibling via a symlink to a file": "/static/link_evil.txt",
    "sibling via a symlinked directory": "/static/link_evil_dir/secret.txt",
    "symlink to a parent file": "/static/link_outside.txt",
    "symlink with an absolute target": "/static/link_absolute.txt",
    "NUL byte": "/static/hello.txt\0.png",
    "NUL byte alone": "/static/\0",
    "backslash separators": "/static/nested\\deep\\file.txt",
    "backslash traversal": "/static/..\\canary.txt",
  };
  for (const [shape, path] of Object.entries(shapes)) {
    const res = get(path);
    assert.equal(res.status, "404 Not Found", shape);
    assert.equal(res.text, "fallback", shape);
    assert.ok(!res.text.includes(CANARY), shape);
  }
  assert.equal(fallback.hits.length, Object.keys(shapes).length);
});

Deno.test("StaticMiddleware() serves a symlink that stays inside the root", () => {
  const { get } = setup();
  assert.equal(get("/static/link_inside.txt").text, "hello world");
  assert.equal(get("/static/link_dir_inside/deep/file.txt").text, "deep");
});

Deno.test("StaticMiddleware() lets directories, FIFOs and missing files fall through", () => {
  const { get, fallback } = setup();
  for (
    const path of [
      "/static",
      "/static/",
      "/static/dir",
      "/static/dir/",
      "/static/nested/deep",
      "/static/fifo",
      "/static/missing.txt",
      "/static/link_dangling.txt",
      "/static/hello.txt/",
      "/static/hello.txt/.",
      "/static/hello.txt/x",
    ]
  ) {
    assert.equal(get(path).text, "fallback", path);
  }
  assert.equal(fallback.hits.length, 11);
});

Deno.test("StaticMiddleware() answers 304 when If-None-Match matches the ETag, weakly, in lists and as *", () => {
  const { get } = setup();
  const { etag, lastModified } = stat("hello.txt");
  for (const value of [etag, `W/${etag}`, `"nope", ${etag}`, `W/"x",W/${etag} , "y"`, "*"]) {
    const res = get("/static/hello.txt", { headers: { "If-None-Match": value } });
    assert.equal(res.status, "304 Not Modified", value);
    assert.equal(res.body.length, 0);
    assert.equal(res.headers.get("etag"), etag);
    assert.equal(res.headers.get("last-modified"), lastModified);
    assert.equal(res.headers.get("cache-control"), "max-age=60");
    assert.equal(res.headers.has("content-type"), false);
  }
  for (const value of ['"nope"', etag.slice(0, -2) + '"', "", "garbage"]) {
    assert.equal(
      get("/static/hello.txt", { headers: { "If-None-Match": value } }).code,
      200,
      value,
    );
  }
});

Deno.test("StaticMiddleware() answers 304 from If-Modified-Since only without If-None-Match", () => {
  const { get } = setup();
  const { lastModified } = stat("hello.txt");
  const lm = Date.parse(lastModified);
  const ims = (ms: number) => ({ "If-Modified-Since": formatHttpDate(ms) });
  assert.equal(get("/static/hello.txt", { headers: ims(lm) }).code, 304);
  assert.equal(get("/static/hello.txt", { headers: ims(lm + 86_400_000) }).code, 304);
  assert.equal(get("/static/hello.txt", { headers: ims(lm - 1000) }).code, 200);
  assert.equal(
    get("/static/hello.txt", { headers: { "If-Modified-Since": "not a date" } }).code,
    200,
  );
  // RFC 9110 §13.1.3: a stale ETag wins over a fresh date
  const stale = { "If-None-Match": '"stale"', "If-Modified-Since": formatHttpDate(lm + 1000) };
  assert.equal(get("/static/hello.txt", { headers: stale }).code, 200);
  // the obsolete date forms are accepted
  const rfc850 = new Date(lm).toUTCString().replace(
    /^(\w+), (\d\d) (\w+) \d\d(\d\d)/,
    (_, d, dd, mon, yy) =>
      `${
        {
          Sun: "Sunday",
          Mon: "Monday",
          Tue: "Tuesday",
          Wed: "Wednesday",
          Thu: "Thursday",
          Fri: "Friday",
          Sat: "Saturday",
        }[d as "Sun"]
      }, ${dd}-${mon}-${yy}`,
  );
  assert.equal(get("/static/hello.txt", { headers: { "If-Modified-Since": rfc850 } }).code, 304);
});

Deno.test("StaticMiddleware() honours If-Match and If-Unmodified-Since with 412", () => {
  const { get } = setup();
  const { etag, lastModified } = stat("hello.txt");
  const lm = Date.parse(lastModified);
  const res = get("/static/hello.txt", { headers: { "If-Match": '"other"' } });
  assert.equal(res.status, "412 Precondition Failed");
  assert.equal(res.headers.get("etag"), etag);
  assert.equal(get("/static/hello.txt", { headers: { "If-Match": etag } }).code, 200);
  assert.equal(get("/static/hello.txt", { headers: { "If-Match": `W/${etag}` } }).code, 412);
  assert.equal(get("/static/hello.txt", { headers: { "If-Match": "*" } }).code, 200);
  const ius = (ms: number) => ({ "If-Unmodified-Since": formatHttpDate(ms) });
  assert.equal(get("/static/hello.txt", { headers: ius(lm - 1000) }).code, 412);
  assert.equal(get("/static/hello.txt", { headers: ius(lm) }).code, 200);
});

Deno.test("StaticMiddleware() answers HEAD with the headers only", () => {
  const { get } = setup();
  const res = get("/static/big.bin", { method: "HEAD" });
  assert.equal(res.status, "200 OK");
  assert.equal(res.body.length, 0);
  assert.equal(res.headers.get("content-length"), String(BIG_SIZE));
  assert.equal(res.headers.get("content-type"), "application/octet-stream");
  assert.equal(res.headers.get("etag"), stat("big.bin").etag);
  const conditional = get("/static/big.bin", { method: "HEAD", headers: { "If-None-Match": "*" } });
  assert.equal(conditional.code, 304);
});

Deno.test("StaticMiddleware() answers other methods on an existing file with 405 and Allow", () => {
  const { get, fallback } = setup();
  for (const method of ["POST", "PUT", "DELETE", "PATCH", "OPTIONS", "get"]) {
    const res = get("/static/hello.txt", { method });
    assert.equal(res.status, "405 Method Not Allowed", method);
    assert.equal(res.headers.get("allow"), "GET, HEAD");
    assert.equal(res.headers.get("content-type"), "application/problem+json");
    assert.equal(JSON.parse(res.text).status, 405);
  }
  // a missing file, a directory or a rejected path still goes to the app
  for (const path of ["/static/missing.txt", "/static/dir", "/static/../canary.txt"]) {
    assert.equal(get(path, { method: "POST" }).text, "fallback");
  }
  assert.equal(fallback.hits.length, 3);
});

Deno.test("StaticMiddleware() re-decodes PATH_INFO's Latin-1 code units as UTF-8", () => {
  const { get, fallback } = setup();
  assert.equal(get(latin1("/static/café.txt")).text, "café");
  // the raw Unicode string is not what a server sends: é alone is byte 0xE9, not UTF-8
  assert.equal(get("/static/café.txt").text, "fallback");
  assert.equal(get("/static/caf\xc3.txt").text, "fallback"); // truncated sequence
  assert.equal(fallback.hits.length, 2);
  // not a native string (the validator would refuse such an environ, so call directly)
  const direct = StaticMiddleware(fallback, root, "/static");
  assert.equal(call(direct, makeEnviron("/static/caf\u0100.txt")).text, "fallback");
});

Deno.test("StaticMiddleware() matches a prefix past ASCII against PATH_INFO's Latin-1 code units", () => {
  const { fallback, get } = setup("/café/ü");
  const res = get(latin1("/café/ü/hello.txt"));
  assert.equal(res.code, 200);
  assert.equal(res.text, "hello world");
  assert.equal(get(latin1("/café/hello.txt")).text, "fallback");
  assert.equal(get("/café/ü/hello.txt").text, "fallback"); // not a PEP 3333 native string
  assert.equal(fallback.hits.length, 2);
});

Deno.test("StaticMiddleware() never percent-decodes PATH_INFO a second time", () => {
  const { get } = setup();
  assert.equal(get("/static/hello%2etxt").text, "fallback");
  assert.equal(get("/static/%2e%2e/canary.txt").text, "fallback");
  assert.equal(get("/static/caf%C3%A9.txt").text, "fallback");
});

Deno.test("StaticMiddleware() types files from the spec's table and mime-db", () => {
  const { get } = setup();
  const expected: Record<string, string> = {
    "app.js": "application/javascript",
    "data.json": "application/json",
    "logo.svg": "image/svg+xml",
    "readme.md": "text/markdown",
    "style.css": "text/css",
    "index.html": "text/html",
    "hello.txt": "text/plain",
    "image.png": "image/png",
    "font.woff2": "font/woff2",
    "unknown.zzqx": "application/octet-stream",
    "noext": "application/octet-stream",
    "link_inside.txt": "text/plain",
  };
  for (const [name, type] of Object.entries(expected)) {
    assert.equal(get(`/static/${name}`).headers.get("content-type"), type, name);
  }
});

Deno.test("StaticMiddleware() serves empty and one-byte files", () => {
  const { get } = setup();
  const empty = get("/static/empty.txt");
  assert.equal(empty.code, 200);
  assert.equal(empty.headers.get("content-length"), "0");
  assert.equal(empty.body.length, 0);
  assert.deepEqual(get("/static/one.bin").body, new Uint8Array([42]));
});

Deno.test("StaticMiddleware() lets dotfiles fall through unless dotfiles is allow", () => {
  const dir = Deno.makeTempDirSync({ prefix: "weft_wsgi_dot_" });
  try {
    Deno.mkdirSync(`${dir}/.git`);
    Deno.mkdirSync(`${dir}/public/.well-known`, { recursive: true });
    Deno.writeTextFileSync(`${dir}/.env`, "SECRET=1");
    Deno.writeTextFileSync(`${dir}/.git/config`, "[core]");
    Deno.writeTextFileSync(`${dir}/public/.well-known/security.txt`, "contact");
    Deno.writeTextFileSync(`${dir}/public/ok.txt`, "ok");
    Deno.symlinkSync(".env", `${dir}/env.txt`); // a plain name whose real path is a dotfile
    const dotted = ["/static/.env", "/static/.git/config", "/static//.env", "/static/./.env"];
    const nested = ["/static/public/.well-known/security.txt", "/static/env.txt"];

    // The spec's four positional parameters keep working, with dotfiles refused.
    const { get, fallback } = setup("/static", 60, dir);
    for (const path of [...dotted, ...nested]) {
      assert.equal(get(path).text, "fallback", path);
    }
    assert.equal(fallback.hits.length, dotted.length + nested.length);
    assert.equal(get("/static/public/ok.txt").text, "ok");

    const allowed = validator(
      StaticMiddleware(fallbackApp(), dir, "/static", 60, { dotfiles: "allow" }),
    );
    assert.equal(call(allowed, makeEnviron("/static/.env")).text, "SECRET=1");
    assert.equal(call(allowed, makeEnviron("/static/.git/config")).text, "[core]");
    assert.equal(call(allowed, makeEnviron("/static/env.txt")).text, "SECRET=1");
    assert.equal(
      call(allowed, makeEnviron("/static/.env")).headers.get("content-type"),
      "application/octet-stream",
    );
    const denied = StaticMiddleware(fallbackApp(), dir, "/static", 60, { dotfiles: "deny" });
    assert.equal(call(denied, makeEnviron("/static/.env")).text, "fallback");
    assert.throws(
      () => StaticMiddleware(fallbackApp(), dir, "/static", 60, { dotfiles: "ignore" as "deny" }),
      /dotfiles must be "deny" or "allow", got "ignore"/,
    );
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});

Deno.test("StaticMiddleware() streams a large file in chunks with close()", () => {
  const { get } = setup();
  const res = get("/static/big.bin");
  assert.equal(res.code, 200);
  assert.ok(res.chunks > 1, `expected several chunks, got ${res.chunks}`);
  assert.ok(res.hadClose);
  assert.deepEqual(res.body, pattern(BIG_SIZE));
  // 64 KiB exactly still goes in one read
  const exact = get("/static/exact.bin");
  assert.equal(exact.chunks, 1);
  assert.deepEqual(exact.body, pattern(64 * 1024));
});

Deno.test("StaticMiddleware() uses wsgi.file_wrapper for large files when the server offers one", () => {
  const { get } = setup();
  const calls: number[] = [];
  let closed = 0;
  const wrapper: FileWrapper = (file, blockSize = 8192) => {
    calls.push(blockSize);
    return {
      *[Symbol.iterator]() {
        while (true) {
          const chunk = file.read(blockSize);
          if (chunk.length === 0) return;
          yield chunk;
        }
      },
      close() {
        closed++;
        file.close?.();
      },
    };
  };
  const res = get("/static/big.bin", { fileWrapper: wrapper });
  assert.deepEqual(calls, [65536]);
  assert.equal(closed, 1);
  assert.deepEqual(res.body, pattern(BIG_SIZE));
  get("/static/hello.txt", { fileWrapper: wrapper }); // small files are read in one go
  assert.deepEqual(calls, [65536]);
});

Deno.test("StaticMiddleware() releases the file when the server stops early", () => {
  const app = StaticMiddleware(fallbackApp(), root, "/static");
  for (let i = 0; i < 2000; i++) {
    const body = app(makeEnviron("/static/big.bin"), () => () => {});
    const iterator = body[Symbol.iterator]();
    iterator.next();
    body.close?.(); // would leak 2,000 descriptors if close() did not close the file
  }
});

Deno.test("StaticMiddleware() sends a new ETag after the file changes", () => {
  const { get } = setup();
  const path = `${root}/changing.txt`;
  Deno.writeTextFileSync(path, "v1");
  Deno.utimeSync(path, new Date(1_600_000_000_000), new Date(1_600_000_000_000));
  const first = get("/static/changing.txt").headers.get("etag")!;
  Deno.utimeSync(path, new Date(1_600_000_000_001), new Date(1_600_000_000_001));
  const second = get("/static/changing.txt");
  assert.notEqual(second.headers.get("etag"), first);
  assert.equal(get("/static/changing.txt", { headers: { "If-None-Match": first } }).code, 200);
  Deno.removeSync(path);
});

Deno.test("StaticMiddleware() never sends a file replaced before it was opened with the old headers", () => {
  // A deploy renames a new version over the path between the middleware's stat and its open:
  // the body must be the version the ETag and Content-Length describe, not the new bytes cut
  // to the old length under the old ETag (which a cache would keep for max-age).
  const { get } = setup();
  const path = `${root}/replaced.js`;
  Deno.writeTextFileSync(path, "old();");
  Deno.utimeSync(path, new Date(1_600_000_000_000), new Date(1_600_000_000_000));
  const open = fs.openSync;
  let replaced = 0;
  fs.openSync = (file) => {
    if (replaced++ === 0) {
      Deno.writeTextFileSync(`${path}.tmp`, "a longer new version();");
      Deno.renameSync(`${path}.tmp`, path);
    }
    return open(file);
  };
  try {
    const res = get("/static/replaced.js");
    assert.equal(res.code, 200);
    assert.equal(res.text, "a longer new version();");
    assert.equal(res.headers.get("content-length"), "23");
    assert.equal(res.headers.get("etag"), stat("replaced.js").etag);
    // a file replaced before every open is a 503, never a mixed answer
    replaced = 0;
    fs.openSync = (file) => {
      Deno.writeTextFileSync(`${path}.tmp`, `version ${replaced++}`);
      Deno.utimeSync(`${path}.tmp`, new Date(1_600_000_000_000), new Date(replaced * 1000));
      Deno.renameSync(`${path}.tmp`, path);
      return open(file);
    };
    assert.equal(get("/static/replaced.js").code, 503);
  } finally {
    fs.openSync = open;
    Deno.removeSync(path);
  }
});

Deno.test("StaticMiddleware() never sends a small file cut short while it was read under its old ETag", () => {
  // The file is truncated and rewritten in place after it was opened and checked: the bytes
  // read are fewer than the size the ETag and Content-Length were made from.
  const { get } = setup();
  const path = `${root}/shrinking.txt`;
  Deno.writeTextFileSync(path, "the first, longer version");
  Deno.utimeSync(path, new Date(1_600_000_000_000), new Date(1_600_000_000_000));
  const open = fs.openSync;
  let shrunk = 0;
  fs.openSync = (file) => {
    const opened = open(file);
    return {
      statSync: () => opened.statSync(),
      readSync(buffer, position) {
        if (shrunk++ === 0) Deno.writeTextFileSync(path, "short");
        return opened.readSync(buffer, position);
      },
      close: () => opened.close(),
    };
  };
  try {
    const res = get("/static/shrinking.txt");
    assert.equal(res.code, 200);
    assert.equal(res.text, "short");
    assert.equal(res.headers.get("content-length"), "5");
    assert.equal(res.headers.get("etag"), stat("shrinking.txt").etag);
  } finally {
    fs.openSync = open;
    Deno.removeSync(path);
  }
});

Deno.test("StaticMiddleware() falls through while the root is missing and serves once it exists", () => {
  const dir = `${base}/late_root`;
  const { get } = setup("/static", 60, dir);
  assert.equal(get("/static/a.txt").text, "fallback");
  Deno.mkdirSync(dir);
  Deno.writeTextFileSync(`${dir}/a.txt`, "late");
  assert.equal(get("/static/a.txt").text, "late");
});

Deno.test("StaticMiddleware() passes the environ and startResponse to the app untouched", () => {
  let seen: unknown;
  const app: WsgiApp = (environ, startResponse) => {
    seen = environ.PATH_INFO;
    startResponse("200 OK", [["Content-Type", "text/plain"]]);
    return [new TextEncoder().encode("app")];
  };
  const res = call(StaticMiddleware(app, root, "/static"), makeEnviron("/api/users"));
  assert.equal(seen, "/api/users");
  assert.equal(decoder.decode(res.body), "app");
});
