// sse() against a real EventSource: headless Chromium (Debian's package, driven by
// playwright-core) receives events, reconnects with Last-Event-ID after the server ends the
// connection, and dispatches nothing for heartbeats. Without Chromium the test is ignored
// (see tests/_browser.ts).
import assert from "node:assert/strict";
import { chromium } from "playwright-core";
import type { Browser } from "playwright-core";
import { chain, get, logger, router, serve, sse } from "../../mod.ts";
import { browserTest, CHROMIUM_ARGS, closeBrowser } from "../_browser.ts";
import { withDeadline } from "../_deadline.ts";

const ARGS = [...CHROMIUM_ARGS];
const HEARTBEAT_MS = 50;
const PAGE = `<!doctype html><meta charset=utf-8><title>events</title><script>
  globalThis.received = [];
  globalThis.opens = 0;
  const source = new EventSource("/events");
  source.onopen = () => opens++;
  source.onmessage = (e) => received.push(["message", e.data, e.lastEventId]);
  source.addEventListener("tick", (e) => received.push(["tick", e.data, e.lastEventId]));
  source.addEventListener("done", (e) => { received.push(["done", e.data, e.lastEventId]); source.close(); });
</script>`;

browserTest({
  name: "sse() in headless Chromium: events, a reconnection with Last-Event-ID, no heartbeat seen",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn(executablePath) {
    const lastEventIds: string[] = [];
    let heartbeatsSent = 0;
    const app = chain(
      [logger({ sink() {} })],
      router([
        get(
          "/",
          () => new Response(PAGE, { headers: { "content-type": "text/html" } }),
        ),
        get("/events", (ctx) =>
          sse(ctx, async (stream) => {
            lastEventIds.push(stream.lastEventId);
            if (stream.lastEventId === "") {
              // First connection: three events, then the server ends the response.
              stream.send({ id: "1", data: "one" });
              stream.send({ id: "2", event: "tick", data: "two\nlines" });
              stream.send({ id: "3", data: "three" });
              return;
            }
            // The reconnection: resume after the id the browser sent, then let heartbeats
            // pass (comments, which the page must not see) before the last event.
            const next = Number(stream.lastEventId) + 1;
            stream.send({ id: String(next), data: "resumed" });
            const start = heartbeatsSent;
            await new Promise<void>((resolve) => {
              const timer = setInterval(() => {
                heartbeatsSent++;
                if (heartbeatsSent - start >= 5) {
                  clearInterval(timer);
                  resolve();
                }
              }, HEARTBEAT_MS);
              stream.signal.addEventListener("abort", () => {
                clearInterval(timer);
                resolve();
              });
            });
            stream.send({ event: "done", data: "bye" });
            await stream.closed;
          }, { heartbeat: HEARTBEAT_MS / 2, retry: 100 })),
      ]),
    );
    const server = serve(app, {
      port: 0,
      hostname: "127.0.0.1",
      onListen() {},
    });
    let browser: Browser | undefined;
    try {
      await withDeadline(
        (async () => {
          browser = await chromium.launch({
            executablePath,
            args: ARGS,
            timeout: 30_000,
          });
          const page = await browser.newPage();
          page.setDefaultTimeout(15_000);
          await page.goto(`http://127.0.0.1:${server.addr.port}/`);
          await page.waitForFunction(
            () =>
              (globalThis as unknown as { received: string[][] }).received.some(
                ([type]) => type === "done",
              ),
            undefined,
            { timeout: 30_000 },
          );
          const events = await page.evaluate(() =>
            (globalThis as unknown as { received: string[][] }).received
          );
          assert.deepEqual(events, [
            ["message", "one", "1"],
            ["tick", "two\nlines", "2"],
            ["message", "three", "3"],
            ["message", "resumed", "4"],
            ["done", "bye", "4"],
          ]);
          assert.deepEqual(lastEventIds, ["", "3"]);
          const opens = await page.evaluate(() =>
            (globalThis as unknown as { opens: number }).opens
          );
          assert.equal(opens, 2);
        })(),
        90_000,
        "the browser to receive every event",
        { onTimeout: () => browser?.close().catch(() => {}) },
      );
    } finally {
      await closeBrowser(browser);
      await withDeadline(server.shutdown(), 10_000, "the server to shut down");
    }
  },
});
