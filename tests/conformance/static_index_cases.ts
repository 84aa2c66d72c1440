// Conformance cases for staticFiles({ index, fallback }) over real sockets, on both runtimes:
// request targets sent raw (a client library would normalise them) that start like another
// host get a 308 to a path on the same origin or a 4xx, never a Location on another host; a
// browser navigation to a client-side route gets the app shell, and both that page and the 404
// the same path gets without text/html carry Vary: Accept.
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Env } from "./suite.ts";
import { RawClient } from "./websocket_cases.ts";
import { withDeadline } from "../_deadline.ts";

export const staticIndexCases: Record<string, (env: Env) => Promise<void>> = {
  async "staticFiles({ index }): raw targets that look like another host stay on the origin"(env) {
    const { staticFiles, chain, get, router } = env.weft;
    const root = mkdtempSync(join(tmpdir(), "weft-index-"));
    mkdirSync(join(root, "evil.example"));
    mkdirSync(join(root, "docs"));
    writeFileSync(join(root, "evil.example", "index.html"), "<p>local</p>");
    writeFileSync(join(root, "docs", "index.html"), "<p>docs</p>");
    writeFileSync(join(root, "shell.html"), "<div id=app></div>");
    const app = chain(
      [staticFiles({
        root,
        index: "index.html",
        fallback: "shell.html",
        fallbackExclude: ["/api"],
        fallthrough: true,
      })],
      router([get("/api/ping", () => new Response("pong"))]),
    );
    const server = env.weft.serve(app, { port: 0, hostname: "127.0.0.1", onListen() {} });
    try {
      const targets = [
        "//evil.example",
        "//evil.example/",
        "/\\evil.example",
        "/\\/evil.example",
        "/%5Cevil.example",
        "/%2F%2Fevil.example",
        "/docs",
      ];
      for (const target of targets) {
        const client = await RawClient.open(server.addr.port);
        client.write(`GET ${target} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`);
        const res = await client.response();
        client.close();
        const location = res.headers.get("location");
        if (location !== null) {
          assert.equal(res.status, 308, target);
          const url = new URL(location, "http://127.0.0.1/");
          assert.equal(url.origin, "http://127.0.0.1", `${target} → ${location}`);
          assert.ok(location.endsWith("/"), location);
        } else {
          assert.ok([200, 400, 404].includes(res.status), `${target}: ${res.status}`);
        }
      }
      const base = `http://127.0.0.1:${server.addr.port}`;
      const html = ["-H", "accept: text/html"];
      const docs = await env.curl([...html, `${base}/docs?x=1`]);
      assert.equal(docs.status, 308);
      assert.equal(docs.headers.get("location"), "/docs/?x=1");
      assert.equal((await env.curl([...html, `${base}/docs/?x=1`])).body, "<p>docs</p>");
      const shell = await env.curl([...html, `${base}/users/7`]);
      assert.equal(shell.status, 200);
      assert.equal(shell.body, "<div id=app></div>");
      assert.equal(shell.headers.get("vary"), "Accept");
      const api = await env.curl([...html, `${base}/api/nope`]);
      assert.equal(api.status, 404);
      assert.equal(api.headers.get("vary"), null); // excluded: never the page, whatever Accept
      assert.equal((await env.curl([...html, `${base}/api/ping`])).body, "pong");
      // curl sends */*: the router's 404, which varies on Accept as the page does, so that a
      // shared cache does not give it to a navigation
      const notFound = await env.curl([`${base}/users/7`]);
      assert.equal(notFound.status, 404);
      assert.equal(notFound.headers.get("vary"), "Accept");
    } finally {
      await withDeadline(server.shutdown(), 10_000, "the server to shut down");
      rmSync(root, { recursive: true, force: true });
    }
  },
};
