// docs/benchmarks.md's charts load in a browser: headless Chromium (Debian's package, never
// downloaded; see tests/_browser.ts) opens a page with one <img> per chart the report links,
// served from docs/benchmarks/ as image/svg+xml, and every image must decode (naturalWidth
// > 0). Without Chromium the test is ignored, unless WEFT_REQUIRE_BROWSER=1.
import assert from "node:assert/strict";
import { chromium } from "playwright-core";
import type { Browser } from "playwright-core";
import { get, HttpError, router, serve } from "../../mod.ts";
import { browserTest, CHROMIUM_ARGS } from "../_browser.ts";
import { withDeadline } from "../_deadline.ts";

const DOCS = new URL("../../docs/", import.meta.url);
const ARGS = [...CHROMIUM_ARGS];
const TIME_LIMIT_MS = 60_000;

/** The charts docs/benchmarks.md links, as file names under docs/benchmarks/. */
function linkedCharts(): string[] {
  const markdown = Deno.readTextFileSync(new URL("benchmarks.md", DOCS));
  return [...markdown.matchAll(/!\[[^\]]*\]\(benchmarks\/([\w-]+\.svg)\)/g)].map((m) => m[1]);
}

Deno.test("docs/benchmarks.md links charts that exist", () => {
  const charts = linkedCharts();
  assert.ok(charts.length > 0, "docs/benchmarks.md links no chart");
  for (const name of charts) {
    assert.ok(Deno.statSync(new URL(`benchmarks/${name}`, DOCS)).isFile, `${name} is missing`);
  }
});

browserTest({
  name: "every chart of docs/benchmarks.md renders in Chromium",
  async fn(executablePath) {
    const charts = linkedCharts();
    const page = `<!doctype html><meta charset=utf-8><title>charts</title>` +
      charts.map((name) => `<img src="/benchmarks/${name}" alt="${name}">`).join("");
    const server = serve(
      router([
        get("/", () => new Response(page, { headers: { "content-type": "text/html" } })),
        get("/benchmarks/:name", async (ctx) => {
          const name = ctx.params.name;
          if (!charts.includes(name)) throw new HttpError(404, `no chart ${name}`);
          const svg = await Deno.readFile(new URL(`benchmarks/${name}`, DOCS));
          return new Response(svg, { headers: { "content-type": "image/svg+xml" } });
        }),
      ]),
      { port: 0, hostname: "127.0.0.1", onListen: () => {} },
    );
    let browser: Browser | undefined;
    try {
      await withDeadline(
        (async () => {
          browser = await chromium.launch({ executablePath, args: ARGS, timeout: 30_000 });
          const tab = await browser.newPage();
          tab.setDefaultTimeout(15_000);
          await tab.goto(`http://127.0.0.1:${server.addr.port}/`, { waitUntil: "load" });
          const images = await tab.$$eval("img", (all) =>
            all.map((img) => ({
              name: img.alt,
              complete: img.complete,
              width: img.naturalWidth,
              height: img.naturalHeight,
            })));
          assert.equal(images.length, charts.length);
          for (const image of images) {
            assert.ok(image.complete, `${image.name} did not finish loading`);
            assert.ok(image.width > 0 && image.height > 0, `${image.name} did not decode`);
          }
        })(),
        TIME_LIMIT_MS,
        "Chromium to render the charts",
      );
    } finally {
      await browser?.close();
      await server.shutdown();
    }
  },
});
