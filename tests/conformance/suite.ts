// The HTTP conformance suite: plain async functions over a running server, written once and run
// by Deno.test against the Deno build (deno_test.ts) and by vitest against the npm build.
// Everything runtime-specific (spawning curl, a TLS-trusting fetch) comes in through Env.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type * as Weft from "../../mod.ts";
import type * as WeftWsgi from "../../wsgi/mod.ts";
import type * as WeftCompress from "../../lib/middleware/compress.ts";
import type * as WeftMultipart from "../../lib/multipart/mod.ts";
import type * as WeftOpenapi from "../../lib/openapi/mod.ts";
import type * as WeftClient from "../../lib/client/mod.ts";
import { withDeadline } from "../_deadline.ts";

/** The weft module under test: mod.ts on Deno, the npm package on Node. */
export type WeftModule = typeof Weft;

/** What curl reports. */
export interface CurlResult {
  status: number;
  httpVersion: string;
  headers: Headers;
  body: string;
}

/** The weft/wsgi module under test. */
export type WsgiModule = typeof WeftWsgi;

/** Runtime-specific peers and the addresses of the servers under test. */
export interface Env {
  weft: WeftModule;
  wsgi: WsgiModule;
  /** The weft/compress module under test. */
  compress: typeof WeftCompress;
  /** The weft/multipart module under test. */
  multipart: typeof WeftMultipart;
  /** The weft/openapi module under test. */
  openapi: typeof WeftOpenapi;
  /** The weft/client module under test. */
  client: typeof WeftClient;
  /** Base URL of the plain server (HTTP/1.1 and h2c), no trailing slash. */
  http: string;
  /** Base URL of the TLS server (h2 and http/1.1 via ALPN), no trailing slash. */
  https: string;
  /** Path of the CA file that trusts the test certificate. */
  caFile: string;
  /** PEM certificate and key, for servers a case starts itself. */
  cert: string;
  key: string;
  /** Runs curl with these arguments plus the suite's output flags. */
  curl(args: string[]): Promise<CurlResult>;
  /** fetch() that trusts the test certificate. */
  fetchTls(url: string, init?: RequestInit): Promise<Response>;
}

/** The curl flags whose output {@linkcode parseCurl} reads. */
export const CURL_FLAGS = ["-s", "-S", "--max-time", "20", "-i", "-w", "\n%{http_version}"];

/** Parses the output of curl run with {@linkcode CURL_FLAGS} (the last response only). */
export function parseCurl(output: string): CurlResult {
  const cut = output.lastIndexOf("\n");
  const httpVersion = output.slice(cut + 1).trim();
  let text = output.slice(0, cut);
  // Skip interim (1xx) responses and proxy preambles: keep the last header block.
  let headEnd = text.indexOf("\r\n\r\n");
  while (headEnd !== -1 && /^HTTP\/[\d.]+ 1\d\d/.test(text)) {
    text = text.slice(headEnd + 4);
    headEnd = text.indexOf("\r\n\r\n");
  }
  const head = headEnd === -1 ? text : text.slice(0, headEnd);
  const body = headEnd === -1 ? "" : text.slice(headEnd + 4);
  const [statusLine, ...lines] = head.split("\r\n");
  const headers = new Headers();
  for (const line of lines) {
    const colon = line.indexOf(":");
    if (colon > 0) headers.append(line.slice(0, colon).trim(), line.slice(colon + 1).trim());
  }
  return { status: Number(statusLine.split(" ")[1]), httpVersion, headers, body };
}

/** The app every case talks to. */
export function conformanceApp(weft: WeftModule): Weft.App {
  const { chain, get, head, post, router } = weft;
  return chain(
    [async function poweredBy(ctx, next) {
      ctx.setHeader("x-powered-by", "weft");
      return await next();
    }],
    router([
      get("/hello/:name", (ctx) => ctx.json({ hello: ctx.params.name })),
      get("/files/*path", (ctx) => ctx.json({ path: ctx.params.path })),
      get("/text", () => new Response("plain text")),
      head("/only-head", () => new Response(null, { headers: { "x-head": "1" } })),
      // a 204 with the Content-Length some apps set on every answer
      get(
        "/no-content",
        () => new Response(null, { status: 204, headers: { "content-length": "0" } }),
      ),
      post("/echo", async (ctx) => new Response(await ctx.body())),
      get("/throw", () => {
        throw new Error("boom");
      }),
    ]),
  );
}

type Case = (env: Env) => Promise<void>;

/** The cases, by name. */
export const cases: Record<string, Case> = {
  async "HTTP/1.1 GET with curl"(env) {
    const res = await env.curl(["--http1.1", `${env.http}/hello/world`]);
    assert.equal(res.httpVersion, "1.1");
    assert.equal(res.status, 200);
    assert.deepEqual(JSON.parse(res.body), { hello: "world" });
    assert.equal(res.headers.get("x-powered-by"), "weft");
  },
  async "HTTP/2 over TLS with ALPN (curl --http2)"(env) {
    const res = await env.curl(["--http2", "--cacert", env.caFile, `${env.https}/hello/h2`]);
    assert.equal(res.httpVersion, "2");
    assert.equal(res.status, 200);
    assert.deepEqual(JSON.parse(res.body), { hello: "h2" });
  },
  async "HTTP/1.1 over TLS (curl --http1.1)"(env) {
    const res = await env.curl(["--http1.1", "--cacert", env.caFile, `${env.https}/text`]);
    assert.equal(res.httpVersion, "1.1");
    assert.equal(res.body, "plain text");
  },
  async "routes by the path alone: a query string and escapes, over HTTP/1.1 and HTTP/2"(env) {
    const h1 = await env.curl(["--http1.1", `${env.http}/hello/w%C3%B6rld?x=1&y=/2`]);
    assert.equal(h1.status, 200);
    assert.deepEqual(JSON.parse(h1.body), { hello: "wörld" });
    const h2 = await env.curl(["--http2", "--cacert", env.caFile, `${env.https}/text?q=%3F`]);
    assert.equal(h2.httpVersion, "2");
    assert.equal(h2.body, "plain text");
    const miss = await env.curl(["--http1.1", `${env.http}/text/?x=1`]);
    assert.equal(miss.status, 404);
  },
  async "h2c with prior knowledge"(env) {
    const res = await env.curl(["--http2-prior-knowledge", `${env.http}/hello/h2c`]);
    assert.equal(res.httpVersion, "2");
    assert.deepEqual(JSON.parse(res.body), { hello: "h2c" });
  },
  async "the runtime's fetch over HTTP and TLS"(env) {
    const plain = await withDeadline(
      fetch(`${env.http}/hello/fetch`),
      10_000,
      `a response from ${env.http}/hello/fetch`,
    );
    assert.deepEqual(await plain.json(), { hello: "fetch" });
    const tls = await env.fetchTls(`${env.https}/hello/tls`);
    assert.deepEqual(await tls.json(), { hello: "tls" });
  },
  async "HEAD is answered by the GET route without a body, on HTTP/1.1 and HTTP/2"(env) {
    for (
      const flags of [["--http1.1", `${env.http}`], ["--http2", "--cacert", env.caFile, env.https]]
    ) {
      const base = flags.pop()!;
      const res = await env.curl([...flags, "-I", `${base}/text`]);
      assert.equal(res.status, 200);
      assert.equal(res.body, "");
    }
    const own = await env.curl(["-I", `${env.http}/only-head`]);
    assert.equal(own.headers.get("x-head"), "1");
  },
  async "a 204 goes out without the Content-Length the app gave it, on HTTP/1.1 and HTTP/2"(env) {
    // RFC 9110 §8.6: a server must not send Content-Length in a 204
    for (
      const flags of [["--http1.1", `${env.http}`], ["--http2", "--cacert", env.caFile, env.https]]
    ) {
      const base = flags.pop()!;
      const res = await env.curl([...flags, `${base}/no-content`]);
      assert.equal(res.status, 204);
      assert.equal(res.headers.get("content-length"), null, flags[0]);
    }
  },
  async "404 and 405 are problem+json, 405 carries Allow"(env) {
    const missing = await env.curl([`${env.http}/nope`]);
    assert.equal(missing.status, 404);
    assert.equal(missing.headers.get("content-type"), "application/problem+json");
    assert.equal(JSON.parse(missing.body).status, 404);
    const wrong = await env.curl(["-X", "DELETE", `${env.http}/text`]);
    assert.equal(wrong.status, 405);
    assert.equal(wrong.headers.get("allow"), "GET, HEAD, OPTIONS");
  },
  async "OPTIONS on a matched path is 204 with Allow, over HTTP/2 too"(env) {
    const res = await env.curl([
      "--http2",
      "--cacert",
      env.caFile,
      "-X",
      "OPTIONS",
      `${env.https}/echo`,
    ]);
    assert.equal(res.status, 204);
    assert.equal(res.headers.get("allow"), "POST, OPTIONS");
  },
  async "wildcard params are decoded, malformed escapes are 400"(env) {
    const ok = await env.curl(["--path-as-is", `${env.http}/files/a%20b/c.txt`]);
    assert.deepEqual(JSON.parse(ok.body), { path: "a b/c.txt" });
    const bad = await env.curl(["--path-as-is", `${env.http}/files/%c0%af`]);
    assert.equal(bad.status, 400);
  },
  async "POST bodies are echoed, chunked too"(env) {
    const res = await env.curl(["--data-binary", "hello body", `${env.http}/echo`]);
    assert.equal(res.body, "hello body");
    const chunked = await env.curl([
      "-H",
      "transfer-encoding: chunked",
      "--data-binary",
      "chunked body",
      `${env.http}/echo`,
    ]);
    assert.equal(chunked.body, "chunked body");
  },
  async "bodies over the 1 MiB limit get 413, declared or chunked"(env) {
    const big = "x".repeat(1_048_577);
    const declared = await env.fetchTls(`${env.https}/echo`, { method: "POST", body: big });
    assert.equal(declared.status, 413);
    await declared.body?.cancel();
    const stream = new ReadableStream({
      start(controller) {
        controller.enqueue(new TextEncoder().encode(big));
        controller.close();
      },
    });
    const chunked = await withDeadline(
      fetch(`${env.http}/echo`, {
        method: "POST",
        body: stream,
        // @ts-ignore: duplex is required by Node and harmless on Deno
        duplex: "half",
      }),
      10_000,
      `a response from ${env.http}/echo`,
    );
    assert.equal(chunked.status, 413);
    await chunked.body?.cancel();
  },
  async "a throwing handler gives a 500 problem without internals"(env) {
    const res = await env.curl([`${env.http}/throw`]);
    assert.equal(res.status, 500);
    assert.ok(!res.body.includes("boom"));
  },
  async "shutdown() lets in-flight requests finish"(env) {
    const { get, router } = env.weft;
    // The handler holds its request until shutdown() has been called (no
    // Promise.withResolvers on Node 20).
    let arrive!: () => void, release!: () => void;
    const arrived = new Promise<void>((resolve) => arrive = resolve);
    const released = new Promise<void>((resolve) => release = resolve);
    const app = router([
      get("/held", async () => {
        arrive();
        await released;
        return new Response("held done");
      }),
      get("/text", () => new Response("plain text")),
    ]);
    const server = env.weft.serve(app, { port: 0, hostname: "127.0.0.1", onListen: () => {} });
    const url = `http://127.0.0.1:${server.addr.port}`;
    const inFlight = fetch(`${url}/held`).then((res) => res.text());
    await withDeadline(arrived, 5_000, "the request to reach its handler");
    const closing = server.shutdown();
    release();
    assert.equal(await withDeadline(inFlight, 5_000, "the in-flight response"), "held done");
    await withDeadline(closing, 10_000, "shutdown() to finish");
    await withDeadline(server.finished, 10_000, "server.finished");
    await assert.rejects(withDeadline(fetch(`${url}/text`), 5_000, "a refused connection"));
  },
  async "serveWsgi: StaticMiddleware gives 200, 304, 405 and HEAD over HTTP/1.1 and HTTP/2"(env) {
    const root = mkdtempSync(join(tmpdir(), "weft-wsgi-"));
    writeFileSync(join(root, "app.css"), "body { margin: 0 }");
    utimesSync(join(root, "app.css"), 1_700_000_000, 1_700_000_000);
    const fallback: WeftWsgi.WsgiApp = (_environ, startResponse) => {
      startResponse("404 Not Found", [["content-type", "text/plain"]]);
      return [new TextEncoder().encode("from the app")];
    };
    const app = env.wsgi.StaticMiddleware(fallback, root, "/static", 120);
    const quiet = { port: 0, hostname: "127.0.0.1", onListen: () => {} };
    const plain = env.wsgi.serveWsgi(app, quiet);
    const tls = env.wsgi.serveWsgi(app, { ...quiet, cert: env.cert, key: env.key });
    try {
      const bases = [
        [["--http1.1"], `http://127.0.0.1:${plain.addr.port}`, "1.1"],
        [["--http2", "--cacert", env.caFile], `https://localhost:${tls.addr.port}`, "2"],
      ] as const;
      for (const [flags, base, version] of bases) {
        const ok = await env.curl([...flags, `${base}/static/app.css`]);
        assert.equal(ok.httpVersion, version);
        assert.equal(ok.status, 200);
        assert.equal(ok.body, "body { margin: 0 }");
        assert.equal(ok.headers.get("content-type"), "text/css");
        assert.equal(ok.headers.get("cache-control"), "max-age=120");
        assert.equal(ok.headers.get("last-modified"), "Tue, 14 Nov 2023 22:13:20 GMT");
        const etag = ok.headers.get("etag")!;
        assert.match(etag, /^"[0-9a-f]{16}"$/);
        const notModified = await env.curl([
          ...flags,
          "-H",
          `if-none-match: ${etag}`,
          `${base}/static/app.css`,
        ]);
        assert.equal(notModified.status, 304);
        assert.equal(notModified.body, "");
        assert.equal(notModified.headers.get("etag"), etag);
        const since = await env.curl([
          ...flags,
          "-H",
          "if-modified-since: Tue, 14 Nov 2023 22:13:20 GMT",
          `${base}/static/app.css`,
        ]);
        assert.equal(since.status, 304);
        const head = await env.curl([...flags, "-I", `${base}/static/app.css`]);
        assert.equal(head.status, 200);
        assert.equal(head.headers.get("content-length"), "18");
        assert.equal(head.body, "");
        const post = await env.curl([...flags, "-X", "POST", `${base}/static/app.css`]);
        assert.equal(post.status, 405);
        assert.equal(post.headers.get("allow"), "GET, HEAD");
        const traversal = await env.curl([
          ...flags,
          "--path-as-is",
          `${base}/static/../../etc/passwd`,
        ]);
        assert.equal(traversal.status, 404);
        assert.equal(traversal.body, "from the app");
      }
    } finally {
      await withDeadline(
        Promise.all([plain.shutdown(), tls.shutdown()]),
        10_000,
        "the servers to shut down",
      );
      rmSync(root, { recursive: true, force: true });
    }
  },
};
