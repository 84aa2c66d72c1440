// The security helpers are exported from mod.ts but must cost nothing to an app that does not
// use them: a bundle of the core exports holds none of their code, and a bundle that imports one
// helper holds that helper only.
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { denoBundle } from "../../scripts/size_check.ts";

const ROOT = fileURLToPath(new URL("../..", import.meta.url)).replace(/\/$/, "");

// A string only each helper's own code contains.
const MARKERS: Record<string, string> = {
  cookies: "Cannot set cookie",
  signedCookies: "every secret must be a string",
  session: "Cannot store the session",
  csrf: "Cross-site request refused",
  basicAuth: "Basic authentication is required",
  secureHeaders: "strict-origin-when-cross-origin",
  requestId: "Cannot create requestId()",
};

async function bundle(code: string): Promise<string> {
  const dir = await Deno.makeTempDir();
  try {
    await denoBundle(code, `${dir}/bundle.js`, { minify: true });
    return await Deno.readTextFile(`${dir}/bundle.js`);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("a core bundle of mod.ts holds none of the security helpers", async () => {
  const core = await bundle(`export { chain, get, logger, router, serve } from "${ROOT}/mod.ts";`);
  for (const [helper, marker] of Object.entries(MARKERS)) {
    assert.ok(!core.includes(marker), `${helper} is in the core bundle`);
  }
});

Deno.test("a bundle that imports one helper holds it and not the others", async () => {
  const one = await bundle(`export { csrf } from "${ROOT}/mod.ts";`);
  assert.ok(one.includes(MARKERS.csrf));
  assert.ok(one.includes(MARKERS.cookies), "csrf() sets its token cookie with setCookie()");
  for (const helper of ["session", "basicAuth", "secureHeaders", "requestId"]) {
    assert.ok(!one.includes(MARKERS[helper]), `${helper} came along with csrf()`);
  }
});
