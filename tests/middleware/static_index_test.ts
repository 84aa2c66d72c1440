import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chain, get, router } from "../../mod.ts";
import { staticFiles, type StaticFilesOptions } from "../../lib/middleware/static_files.ts";

const root = mkdtempSync(join(tmpdir(), "weft_index_"));
for (const dir of ["docs", "empty", "evil.example", "app"]) mkdirSync(join(root, dir));
writeFileSync(join(root, "index.html"), "<h1>home</h1>");
writeFileSync(join(root, "docs", "index.html"), "<h1>docs</h1>");
writeFileSync(join(root, "evil.example", "index.html"), "<h1>not evil</h1>");
writeFileSync(join(root, "app", "shell.html"), "<div id=app></div>");
writeFileSync(join(root, "app.js"), "start()");
globalThis.addEventListener("unload", () => rmSync(root, { recursive: true, force: true }));

function setup(options: Partial<StaticFilesOptions>, prefix = "/site") {
  const app = chain(
    [staticFiles({ root, prefix, ...options })],
    router([
      get("/login", () => new Response("login form")),
      get("/site/login", () => new Response("login form")),
    ]),
  );
  return async (path: string, init: RequestInit = {}) => {
    const res = await app.fetch(new Request(`http://localhost${path}`, init));
    return { res, status: res.status, headers: res.headers, text: await res.text() };
  };
}

const HTML = { accept: "text/html,application/xhtml+xml,*/*;q=0.8" };

Deno.test("staticFiles({ index }) serves a directory's index file", async () => {
  const get = setup({ index: "index.html" });
  assert.equal((await get("/site/")).text, "<h1>home</h1>");
  assert.equal((await get("/site/docs/")).text, "<h1>docs</h1>");
  assert.equal((await get("/site/docs/.")).text, "<h1>docs</h1>");
  const head = await get("/site/docs/", { method: "HEAD" });
  assert.equal(head.status, 200);
  assert.equal(head.headers.get("content-type"), "text/html; charset=utf-8");
  assert.equal((await get("/site/empty/")).status, 404);
  assert.equal((await setup({})("/site/docs/")).status, 404); // no index option, no index
});

Deno.test("staticFiles({ index }) redirects a directory without its slash with 308, query kept", async () => {
  const get = setup({ index: "index.html" });
  const docs = await get("/site/docs?page=2");
  assert.equal(docs.status, 308);
  assert.equal(docs.headers.get("location"), "/site/docs/?page=2");
  const top = await get("/site");
  assert.equal(top.status, 308);
  assert.equal(top.headers.get("location"), "/site/");
  assert.equal((await get("/site/empty")).status, 404); // a directory without an index
  assert.equal((await get("/site/missing")).status, 404);
});

Deno.test("staticFiles({ index }) never redirects to another origin", async () => {
  const get = setup({ index: "index.html" }, "/");
  // (Request, like a server, parses the target as a URL: `/\\x` and `/.//x` arrive as `//x`)
  for (const path of ["//evil.example", "///evil.example", "/.//evil.example", "/\\evil.example"]) {
    const res = await get(path);
    assert.equal(res.status, 308, path);
    const location = res.headers.get("location")!;
    assert.equal(new URL(location, "http://localhost/").origin, "http://localhost", path);
    assert.equal(location, "/evil.example/", path);
  }
  for (const path of ["/%5Cevil.example", "/%2F%2Fevil.example", "/%5C%5Cevil.example"]) {
    const res = await get(path);
    assert.equal(res.status, 400, path);
    assert.equal(res.headers.get("location"), null, path);
  }
});

Deno.test("staticFiles({ fallback }) serves the app shell to navigations only", async () => {
  const get = setup({ fallback: "app/shell.html", fallbackExclude: ["/site/api"] });
  const page = await get("/site/users/7", { headers: HTML });
  assert.equal(page.status, 200);
  assert.equal(page.text, "<div id=app></div>");
  assert.equal(page.headers.get("vary"), "Accept");
  assert.equal((await get("/site/users/7", { method: "HEAD", headers: HTML })).status, 200);
  const refused: [string, RequestInit][] = [
    ["/site/users/7", {}], // fetch() without Accept
    ["/site/users/7", { headers: { accept: "*/*" } }],
    ["/site/users/7", { headers: { accept: "text/html;q=0, */*" } }],
    ["/site/users/7", { headers: { accept: "application/json" } }],
    ["/site/missing.js", { headers: HTML }], // looks like a file
    ["/site/api/users", { headers: HTML }], // excluded
    ["/site/api", { headers: HTML }],
    ["/site/%61pi/users", { headers: HTML }], // the same path (RFC 3986 §6.2.2)
  ];
  for (const [path, init] of refused) {
    const res = await get(path, init);
    assert.equal(res.status, 404, `${path} ${JSON.stringify(init)}`);
    // the first four would get the page with another Accept; the others never get it
    const vary = path === "/site/users/7" ? "Accept" : null;
    assert.equal(res.headers.get("vary"), vary, `${path} ${JSON.stringify(init)}`);
  }
  assert.equal((await get("/site/apidocs", { headers: HTML })).status, 200); // whole segments
  assert.equal((await get("/site/app.js", { headers: HTML })).text, "start()");
  const post = await get("/site/users/7", { method: "POST", headers: HTML });
  assert.equal(post.status, 404); // the router's answer: staticFiles() only serves GET and HEAD
});

Deno.test("staticFiles({ fallback, fallthrough }) lets the next layer answer first", async () => {
  const get = setup({ fallback: "app/shell.html", fallthrough: true });
  assert.equal((await get("/site/login", { headers: HTML })).text, "login form");
  assert.equal((await get("/site/users/7", { headers: HTML })).text, "<div id=app></div>");
  assert.equal((await get("/site/users/7")).status, 404);
});

Deno.test("staticFiles({ fallback }) varies the 404 for a client route on Accept, as the page", async () => {
  // A shared cache keyed without Accept would give the 404 of a fetch() to the next navigation.
  const page = await setup({ fallback: "app/shell.html" })("/site/users/7", { headers: HTML });
  assert.equal(page.headers.get("vary"), "Accept");
  const own = await setup({ fallback: "app/shell.html" })("/site/users/7");
  assert.equal(own.status, 404);
  assert.equal(own.headers.get("vary"), "Accept");
  // with fallthrough the 404 is the router's; any other answer of next() does not vary
  const get = setup({ fallback: "app/shell.html", fallthrough: true });
  const routers = await get("/site/users/7", { headers: { accept: "*/*" } });
  assert.equal(routers.status, 404);
  assert.equal(routers.headers.get("vary"), "Accept");
  assert.equal((await get("/site/login")).headers.get("vary"), null);
  assert.equal((await get("/site/missing.js")).headers.get("vary"), null); // never the page
  // a Vary already on next()'s 404 is kept, and Accept is listed once
  for (
    const [vary, merged] of [["Origin", "Origin, Accept"], ["origin, accept", "origin, accept"]]
  ) {
    const app = chain(
      [staticFiles({ root, fallback: "app/shell.html", fallthrough: true })],
      () => new Response("no", { status: 404, headers: { vary } }),
    );
    const res = await app.fetch(new Request("http://localhost/users/7"));
    await res.body?.cancel();
    assert.equal(res.headers.get("vary"), merged, vary);
    const shell = await app.fetch(new Request("http://localhost/users/7", { headers: HTML }));
    assert.equal(await shell.text(), "<div id=app></div>");
    assert.equal(shell.headers.get("vary"), "Accept");
  }
});

Deno.test("staticFiles({ fallback, fallthrough }) varies a proxied 404, whose headers are immutable", async () => {
  const upstream = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    () => new Response("not here", { status: 404, headers: { vary: "Origin" } }),
  );
  try {
    const app = chain(
      [staticFiles({ root, fallback: "app/shell.html", fallthrough: true })],
      (ctx) => fetch(`http://127.0.0.1:${upstream.addr.port}${ctx.path}`),
    );
    const res = await app.fetch(new Request("http://localhost/users/7"));
    assert.equal(res.status, 404);
    assert.equal(res.headers.get("vary"), "Origin, Accept");
    assert.equal(await res.text(), "not here");
  } finally {
    await upstream.shutdown();
  }
});

Deno.test("staticFiles() refuses an index that is not a file name and a fallback outside the root", () => {
  for (const index of ["", "a/b", "..", "a\\b"]) {
    assert.throws(() => staticFiles({ root, index }), /index/, index);
  }
  for (const fallback of ["../index.html", "/", "a/../../x"]) {
    assert.throws(() => staticFiles({ root, fallback }), /fallback/, fallback);
  }
});
