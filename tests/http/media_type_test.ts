import assert from "node:assert/strict";
import { contentType, contentTypeWithCharset, extensionOf } from "../../lib/http/media_type.ts";
import { MIME_TYPES } from "../../lib/http/mime_table.ts";

Deno.test("contentType() gives the spec's additions precedence over mime-db", () => {
  const spec: Record<string, string> = {
    "a.js": "application/javascript",
    "a.json": "application/json",
    "a.svg": "image/svg+xml",
    "a.md": "text/markdown",
    "a.css": "text/css",
    "a.html": "text/html",
  };
  for (const [name, type] of Object.entries(spec)) assert.equal(contentType(name), type, name);
});

Deno.test("contentType() falls back to application/octet-stream", () => {
  for (const name of ["a.zzqx", "README", ".bashrc", "..bashrc", "a.", "dir.d/file", ""]) {
    assert.equal(contentType(name), "application/octet-stream", name);
  }
});

Deno.test("contentType() knows the types users expect from the standard database", () => {
  const expected: Record<string, string> = {
    "a.txt": "text/plain",
    "a.htm": "text/html",
    "a.png": "image/png",
    "a.jpg": "image/jpeg",
    "a.webp": "image/webp",
    "a.avif": "image/avif",
    "a.woff2": "font/woff2",
    "a.wasm": "application/wasm",
    "a.mjs": "text/javascript",
    "a.mp4": "video/mp4",
    "a.pdf": "application/pdf",
    "a.zip": "application/zip",
    "A.PNG": "image/png",
    "archive.tar.gz": "application/gzip",
    ".config.json": "application/json",
  };
  for (const [name, type] of Object.entries(expected)) assert.equal(contentType(name), type, name);
});

Deno.test("extensionOf() ignores leading dots and directories", () => {
  assert.equal(extensionOf("a/b.c/d"), "");
  assert.equal(extensionOf("a/.env"), "");
  assert.equal(extensionOf("a/.env.local"), "local");
  assert.equal(extensionOf("x.TXT"), "txt");
});

Deno.test("contentTypeWithCharset() adds utf-8 to textual types only", () => {
  assert.equal(contentTypeWithCharset("a.html"), "text/html; charset=utf-8");
  assert.equal(contentTypeWithCharset("a.js"), "application/javascript; charset=utf-8");
  assert.equal(contentTypeWithCharset("a.json"), "application/json; charset=utf-8");
  assert.equal(contentTypeWithCharset("a.svg"), "image/svg+xml; charset=utf-8");
  assert.equal(contentTypeWithCharset("a.png"), "image/png");
  assert.equal(contentTypeWithCharset("a.bin"), "application/octet-stream");
});

Deno.test("the generated MIME table has lower-case keys without dots and valid types", () => {
  const entries = Object.entries(MIME_TYPES);
  assert.ok(entries.length > 1000);
  for (const [ext, type] of entries) {
    assert.match(ext, /^[a-z0-9][a-z0-9_+.-]*$/, ext);
    assert.ok(!ext.startsWith("."), ext);
    assert.match(type, /^[a-z]+(-[a-z]+)?\/[a-zA-Z0-9.+_-]+$/, type);
  }
});
