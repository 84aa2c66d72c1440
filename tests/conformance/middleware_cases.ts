// Conformance cases for the built-in middleware (auth, cors, bodyLimit, logger) over real
// sockets: HTTP/1.1, HTTP/2 over TLS (ALPN) and h2c. Written like suite.ts (plain async functions
// over Env, no runtime APIs) so that the Node runner can run them against the npm build; each
// case starts the servers it needs and shuts them down.
import assert from "node:assert/strict";
import process from "node:process";
import type { Env, WeftModule } from "./suite.ts";
import { RawClient } from "./websocket_cases.ts";
import type * as Weft from "../../mod.ts";
import { withDeadline } from "../_deadline.ts";
/** The module under test, which re-exports the middleware. */
type WithMiddleware = WeftModule;

function weft(env: Env): WithMiddleware {
  return env.weft;
}

/** The base URLs of the two servers {@linkcode withServers} starts. */
export interface Servers {
  /** Plain server (HTTP/1.1 and h2c), no trailing slash. */
  http: string;
  /** TLS server (h2 and http/1.1 via ALPN), no trailing slash. */
  https: string;
}

/**
 * The promise rejections left unhandled while `fn` runs and in the two turns after it, on either
 * runtime (Deno dispatches an event on globalThis, Node emits on process); each would end the
 * process outside a test runner.
 */
async function unhandledRejections(fn: () => Promise<void>): Promise<unknown[]> {
  const seen: unknown[] = [];
  const target = globalThis as Partial<EventTarget>;
  const onEvent = (event: Event) => {
    event.preventDefault();
    seen.push((event as PromiseRejectionEvent).reason);
  };
  const onReason = (reason: unknown) => seen.push(reason);
  const deno = typeof target.addEventListener === "function";
  if (deno) target.addEventListener!("unhandledrejection", onEvent);
  else process.on("unhandledRejection", onReason);
  try {
    await fn();
    for (let turn = 0; turn < 2; turn++) await new Promise((resolve) => setTimeout(resolve, 0));
  } finally {
    if (deno) target.removeEventListener!("unhandledrejection", onEvent);
    else process.off("unhandledRejection", onReason);
  }
  return seen;
}

/** Starts a plain and a TLS server for `app`, runs `fn`, and always shuts both down. */
export async function withServers(
  env: Env,
  app: Weft.App,
  fn: (servers: Servers) => Promise<void>,
): Promise<void> {
  const quiet = { port: 0, hostname: "127.0.0.1", onListen() {} };
  const plain = env.weft.serve(app, quiet);
  const tls = env.weft.serve(app, { ...quiet, cert: env.cert, key: env.key });
  try {
    await fn({
      http: `http://127.0.0.1:${plain.addr.port}`,
      https: `https://localhost:${tls.addr.port}`,
    });
  } finally {
    await withDeadline(
      Promise.all([plain.shutdown(), tls.shutdown()]),
      10_000,
      "the servers to shut down",
    );
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

const ORIGIN = "https://app.example";
const TOKEN = "mF_9.B5f-4.1JqM";

function authApp(env: Env): Weft.App {
  const { auth, bearerTokens, get, group, router } = weft(env);
  const guard = auth({ validate: bearerTokens([TOKEN]), realm: "conformance" });
  return router([
    group("", [guard], [
      get("/me", (ctx) => ctx.json({ user: ctx.var.user })),
    ]),
  ]);
}

/** The cases, by name. */
export const middlewareCases: Record<string, (env: Env) => Promise<void>> = {
  async "auth: 401 without credentials carries WWW-Authenticate Bearer realm"(env) {
    await withServers(env, authApp(env), async (servers) => {
      for (const [version, flags, base] of protocols(env, servers)) {
        for (const extra of [[], ["-H", "Authorization: Basic dXNlcjpwYXNz"]]) {
          const res = await env.curl([...flags, ...extra, `${base}/me`]);
          assert.equal(res.httpVersion, version);
          assert.equal(res.status, 401);
          assert.equal(res.headers.get("www-authenticate"), 'Bearer realm="conformance"');
          assert.equal(res.headers.get("content-type"), "application/problem+json");
          assert.equal(JSON.parse(res.body).status, 401);
        }
      }
    });
  },

  async "auth: 400 invalid_request for a malformed header, on HTTP/1.1 and HTTP/2"(env) {
    await withServers(env, authApp(env), async (servers) => {
      for (const [version, flags, base] of protocols(env, servers)) {
        for (const header of ["Bearer", "Bearer a b", "Bearer a=b", "Bearer \u00e9t\u00e9"]) {
          const res = await env.curl([...flags, "-H", `Authorization: ${header}`, `${base}/me`]);
          assert.equal(res.httpVersion, version);
          assert.equal(res.status, 400, header);
          assert.equal(
            res.headers.get("www-authenticate"),
            'Bearer realm="conformance", error="invalid_request"',
          );
          assert.equal(res.headers.get("content-type"), "application/problem+json");
        }
      }
    });
  },

  async "auth: 401 invalid_token for an unknown token, 200 for a valid one"(env) {
    await withServers(env, authApp(env), async (servers) => {
      for (const [version, flags, base] of protocols(env, servers)) {
        const bad = await env.curl([...flags, "-H", "Authorization: Bearer nope", `${base}/me`]);
        assert.equal(bad.httpVersion, version);
        assert.equal(bad.status, 401);
        assert.equal(
          bad.headers.get("www-authenticate"),
          'Bearer realm="conformance", error="invalid_token"',
        );
        const ok = await env.curl([
          ...flags,
          "-H",
          `Authorization: bearer ${TOKEN}`,
          `${base}/me`,
        ]);
        assert.equal(ok.status, 200);
        assert.deepEqual(JSON.parse(ok.body), { user: true });
        assert.equal(ok.headers.get("www-authenticate"), null);
      }
    });
  },

  async "cors: a preflight over HTTP/2 gets 204, Allow and the CORS headers"(env) {
    const { auth, bearerTokens, chain, cors, options, put, router } = weft(env);
    let ownOptions = 0;
    const app = chain(
      [
        cors({ origin: [ORIGIN], credentials: true, maxAge: 600 }),
        auth({ validate: bearerTokens([TOKEN]) }),
      ],
      router([
        put("/items/:id", (ctx) => ctx.json({ id: ctx.params.id })),
        options("/own", () => {
          ownOptions++;
          return new Response(null, { status: 204, headers: { allow: "OPTIONS, PATCH" } });
        }),
      ]),
    );
    await withServers(env, app, async (servers) => {
      for (const [version, flags, base] of protocols(env, servers)) {
        const preflight = (path: string, origin: string) =>
          env.curl([
            ...flags,
            "-X",
            "OPTIONS",
            "-H",
            `Origin: ${origin}`,
            "-H",
            "Access-Control-Request-Method: PUT",
            "-H",
            "Access-Control-Request-Headers: authorization, x-custom",
            `${base}${path}`,
          ]);
        // 1. allowed origin, through auth (preflights carry no credentials)
        const res = await preflight("/items/1", ORIGIN);
        assert.equal(res.httpVersion, version);
        assert.equal(res.status, 204);
        assert.equal(res.headers.get("allow"), "PUT, OPTIONS");
        assert.equal(res.headers.get("access-control-allow-origin"), ORIGIN);
        assert.equal(res.headers.get("access-control-allow-credentials"), "true");
        assert.equal(
          res.headers.get("access-control-allow-methods"),
          "GET, HEAD, PUT, PATCH, POST, DELETE",
        );
        assert.equal(res.headers.get("access-control-allow-headers"), "authorization, x-custom");
        assert.equal(res.headers.get("access-control-max-age"), "600");
        assert.match(res.headers.get("vary") ?? "", /\borigin\b/i);
        // 2. disallowed origin: the router still answers, without CORS headers
        const denied = await preflight("/items/1", "https://evil.example");
        assert.equal(denied.status, 204);
        assert.equal(denied.headers.get("access-control-allow-origin"), null);
        assert.equal(denied.headers.get("access-control-allow-methods"), null);
        assert.match(denied.headers.get("vary") ?? "", /\borigin\b/i);
        // 3. a route's own OPTIONS handler gets the headers too
        const own = await preflight("/own", ORIGIN);
        assert.equal(own.headers.get("allow"), "OPTIONS, PATCH");
        assert.equal(own.headers.get("access-control-allow-origin"), ORIGIN);
        assert.equal(own.headers.get("access-control-max-age"), "600");
        // 4. the real request after the preflight is authenticated
        const real = await env.curl([
          ...flags,
          "-X",
          "PUT",
          "-H",
          `Origin: ${ORIGIN}`,
          "-H",
          `Authorization: Bearer ${TOKEN}`,
          `${base}/items/9`,
        ]);
        assert.equal(real.status, 200);
        assert.deepEqual(JSON.parse(real.body), { id: "9" });
        assert.equal(real.headers.get("access-control-allow-origin"), ORIGIN);
      }
    });
    assert.equal(ownOptions, 3);
  },

  async "bodyLimit: oversize uploads get 413 before the handler, chunked ones too"(env) {
    const { bodyLimit, chain, post, router } = weft(env);
    let effects = 0;
    const app = chain(
      [bodyLimit(4096)],
      router([
        post("/upload", () => {
          effects++; // never reads the body
          return new Response("stored");
        }),
      ]),
    );
    const big = "b".repeat(20_000);
    await withServers(env, app, async (servers) => {
      const chunked = await env.curl([
        "--http1.1",
        "-H",
        "Transfer-Encoding: chunked",
        "--data-binary",
        big,
        `${servers.http}/upload`,
      ]);
      assert.equal(chunked.status, 413);
      assert.equal(chunked.headers.get("content-type"), "application/problem+json");
      const declared = await env.curl([
        "--http1.1",
        "--data-binary",
        big,
        `${servers.http}/upload`,
      ]);
      assert.equal(declared.status, 413);
      // HTTP/2 through the runtime's fetch: curl 7.88 reports "stream error" (92) when an h2
      // server answers before it has read the whole upload, whatever the status.
      const h2 = await env.fetchTls(`${servers.https}/upload`, { method: "POST", body: big });
      assert.equal(h2.status, 413);
      assert.equal(h2.headers.get("content-type"), "application/problem+json");
      await h2.body?.cancel();
      assert.equal(effects, 0);
      const small = await env.curl([
        "--http1.1",
        "-H",
        "Transfer-Encoding: chunked",
        "--data-binary",
        "small",
        `${servers.http}/upload`,
      ]);
      assert.equal(small.status, 200);
      assert.equal(small.body, "stored");
      assert.equal(effects, 1);
    });
  },

  async "logger: logs method, path without query and status over HTTP/2"(env) {
    const { chain, get, logger, router } = weft(env);
    const records: { method: string; path: string; status: number }[] = [];
    const lines: string[] = [];
    const app = chain(
      [logger({
        format: "json",
        sink(line, record) {
          lines.push(line);
          records.push(record);
        },
      })],
      router([get("/items/:id", (ctx) => ctx.json({ id: ctx.params.id }))]),
    );
    await withServers(env, app, async (servers) => {
      const res = await env.curl([
        "--http2",
        "--cacert",
        env.caFile,
        "-H",
        "Authorization: Bearer hunter2",
        `${servers.https}/items/7?token=hunter3`,
      ]);
      assert.equal(res.status, 200);
      await env.curl(["--http2-prior-knowledge", `${servers.http}/nope`]);
    });
    assert.deepEqual(
      records.map(({ method, path, status }) => [method, path, status]),
      [["GET", "/items/7", 200], ["GET", "/nope", 404]],
    );
    assert.ok(lines.every((line) => !line.includes("hunter")));
  },

  async "logger: an async sink that rejects is ignored, never an unhandled rejection"(env) {
    const { chain, get, logger, router } = weft(env);
    let calls = 0;
    const app = chain(
      [logger({
        sink: async () => {
          calls++;
          await Promise.resolve();
          throw new Error("the log store is down");
        },
      })],
      router([get("/", (ctx) => ctx.text("ok"))]),
    );
    const unhandled = await unhandledRejections(async () => {
      await withServers(env, app, async (servers) => {
        const res = await env.curl(["--http1.1", `${servers.http}/`]);
        assert.equal(res.status, 200);
        assert.equal(res.body, "ok");
      });
      const res = await app.fetch(new Request("http://localhost/"));
      assert.equal(await res.text(), "ok");
    });
    assert.equal(calls, 2);
    assert.deepEqual(unhandled.map(String), []);
  },

  async "logger and the error reporter escape controls that a raw request carries"(env) {
    const { chain, get, logger, router, serve } = weft(env);
    const lines: string[] = [];
    const app = chain(
      [logger({ sink: (line) => lines.push(line) })],
      router([get("/items/:id", (ctx) => {
        if (ctx.params.id.startsWith("boom")) throw new Error(`no item ${ctx.params.id}`);
        return ctx.json({ id: ctx.params.id });
      })]),
    );
    const statuses: number[] = [];
    const printed: string[] = [];
    const original = console.error;
    console.error = (...args: unknown[]) => printed.push(args.map(String).join(" "));
    const server = serve(app, { port: 0, hostname: "127.0.0.1", onListen() {} });
    try {
      const encoder = new TextEncoder();
      // NEL and LINE SEPARATOR as UTF-8, which Deno decodes into the path (Node's parser
      // refuses bytes over 0x7f in a request target with a 400 before Weft sees them)
      const targets = [
        new Uint8Array([...encoder.encode("/items/a"), 0xc2, 0x85, 0xe2, 0x80, 0xa8, 0x62]),
        // CR LF and ESC decoded into a param that the error message quotes
        encoder.encode("/items/boom%0D%0AFORGED%20GET%20%2Fadmin%20200%1B%5B2J"),
      ];
      for (const target of targets) {
        const raw = await RawClient.open(server.addr.port);
        try {
          raw.write(
            new Uint8Array([
              ...encoder.encode("GET "),
              ...target,
              ...encoder.encode(" HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n"),
            ]),
          );
          statuses.push((await raw.response()).status);
        } finally {
          raw.close();
        }
      }
    } finally {
      console.error = original;
      await server.shutdown();
    }
    assert.ok([200, 400].includes(statuses[0]), String(statuses[0]));
    assert.equal(statuses[1], 500);
    assert.equal(lines.length, statuses[0] === 200 ? 2 : 1, JSON.stringify(lines));
    const reported = printed.join("\n");
    assert.match(reported, /no item boom\\x0d\\x0aFORGED GET \/admin 200\\x1b\[2J/);
    for (const text of [...lines, ...reported.split("\n")]) {
      // deno-lint-ignore no-control-regex
      assert.ok(!/[\0-\x1f\x7f-\x9f\u2028\u2029]/.test(text), JSON.stringify(text));
      assert.ok(!text.startsWith("FORGED"), text);
    }
  },
};
