// Every payload of tests/fixtures/traversal/directory_traversal.txt, decoded as a server
// would, under several prefixes: every one must reach the wrapped app and no response may carry
// a canary (files planted outside the root at every level a traversal could reach) or the
// machine's real /etc/passwd.
import assert from "node:assert/strict";
import { StaticMiddleware, toFetchHandler, validator } from "../../wsgi/mod.ts";
import { buildFixture, call, CANARY, decoder, fallbackApp, makeEnviron } from "./_harness.ts";

const CORPUS = new URL(
  "../fixtures/traversal/directory_traversal.txt",
  import.meta.url,
);
const payloads = Deno.readTextFileSync(CORPUS).split("\n").filter((line) => line !== "");
const fixture = await buildFixture();
globalThis.addEventListener("unload", () => fixture.remove());

let realPasswd = "";
try {
  realPasswd = Deno.readTextFileSync("/etc/passwd").split("\n")[0];
} catch {
  // no /etc/passwd here; the canaries still cover the tree
}

/** Splits off the query and percent-decodes once, bytes as Latin-1 code units (PEP 3333). */
function decodeAsServer(target: string): string {
  const query = target.indexOf("?");
  const path = query === -1 ? target : target.slice(0, query);
  const bytes = new TextEncoder().encode(path);
  let out = "";
  for (let i = 0; i < bytes.length; i++) {
    const hex = String.fromCharCode(bytes[i + 1] ?? 0, bytes[i + 2] ?? 0);
    if (bytes[i] === 0x25 && /^[0-9a-fA-F]{2}$/.test(hex)) {
      out += String.fromCharCode(parseInt(hex, 16));
      i += 2;
    } else {
      out += String.fromCharCode(bytes[i]);
    }
  }
  return out;
}

function assertClean(text: string, what: string): void {
  assert.ok(!text.includes(CANARY), `canary served for ${what}`);
  if (realPasswd !== "") assert.ok(!text.includes(realPasswd), `/etc/passwd served for ${what}`);
}

Deno.test("the traversal corpus has its 140 payloads", () => {
  assert.equal(payloads.length, 140);
});

for (const prefix of ["/static", "/", "/a/b"]) {
  Deno.test(`StaticMiddleware() under "${prefix}" sends every traversal payload to the wrapped app`, () => {
    const fallback = fallbackApp();
    const inner = validator(fallback);
    const app = validator(StaticMiddleware(inner, fixture.root, prefix));
    let canaryBytes = 0;
    for (const payload of payloads) {
      const decoded = decodeAsServer(payload);
      const pathInfo = prefix.replace(/\/$/, "") + (decoded.startsWith("/") ? "" : "/") + decoded;
      const res = call(app, makeEnviron(pathInfo));
      assertClean(res.text, JSON.stringify(payload));
      if (res.text.includes(CANARY)) canaryBytes += res.body.length;
      assert.equal(res.text, "fallback", `not passed through: ${JSON.stringify(payload)}`);
    }
    app.assertClosed();
    inner.assertClosed();
    assert.equal(fallback.hits.length, payloads.length); // 100 % reach the wrapped app
    assert.equal(canaryBytes, 0);
  });
}

Deno.test("StaticMiddleware() behind the gateway serves no canary for any traversal payload", async () => {
  const fallback = fallbackApp();
  const handler = toFetchHandler(validator(StaticMiddleware(fallback, fixture.root, "/static")));
  let sent = 0;
  for (const payload of payloads) {
    let request: Request;
    try {
      request = new Request(`http://localhost/static/${payload}`);
    } catch {
      continue; // not a URL fetch can represent
    }
    sent++;
    const res = await handler(request);
    const text = decoder.decode(new Uint8Array(await res.arrayBuffer()));
    assertClean(text, JSON.stringify(payload));
    assert.equal(res.status, 404, JSON.stringify(payload));
  }
  assert.equal(sent, payloads.length);
  assert.equal(fallback.hits.length, sent);
});
