// The typed client in Chromium: weft/client and the demo round trip bundled by esbuild for the
// browser, loaded by a page that the demo app's own server serves (same origin), then run with
// the browser's fetch against the demo app. The bundle must hold nothing of the server.
// Headless Chromium (Debian's package) driven by playwright-core; without it the test is
// ignored (see tests/_browser.ts).
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import * as esbuild from "esbuild";
import { type Browser, chromium } from "playwright-core";
import { chain, type Middleware, serve } from "../../mod.ts";
import { app } from "../../examples/app.ts";
import { browserTest, CHROMIUM_ARGS } from "../_browser.ts";
import { withDeadline } from "../_deadline.ts";
import { DEMO_STEPS } from "./demo_round_trip.ts";

const HERE = fileURLToPath(new URL(".", import.meta.url));

async function bundle(): Promise<string> {
  try {
    const result = await esbuild.build({
      stdin: {
        contents: `import { client } from "../../lib/client/mod.ts";
import { demoRoundTrip } from "./demo_round_trip.ts";
globalThis.runDemo = (base) => demoRoundTrip(client, base);`,
        resolveDir: HERE,
        loader: "ts",
      },
      bundle: true,
      format: "esm",
      platform: "browser",
      write: false,
      logLevel: "silent",
    });
    return result.outputFiles[0].text;
  } finally {
    await esbuild.stop();
  }
}

browserTest({
  name: "the typed client, bundled for the browser, round-trips the demo app in Chromium",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn(executablePath) {
    const script = await bundle();
    // Only the client: no server module, no runtime API, no Node built-in.
    for (const word of ["Deno.", "node:", "createApp", "RadixTree"]) {
      assert.ok(!script.includes(word), `the client bundle contains "${word}"`);
    }
    const html = `<!doctype html><meta charset=utf-8><title>client</title>
<script type="module">${script}</script>`;
    const page: Middleware = (ctx, next) =>
      ctx.path === "/__client" ? Promise.resolve(ctx.html(html)) : next();
    const server = serve(chain([page], app), { hostname: "127.0.0.1", port: 0, onListen() {} });
    const origin = `http://127.0.0.1:${server.addr.port}`;
    let browser: Browser | undefined;
    try {
      const steps = await withDeadline(
        (async () => {
          browser = await chromium.launch({
            executablePath,
            args: [...CHROMIUM_ARGS],
            timeout: 30_000,
          });
          const tab = await browser.newPage();
          tab.setDefaultTimeout(15_000);
          await tab.goto(`${origin}/__client`);
          await tab.waitForFunction(() => "runDemo" in globalThis);
          return await tab.evaluate(
            (base) =>
              (globalThis as unknown as { runDemo(base: string): Promise<string[]> }).runDemo(base),
            origin,
          );
        })(),
        90_000,
        "the round trip in Chromium",
      );
      assert.deepEqual(steps, DEMO_STEPS);
    } finally {
      await browser?.close();
      await withDeadline(server.shutdown(), 10_000, "the page server to shut down");
    }
  },
});
