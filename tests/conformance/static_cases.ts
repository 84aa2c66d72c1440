// Conformance cases for staticFiles() over real sockets: HTTP/1.1, HTTP/2 over TLS (ALPN) and
// h2c, with curl. Written like suite.ts (plain async functions over Env, no runtime APIs: the
// fixture is built with node:fs) so that the Node runner can run them against the npm build;
// each case builds its fixture, starts the servers it needs and removes both.
import assert from "node:assert/strict";
import type { Env, WeftModule } from "./suite.ts";
import type * as Weft from "../../mod.ts";
import {
  APP_JS,
  BIG_SIZE,
  buildStaticFixture,
  CANARY,
  DOT_CANARY,
  type StaticFixture,
} from "../fixtures/static/fixture.ts";
import { withDeadline } from "../_deadline.ts";

function weft(env: Env): WeftModule {
  return env.weft;
}

const LAST_MODIFIED = "Tue, 14 Nov 2023 22:13:20 GMT";

interface Servers {
  /** Plain server (HTTP/1.1 and h2c), no trailing slash. */
  http: string;
  /** TLS server (h2 and http/1.1 via ALPN), no trailing slash. */
  https: string;
}

// Builds the fixture, serves it under /static (plain and TLS), runs `fn`, and always cleans up.
async function withStatic(
  env: Env,
  options: Partial<Parameters<WeftModule["staticFiles"]>[0]>,
  fn: (servers: Servers, fixture: StaticFixture) => Promise<void>,
): Promise<void> {
  const fixture = buildStaticFixture();
  const { chain, serve } = weft(env);
  const app: Weft.App = chain(
    [weft(env).staticFiles({ root: fixture.root, prefix: "/static", ...options })],
    () => new Response("next", { status: 404, headers: { "x-next": "1" } }),
  );
  const quiet = { port: 0, hostname: "127.0.0.1", onListen() {} };
  const plain = serve(app, quiet);
  const tls = serve(app, { ...quiet, cert: env.cert, key: env.key });
  try {
    await fn({
      http: `http://127.0.0.1:${plain.addr.port}`,
      https: `https://localhost:${tls.addr.port}`,
    }, fixture);
  } finally {
    await withDeadline(
      Promise.all([plain.shutdown(), tls.shutdown()]),
      10_000,
      "the servers to shut down",
    );
    fixture.remove();
  }
}

// The protocols every case runs on: curl flags and the base URL they go with.
function protocols(env: Env, servers: Servers): [string, string[], string][] {
  return [
    ["1.1", ["--http1.1"], servers.http],
    ["2", ["--http2", "--cacert", env.caFile], servers.https],
    ["2", ["--http2-prior-knowledge"], servers.http],
  ];
}

/** The cases, by name. */
export const staticCases: Record<string, (env: Env) => Promise<void>> = {
  async "staticFiles: 200 with ETag, Last-Modified, type and length on HTTP/1.1 and HTTP/2"(env) {
    await withStatic(env, { maxAge: 300 }, async (servers) => {
      for (const [version, flags, base] of protocols(env, servers)) {
        const res = await env.curl([...flags, `${base}/static/hello.txt`]);
        assert.equal(res.httpVersion, version);
        assert.equal(res.status, 200);
        assert.equal(res.body, "hello world");
        assert.match(res.headers.get("etag")!, /^"[0-9a-f]{16}"$/);
        assert.equal(res.headers.get("last-modified"), LAST_MODIFIED);
        assert.equal(res.headers.get("content-type"), "text/plain; charset=utf-8");
        assert.equal(res.headers.get("content-length"), "11");
        assert.equal(res.headers.get("cache-control"), "max-age=300");
        assert.equal(res.headers.get("accept-ranges"), "bytes");
        const cafe = await env.curl([...flags, `${base}/static/caf%C3%A9.txt`]);
        assert.equal(cafe.body, "café");
        const one = await env.curl([...flags, `${base}/static/one.bin`]);
        assert.equal(one.body, "*");
        const empty = await env.curl([...flags, `${base}/static/empty.txt`]);
        assert.equal(empty.status, 200);
        assert.equal(empty.headers.get("content-length"), "0");
        const big = await env.curl([...flags, "-I", `${base}/static/big.bin`]);
        assert.equal(big.headers.get("content-length"), String(BIG_SIZE));
      }
    });
  },

  async "staticFiles: 304 keeps ETag, Last-Modified, Cache-Control and Vary, GET and HEAD"(env) {
    await withStatic(env, { maxAge: 60, precompressed: true }, async (servers) => {
      for (const [, flags, base] of protocols(env, servers)) {
        const first = await env.curl([...flags, `${base}/static/app.js`]);
        const etag = first.headers.get("etag")!;
        for (const method of [[], ["-I"]]) {
          const res = await env.curl([
            ...flags,
            ...method,
            "-H",
            `if-none-match: W/"other", ${etag}`,
            `${base}/static/app.js`,
          ]);
          assert.equal(res.status, 304);
          assert.equal(res.body, "");
          assert.equal(res.headers.get("etag"), etag);
          assert.equal(res.headers.get("last-modified"), LAST_MODIFIED);
          assert.equal(res.headers.get("cache-control"), "max-age=60");
          assert.equal(res.headers.get("vary"), "Accept-Encoding");
        }
        const since = await env.curl([
          ...flags,
          "-H",
          `if-modified-since: ${LAST_MODIFIED}`,
          `${base}/static/hello.txt`,
        ]);
        assert.equal(since.status, 304);
        const failed = await env.curl([
          ...flags,
          "-H",
          'if-match: "nope"',
          `${base}/static/hello.txt`,
        ]);
        assert.equal(failed.status, 412);
        assert.equal(failed.headers.get("content-type"), "application/problem+json");
      }
    });
  },

  async "staticFiles: ranges give 206 or 416 with Content-Range; several ranges give 200"(env) {
    await withStatic(env, {}, async (servers) => {
      for (const [, flags, base] of protocols(env, servers)) {
        const first = await env.curl([
          ...flags,
          "-H",
          "range: bytes=0-0",
          `${base}/static/hello.txt`,
        ]);
        assert.equal(first.status, 206);
        assert.equal(first.body, "h");
        assert.equal(first.headers.get("content-range"), "bytes 0-0/11");
        const last = await env.curl([
          ...flags,
          "-H",
          "range: bytes=-1",
          `${base}/static/hello.txt`,
        ]);
        assert.equal(last.body, "d");
        const streamed = await env.curl([
          ...flags,
          "-H",
          "range: bytes=100-199",
          `${base}/static/big.bin`,
        ]);
        assert.equal(streamed.status, 206);
        assert.equal(streamed.headers.get("content-length"), "100");
        assert.equal(streamed.headers.get("content-range"), `bytes 100-199/${BIG_SIZE}`);
        const none = await env.curl([
          ...flags,
          "-H",
          "range: bytes=11-",
          `${base}/static/hello.txt`,
        ]);
        assert.equal(none.status, 416);
        assert.equal(none.headers.get("content-range"), "bytes */11");
        assert.match(none.headers.get("etag")!, /^"[0-9a-f]{16}"$/);
        assert.equal(none.headers.get("cache-control"), "max-age=0");
        const many = await env.curl([
          ...flags,
          "-H",
          "range: bytes=0-1,4-5",
          `${base}/static/hello.txt`,
        ]);
        assert.equal(many.status, 200);
        assert.equal(many.body, "hello world");
        const etag = first.headers.get("etag")!;
        const ifRange = await env.curl([
          ...flags,
          "-H",
          "range: bytes=0-4",
          "-H",
          `if-range: ${etag}`,
          `${base}/static/hello.txt`,
        ]);
        assert.equal(ifRange.body, "hello");
        const stale = await env.curl([
          ...flags,
          "-H",
          "range: bytes=0-4",
          "-H",
          'if-range: "stale"',
          `${base}/static/hello.txt`,
        ]);
        assert.equal(stale.status, 200);
      }
    });
  },

  async "staticFiles: HEAD has the headers without a body; other methods go to next()"(env) {
    await withStatic(env, {}, async (servers) => {
      for (const [, flags, base] of protocols(env, servers)) {
        const head = await env.curl([...flags, "-I", `${base}/static/big.bin`]);
        assert.equal(head.status, 200);
        assert.equal(head.body, "");
        assert.equal(head.headers.get("content-length"), String(BIG_SIZE));
        const post = await env.curl([...flags, "-X", "POST", `${base}/static/hello.txt`]);
        assert.equal(post.headers.get("x-next"), "1");
        const outside = await env.curl([...flags, `${base}/staticfoo/hello.txt`]);
        assert.equal(outside.headers.get("x-next"), "1");
      }
    });
  },

  async "staticFiles: precompressed variants by q-value, with Vary and an ETag per coding"(env) {
    await withStatic(env, { precompressed: true }, async (servers) => {
      for (const [, flags, base] of protocols(env, servers)) {
        const etags = new Set<string>();
        for (
          const [accept, coding] of [
            ["br", "br"],
            ["br;q=0.5, gzip", "gzip"],
            ["identity", null],
          ] as const
        ) {
          const res = await env.curl([
            ...flags,
            "--compressed",
            "-H",
            `accept-encoding: ${accept}`,
            `${base}/static/app.js`,
          ]);
          assert.equal(res.status, 200);
          assert.equal(res.headers.get("content-encoding"), coding, accept);
          assert.equal(res.headers.get("vary"), "Accept-Encoding");
          assert.equal(res.body, APP_JS, accept); // curl --compressed decoded it
          etags.add(res.headers.get("etag")!);
        }
        assert.equal(etags.size, 3);
        const plain = await env.curl([...flags, `${base}/static/app.js`]);
        assert.equal(plain.headers.get("content-encoding"), null);
        assert.equal(plain.body, APP_JS);
      }
    });
  },

  async "staticFiles: traversal, outside symlinks, static_evil, dotfiles and FIFOs never leak"(
    env,
  ) {
    await withStatic(env, {}, async (servers, fixture) => {
      const targets: [string, number][] = [
        ["/static/../l2/canary.txt", 404],
        ["/static/../static_evil/secret.txt", 404],
        ["/static/%2e%2e/%2e%2e/canary.txt", 404],
        ["/static/nested/../hello.txt", 404],
        ["/static/..%5c..%5ccanary.txt", 400],
        ["/static/..%2f..%2fcanary.txt", 400],
        ["/static/%zz", 400],
        ["/static/hello.txt%00.png", 400],
        ["/static/link_outside.txt", 404],
        ["/static/link_evil_dir/secret.txt", 404],
        ["/static/link_absolute.txt", 404],
        ["/static/.env", 404],
        ["/static/link_to_dotfile.txt", 404],
        ["/static/.hidden/visible.txt", 404],
        ["/static/nested/", 404],
      ];
      if (fixture.fifo) targets.push(["/static/fifo", 404]);
      for (const [, flags, base] of protocols(env, servers)) {
        for (const [target, status] of targets) {
          const res = await env.curl([...flags, "--path-as-is", `${base}${target}`]);
          assert.ok(!res.body.includes(CANARY), target);
          assert.ok(!res.body.includes(DOT_CANARY), target);
          assert.ok(res.status < 500, `${res.status} for ${target}`);
          // HTTP/2 clients and servers may normalize `..` in :path themselves; never a file
          assert.ok(res.status === status || res.status === 404 || res.status === 400, target);
          if (flags[0] === "--http1.1") assert.equal(res.status, status, target);
        }
        const sibling = await env.curl([...flags, `${base}/static_evil/secret.txt`]);
        assert.equal(sibling.headers.get("x-next"), "1");
        assert.ok(!sibling.body.includes(CANARY));
      }
    });
  },

  async "staticFiles: the prefix matches its path however the escapes are written"(env) {
    // RFC 3986 §6.2.2: escapes differ in case, and an unreserved character may be escaped,
    // without naming another path
    await withStatic(env, { prefix: "/stätic" }, async (servers) => {
      for (const [, flags, base] of protocols(env, servers)) {
        for (const path of ["/st%C3%A4tic", "/st%c3%a4tic", "/%73t%C3%A4tic"]) {
          const res = await env.curl([...flags, "--path-as-is", `${base}${path}/hello.txt`]);
          assert.equal(res.status, 200, path);
          assert.equal(res.body, "hello world", path);
        }
        for (const path of ["/st%c3%a4tic%2Fhello.txt", "/st%c3%a4ticfoo/hello.txt", "/st%zz/a"]) {
          const res = await env.curl([...flags, "--path-as-is", `${base}${path}`]);
          assert.equal(res.headers.get("x-next"), "1", path);
        }
      }
    });
  },
};
