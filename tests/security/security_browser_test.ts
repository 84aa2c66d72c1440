// The security helpers against a real browser: headless Chromium (Debian's package, never
// downloaded) driven by playwright-core. The browser, not an assertion about headers, decides
// which cookies it stores and sends back, what document.cookie shows, whether a cross-site form
// POST carries an Origin that csrf() refuses, and which scripts a CSP nonce lets run. The API
// is served over HTTPS with the repository's test certificate (tests/fixtures/tls, for
// "localhost"), so Secure and __Host- cookies are accepted. Without Chromium the test is
// ignored (see tests/_browser.ts).
import assert from "node:assert/strict";
import { chromium } from "playwright-core";
import type { Browser } from "playwright-core";
import {
  chain,
  cspNonce,
  csrf,
  get,
  getCookies,
  NONCE,
  post,
  router,
  secureHeaders,
  serve,
  type Server,
  setCookie,
} from "../../mod.ts";
import { browserTest, CHROMIUM_ARGS, closeBrowser } from "../_browser.ts";
import { withDeadline } from "../_deadline.ts";

const ARGS = [...CHROMIUM_ARGS];
const TIME_LIMIT_MS = 90_000;

const fixtures = new URL("../fixtures/tls/", import.meta.url);
const cert = await Deno.readTextFile(new URL("cert.pem", fixtures));
const key = await Deno.readTextFile(new URL("key.pem", fixtures));
const quiet = { port: 0, hostname: "127.0.0.1", onListen: () => {} };
const HTML = { "content-type": "text/html; charset=utf-8" };

// The page's document, typed for what these checks read (Deno's types have no DOM).
interface PageDocument {
  cookie: string;
  body: { dataset: Record<string, string> };
}

/** The API on https://localhost: cookies, an echo, CSRF-protected transfers and a CSP page. */
function siteServer() {
  const transfers: string[] = [];
  const echoes: { path: string; cookie: string | null }[] = [];
  const guarded = chain(
    [csrf()],
    router([
      post("/transfer", async (ctx) => {
        transfers.push(await ctx.req.text());
        return new Response("transferred", { headers: HTML });
      }),
    ]),
  );
  const app = chain(
    [secureHeaders({ contentSecurityPolicy: { "script-src": [NONCE] } })],
    router([
      get("/set", (ctx) => {
        setCookie(ctx, "__Host-id", "42", { secure: true, httpOnly: true, sameSite: "Strict" });
        setCookie(ctx, "visible", "a b;c", { sameSite: "Lax" });
        setCookie(ctx, "lax", "1", { sameSite: "Lax", secure: true });
        setCookie(ctx, "none", "1", { sameSite: "None", secure: true });
        setCookie(ctx, "scoped", "1", { path: "/elsewhere", secure: true });
        return new Response("<!doctype html><title>set</title><p>set", { headers: HTML });
      }),
      get("/echo", (ctx) => ctx.json({ ...getCookies(ctx) })),
      post("/echo", (ctx) => {
        echoes.push({ path: "/echo", cookie: ctx.header("cookie") });
        return new Response("echoed", { headers: HTML });
      }),
      get(
        "/page",
        () => new Response("<!doctype html><title>page</title><p>page", { headers: HTML }),
      ),
      get("/csp", (ctx) =>
        new Response(
          "<!doctype html><title>csp</title><body>" +
            `<script nonce="${cspNonce(ctx)}">document.body.dataset.own = "ran";</script>` +
            // what an injection would put into the page: an inline script without the nonce
            '<script>document.body.dataset.injected = "ran";</script>' +
            `<script nonce="wrong-${
              cspNonce(ctx)
            }">document.body.dataset.guessed = "ran";</script>`,
          { headers: HTML },
        )),
      post("/transfer", guarded),
    ]),
  );
  const server = serve(app, { ...quiet, cert, key });
  return { server, transfers, echoes, origin: `https://localhost:${server.addr.port}` };
}

/** Another site (127.0.0.1 is not the same site as localhost) with forms posting to the API. */
function attackerServer(target: string): Server {
  const form = (action: string) =>
    `<!doctype html><title>attacker</title><form method=post action="${target}${action}">` +
    "<input name=amount value=1000><button id=go type=submit>go</button></form>";
  return serve(
    router([
      get("/csrf", () => new Response(form("/transfer"), { headers: HTML })),
      get("/samesite", () => new Response(form("/echo"), { headers: HTML })),
    ]),
    quiet,
  );
}

browserTest({
  name: "security helpers in headless Chromium: cookies, csrf() and the CSP nonce",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn(executablePath) {
    const site = siteServer();
    const attacker = attackerServer(site.origin);
    const attackerOrigin = `http://127.0.0.1:${attacker.addr.port}`;
    let browser: Browser | undefined;
    try {
      await withDeadline(
        (async () => {
          browser = await chromium.launch({ executablePath, args: ARGS, timeout: 30_000 });
          // The test certificate is not in Chromium's trust store; the connection is still
          // TLS, so the origin is https and Secure cookies apply.
          const context = await browser.newContext({ ignoreHTTPSErrors: true });
          context.setDefaultTimeout(15_000);
          const page = await context.newPage();

          // 1. cookies are stored with their attributes
          const set = await page.goto(`${site.origin}/set`);
          assert.equal(set?.status(), 200);
          const stored = Object.fromEntries(
            (await context.cookies(site.origin)).map((c) => [c.name, c]),
          );
          assert.deepEqual(Object.keys(stored).sort(), ["__Host-id", "lax", "none", "visible"]);
          assert.equal(stored["__Host-id"].httpOnly, true);
          assert.equal(stored["__Host-id"].secure, true);
          assert.equal(stored["__Host-id"].sameSite, "Strict");
          assert.equal(stored["__Host-id"].path, "/");
          assert.equal(stored.none.sameSite, "None");
          assert.equal(stored.visible.value, "a%20b%3Bc");
          const all = await context.cookies();
          assert.ok(all.some((c) => c.name === "scoped" && c.path === "/elsewhere"));

          // 2. document.cookie does not see the HttpOnly cookie
          const visible = await page.evaluate(() =>
            (globalThis as unknown as { document: PageDocument }).document.cookie
          );
          assert.doesNotMatch(visible, /__Host-id/);
          assert.match(visible, /visible=a%20b%3Bc/);

          // 3. a same-origin fetch sends every cookie back, decoded by getCookies()
          const echoed = await page.evaluate(async () => (await fetch("/echo")).json());
          assert.deepEqual(echoed, {
            "__Host-id": "42",
            visible: "a b;c",
            lax: "1",
            none: "1",
          });

          // 4. SameSite: a cross-site form POST carries only the SameSite=None cookie
          const other = await context.newPage();
          await other.goto(`${attackerOrigin}/samesite`);
          await Promise.all([other.waitForURL(`${site.origin}/echo`), other.click("#go")]);
          assert.deepEqual(site.echoes, [{ path: "/echo", cookie: "none=1" }]);

          // 5. csrf(): the cross-site form POST is refused with a 403 problem…
          await other.goto(`${attackerOrigin}/csrf`);
          const [refused] = await Promise.all([
            other.waitForResponse(`${site.origin}/transfer`),
            other.click("#go"),
          ]);
          assert.equal(refused.status(), 403);
          assert.match(refused.headers()["content-type"], /application\/problem\+json/);
          assert.deepEqual(site.transfers, [], "the cross-site POST must not reach the handler");

          // …and a same-origin fetch POST passes
          await page.goto(`${site.origin}/page`);
          const passed = await page.evaluate(async () => {
            const res = await fetch("/transfer", { method: "POST", body: "amount=5" });
            return { status: res.status, text: await res.text() };
          });
          assert.deepEqual(passed, { status: 200, text: "transferred" });
          assert.deepEqual(site.transfers, ["amount=5"]);

          // 6. the CSP nonce lets the page's own script run and blocks the others
          const violations: string[] = [];
          page.on("console", (message) => {
            if (/Content Security Policy/.test(message.text())) violations.push(message.text());
          });
          const csp = await page.goto(`${site.origin}/csp`);
          assert.match(csp?.headers()["content-security-policy"] ?? "", /^script-src 'nonce-/);
          const ran = await page.evaluate(() => ({
            ...(globalThis as unknown as { document: PageDocument }).document.body.dataset,
          }));
          assert.deepEqual(ran, { own: "ran" });
          assert.equal(violations.length, 2, violations.join("\n"));
        })(),
        TIME_LIMIT_MS,
        "the browser to go through every check",
        { onTimeout: () => browser?.close().catch(() => {}) },
      );
    } finally {
      await closeBrowser(browser);
      await withDeadline(
        Promise.all([site.server.shutdown(), attacker.shutdown()]),
        10_000,
        "the site and attacker servers to shut down",
      );
    }
  },
});
