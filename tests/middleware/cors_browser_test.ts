// cors() against a real browser: headless Chromium (Debian's package, never downloaded) driven
// by playwright-core loads pages from loopback ports and calls APIs on other ports with
// fetch(..., { credentials: "include" }). The browser, not an assertion about headers, decides
// what a page may read. Without Chromium the test is ignored (see tests/_browser.ts).
import assert from "node:assert/strict";
import { chromium } from "playwright-core";
import type { Browser, Page } from "playwright-core";
import { chain, get, group, put, router, serve, type Server } from "../../mod.ts";
import { cors } from "../../lib/middleware/cors.ts";
import { auth, bearerTokens } from "../../lib/middleware/auth.ts";
import { logger } from "../../lib/middleware/logger.ts";
import { validate } from "../../lib/middleware/validate.ts";
import { basicAuth, basicUsers } from "../../lib/security/basic_auth.ts";
import { schema } from "../../lib/json/mod.ts";
import { browserTest, CHROMIUM_ARGS, closeBrowser } from "../_browser.ts";
import { withDeadline } from "../_deadline.ts";

const ARGS = [...CHROMIUM_ARGS];
const TIME_LIMIT_MS = 90_000;

const quiet = { port: 0, hostname: "127.0.0.1", onListen: () => {} };
const PAGE = "<!doctype html><meta charset=utf-8><title>page</title><p>page";

/** A page server: `/` is a normal page, `/sandboxed` a page with an opaque origin ("null"). */
function pageServer(): Server {
  return serve(
    router([
      get("/", () => new Response(PAGE, { headers: { "content-type": "text/html" } })),
      get("/sandboxed", () =>
        new Response(PAGE, {
          headers: {
            "content-type": "text/html",
            "content-security-policy": "sandbox allow-scripts",
          },
        })),
    ]),
    quiet,
  );
}

/**
 * An API with a request log (from logger()) and a record of PUTs that reached the handler;
 * the routes are a group under `prefix`, whose `grouped` middleware wrap them and the router's
 * own answers for their paths (to preflights too).
 */
function apiServer(
  middleware: Parameters<typeof chain>[0],
  grouped: Parameters<typeof group>[1] = [],
  prefix = "/api",
) {
  const log: string[] = [];
  const puts: string[] = [];
  const app = chain(
    [
      logger({
        sink: (_line, r) => log.push(`${r.method} ${r.path.slice(prefix.length)} ${r.status}`),
      }),
      ...middleware,
    ],
    router([group(prefix, grouped, [
      get("/data", (ctx) => {
        ctx.setHeader("x-request-id", "r-1");
        return ctx.json({ cookie: ctx.header("cookie") });
      }),
      put("/items/:id", (ctx) => {
        puts.push(ctx.params.id);
        return ctx.json({ saved: ctx.params.id, custom: ctx.header("x-custom") });
      }),
    ])]),
  );
  const server = serve(app, quiet);
  return { server, log, puts, url: `http://127.0.0.1:${server.addr.port}${prefix}` };
}

interface Outcome {
  /** Whether fetch() resolved (false: the browser blocked it, a TypeError). */
  ok: boolean;
  status?: number;
  body?: string;
  exposed?: string | null;
  error?: string;
}

function call(page: Page, url: string, init: RequestInit): Promise<Outcome> {
  return page.evaluate(async ({ url, init }) => {
    try {
      const res = await fetch(url, init);
      return {
        ok: true,
        status: res.status,
        body: await res.text(),
        exposed: res.headers.get("x-request-id"),
      };
    } catch (error) {
      return { ok: false, error: String(error) };
    }
  }, { url, init: init as Record<string, unknown> });
}

browserTest({
  name: "cors() in headless Chromium: allowed origins read, others are blocked by the browser",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn(executablePath) {
    const allowedPages = pageServer();
    const deniedPages = pageServer();
    const allowed = `http://127.0.0.1:${allowedPages.addr.port}`;
    const denied = `http://127.0.0.1:${deniedPages.addr.port}`;
    // configured: credentials and the custom header allowed
    const full = apiServer([
      cors({
        origin: [allowed],
        credentials: true,
        allowHeaders: ["x-custom", "content-type"],
        exposeHeaders: ["x-request-id"],
      }),
    ]);
    // not configured for credentials nor for the custom header
    const plain = apiServer([cors({ origin: [allowed], allowHeaders: ["content-type"] })]);
    // cors then auth, as in the typical chain: preflights pass, real requests need the token
    const guarded = apiServer([
      cors({ origin: [allowed], credentials: true }),
      auth({ validate: bearerTokens(["t0k3n"]) }),
    ]);
    // cors, then checks of what only the real request carries: Basic credentials, a header
    // (in a group: the router answers the preflight itself after the group's middleware)
    const checked = apiServer(
      [cors({ origin: [allowed], allowHeaders: ["x-custom", "content-type", "authorization"] })],
      [
        basicAuth({ verify: basicUsers({ ada: "lovelace" }) }),
        validate({ headers: schema.object({ "x-custom": schema.integer() }) }),
      ],
    );
    const servers = [
      allowedPages,
      deniedPages,
      full.server,
      plain.server,
      guarded.server,
      checked.server,
    ];

    let browser: Browser | undefined;
    try {
      await withDeadline(
        (async () => {
          browser = await chromium.launch({
            executablePath,
            args: ARGS,
            timeout: 30_000,
          });
          const context = await browser.newContext();
          context.setDefaultTimeout(15_000);
          await context.addCookies([{ name: "session", value: "abc123", url: full.url }]);
          const page = await context.newPage();
          const deniedPage = await context.newPage();
          await page.goto(`${allowed}/`);
          await deniedPage.goto(`${denied}/`);
          const withCookies = { credentials: "include" } as const;
          const customPut = {
            method: "PUT",
            credentials: "include",
            headers: { "x-custom": "42", "content-type": "application/json" },
            body: "{}",
          } as const;

          // 1. an allowed origin reads a credentialed response and the exposed header
          const read = await call(page, `${full.url}/data`, withCookies);
          assert.equal(read.ok, true, String(read.error));
          assert.equal(read.status, 200);
          assert.deepEqual(JSON.parse(read.body!), { cookie: "session=abc123" });
          assert.equal(read.exposed, "r-1");

          // 2. a disallowed origin is blocked by the browser (the server did answer)
          const blocked = await call(deniedPage, `${full.url}/data`, withCookies);
          assert.equal(blocked.ok, false);
          assert.match(blocked.error!, /TypeError/);
          assert.equal(full.log.filter((l) => l === "GET /data 200").length, 2);

          // 3. a preflighted PUT with a custom header succeeds when it is configured…
          const saved = await call(page, `${full.url}/items/1`, customPut);
          assert.equal(saved.ok, true, String(saved.error));
          assert.deepEqual(JSON.parse(saved.body!), { saved: "1", custom: "42" });
          assert.ok(full.log.includes("OPTIONS /items/1 204"), full.log.join("\n"));
          assert.deepEqual(full.puts, ["1"]);

          // 4. …and fails when it is not: the browser stops after the preflight
          const refused = await call(page, `${plain.url}/items/2`, customPut);
          assert.equal(refused.ok, false);
          assert.ok(plain.log.includes("OPTIONS /items/2 204"), plain.log.join("\n"));
          assert.deepEqual(plain.puts, [], "the PUT must never reach the handler");

          // 5. a disallowed origin does not get past the preflight either
          const deniedPut = await call(deniedPage, `${full.url}/items/3`, customPut);
          assert.equal(deniedPut.ok, false);
          assert.deepEqual(full.puts, ["1"]);

          // 6. credentials need Access-Control-Allow-Credentials; without them the read works
          const noCredentials = await call(page, `${plain.url}/data`, withCookies);
          assert.equal(noCredentials.ok, false);
          const anonymous = await call(page, `${plain.url}/data`, { credentials: "omit" });
          assert.equal(anonymous.ok, true, String(anonymous.error));
          assert.equal(anonymous.status, 200);
          assert.equal(anonymous.exposed, null, "x-request-id is not exposed by this API");

          // 7. through auth(): the preflight for Authorization passes, the token decides
          const bearer = (token: string) => ({
            ...customPut,
            headers: { ...customPut.headers, authorization: `Bearer ${token}` },
          });
          const authorized = await call(page, `${guarded.url}/items/4`, bearer("t0k3n"));
          assert.equal(authorized.ok, true, String(authorized.error));
          assert.equal(authorized.status, 200);
          const unauthorized = await call(page, `${guarded.url}/items/5`, bearer("wrong"));
          assert.equal(unauthorized.ok, true, "the 401 carries CORS headers, so it is readable");
          assert.equal(unauthorized.status, 401);
          assert.deepEqual(guarded.puts, ["4"]);

          // 8. through basicAuth() and validate({ headers }): the preflight carries neither the
          //    credentials nor the header, so it passes them; the real request is checked
          const basic = (custom: string) => ({
            ...customPut,
            credentials: "omit",
            headers: {
              ...customPut.headers,
              "x-custom": custom,
              authorization: `Basic ${btoa("ada:lovelace")}`,
            },
          } as const);
          const checkedPut = await call(page, `${checked.url}/items/6`, basic("7"));
          assert.equal(checkedPut.ok, true, `${checkedPut.error} ${checked.log.join("\n")}`);
          assert.equal(checkedPut.status, 200);
          const badHeader = await call(page, `${checked.url}/items/7`, basic("seven"));
          assert.equal(badHeader.ok, true, "the 400 carries CORS headers, so it is readable");
          assert.equal(badHeader.status, 400);
          assert.deepEqual(checked.puts, ["6"]);

          // 9. an opaque origin ("null", a sandboxed page) is never allowed by a list
          const sandboxed = await context.newPage();
          await sandboxed.goto(`${allowed}/sandboxed`);
          const opaque = await call(sandboxed, `${full.url}/data`, { credentials: "omit" });
          assert.equal(opaque.ok, false);
          const pageOrigin = await sandboxed.evaluate(() =>
            (globalThis as unknown as { origin: string }).origin
          );
          assert.equal(pageOrigin, "null");
        })(),
        TIME_LIMIT_MS,
        "the browser to go through every check",
        { onTimeout: () => browser?.close().catch(() => {}) },
      );
    } finally {
      await closeBrowser(browser);
      await withDeadline(
        Promise.all(servers.map((server) => server.shutdown())),
        10_000,
        "the page and API servers to shut down",
      );
    }
  },
});
