// The demo in headless Chromium (Debian's package, driven by playwright-core): sign in through
// the login form, see the notes page, find the session cookie HttpOnly and SameSite=Lax (out of
// document.cookie's reach), then add a note through the form in one page and see it appear live,
// over the event stream, in a second page that never reloads. Without Chromium the test is
// ignored (see tests/_browser.ts).
import assert from "node:assert/strict";
import { type Browser, chromium, type Page } from "playwright-core";
import { createDemo } from "../../examples/app.ts";
import { openStore } from "../../examples/notes_store.ts";
import { createTopics, serve } from "../../mod.ts";
import { browserTest, CHROMIUM_ARGS, closeBrowser } from "../_browser.ts";
import { withDeadline } from "../_deadline.ts";

browserTest({
  name: "the demo in Chromium: login form, notes page, a note appearing live in a second page",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn(executablePath) {
    const demo = createDemo({
      store: await openStore(),
      topics: createTopics(),
      sessionSecret: "a-browser-test-secret-of-32-characters",
      password: "correct horse",
    });
    const stop = new AbortController();
    const server = serve(demo.app, {
      port: 0,
      hostname: "127.0.0.1",
      signal: stop.signal,
      onListen() {},
    });
    const base = `http://127.0.0.1:${server.addr.port}`;
    let browser: Browser | undefined;
    try {
      await withDeadline(
        (async () => {
          browser = await chromium.launch({ executablePath, args: [...CHROMIUM_ARGS] });
          const context = await browser.newContext();
          context.setDefaultTimeout(15_000);
          const blocked: string[] = [];
          const watch = (page: Page) =>
            page.on("console", (message) => {
              if (/Content Security Policy/i.test(message.text())) blocked.push(message.text());
            });

          // 1. Signed out, /notes leads to the form; sign in through it.
          const writer = await context.newPage();
          watch(writer);
          await writer.goto(`${base}/notes`);
          assert.equal(new URL(writer.url()).pathname, "/login");
          await writer.fill("input[name=username]", "demo");
          await writer.fill("input[name=password]", "correct horse");
          await Promise.all([
            writer.waitForURL(`${base}/notes`),
            writer.click("button[type=submit]"),
          ]);
          assert.equal(await writer.textContent("#user"), "demo");
          assert.match((await writer.textContent("#notes")) ?? "", /Welcome to the demo/);

          // 2. The session cookie as the browser stored it.
          const cookies = await context.cookies(base);
          const cookie = cookies.find(({ name }) => name === "notes_session");
          assert.ok(cookie !== undefined, JSON.stringify(cookies));
          assert.equal(cookie.httpOnly, true);
          assert.equal(cookie.sameSite, "Lax");
          assert.equal(cookie.path, "/");
          const visible = await writer.evaluate(() =>
            (globalThis as unknown as { document: { cookie: string } }).document.cookie
          );
          assert.ok(!visible.includes("notes_session"), visible);
          assert.ok(visible.includes("csrf_token=")); // readable by scripts, by design

          // 3. A second page, subscribed to the live feed (its script ran under the CSP).
          const reader = await context.newPage();
          watch(reader);
          await reader.goto(`${base}/notes`);
          await reader.waitForSelector("body[data-live=true]");
          await reader.evaluate(() => (globalThis as { marker?: number }).marker = 42);

          // 4. A note through the first page's form appears in the second without a reload.
          const text = `Chromium note ${crypto.randomUUID()}`;
          await writer.fill("input[name=text]", text);
          await Promise.all([
            writer.waitForURL(`${base}/notes`),
            writer.click("form[action='/notes'] button"),
          ]);
          await reader.waitForSelector(`#notes li:has-text("${text}")`);
          assert.equal(await reader.evaluate(() => (globalThis as { marker?: number }).marker), 42);
          assert.match((await writer.textContent("#notes")) ?? "", new RegExp(text));
          assert.deepEqual(blocked, []);

          // 5. Signing out drops the session cookie.
          await Promise.all([
            writer.waitForURL(`${base}/login`),
            writer.click("form[action='/logout'] button"),
          ]);
          const after = await context.cookies(base);
          assert.equal(after.some(({ name }) => name === "notes_session"), false);
        })(),
        90_000,
        "the browser walk through the demo",
        { onTimeout: () => browser?.close().catch(() => {}) },
      );
    } finally {
      await closeBrowser(browser);
      stop.abort();
      await withDeadline(server.finished, 10_000, "the server to shut down");
      await demo.close();
    }
  },
});
