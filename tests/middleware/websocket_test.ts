// websocket(): the handshake checks, options and the accept computation, through app.fetch()
// (Deno answers a handshake that did not come from its server with a 101 all the same, so
// the 101 and its headers can be checked without a socket). Socket tests:
// websocket_socket_test.ts and the conformance cases.
import assert from "node:assert/strict";
import fc from "fast-check";
import { chain, cors, get, type Middleware, post, router } from "../../mod.ts";
import { logger, type LogRecord } from "../../lib/middleware/logger.ts";
import { auth, bearerTokens } from "../../lib/middleware/auth.ts";
import { acceptKey, websocket } from "../../lib/middleware/websocket.ts";

const KEY = "dGhlIHNhbXBsZSBub25jZQ==";

function handshake(
  changes: Record<string, string | null> = {},
  init: { method?: string; path?: string } = {},
): Request {
  const fields: Record<string, string | null> = {
    upgrade: "websocket",
    connection: "Upgrade",
    "sec-websocket-key": KEY,
    "sec-websocket-version": "13",
    ...changes,
  };
  const headers = new Headers();
  for (const [name, value] of Object.entries(fields)) if (value !== null) headers.set(name, value);
  return new Request(`http://localhost${init.path ?? "/ws"}`, {
    method: init.method ?? "GET",
    headers,
  });
}

const route = router([
  get("/ws", websocket({})),
  post("/ws-post", websocket({})),
  get("/chat", websocket({}, { protocols: ["v2.chat", "v1.chat"] })),
]);

async function problemOf(res: Response): Promise<{ status: number; detail: string }> {
  assert.equal(res.headers.get("content-type"), "application/problem+json");
  return await res.json();
}

Deno.test("acceptKey() matches the RFC 6455 vectors", async () => {
  const url = new URL("../fixtures/rfc-vectors/vectors.json", import.meta.url);
  const vectors = JSON.parse(await Deno.readTextFile(url)).websocket_accept as {
    sec_websocket_key: string;
    sec_websocket_accept: string;
  }[];
  assert.ok(vectors.length > 0);
  for (const vector of vectors) {
    assert.equal(await acceptKey(vector.sec_websocket_key), vector.sec_websocket_accept);
  }
  assert.equal(await acceptKey(KEY), "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=");
});

Deno.test("websocket() answers a valid handshake with the runtime's 101", async () => {
  const res = await route.fetch(handshake());
  assert.equal(res.status, 101);
  assert.equal(res.headers.get("upgrade"), "websocket");
  assert.equal(res.headers.get("sec-websocket-accept"), await acceptKey(KEY));
  // Header tokens are case-insensitive and Connection may list several.
  const mixed = await route.fetch(
    handshake({ upgrade: "WebSocket", connection: "keep-alive, UPGRADE" }),
  );
  assert.equal(mixed.status, 101);
});

Deno.test("websocket() answers a request that is no handshake with 426 and Upgrade", async () => {
  const res = await route.fetch(new Request("http://localhost/ws"));
  assert.equal(res.status, 426);
  assert.equal(res.headers.get("upgrade"), "websocket");
  assert.equal(res.headers.get("connection"), "Upgrade");
  assert.equal(res.headers.get("sec-websocket-version"), "13");
  assert.equal((await problemOf(res)).status, 426);
  // Another protocol's upgrade (h2c) is not a WebSocket handshake either.
  const h2c = await route.fetch(
    new Request("http://localhost/ws", { headers: { upgrade: "h2c", connection: "Upgrade" } }),
  );
  assert.equal(h2c.status, 426);
  // HEAD is answered by the GET route: 426 without a body.
  const head = await route.fetch(new Request("http://localhost/ws", { method: "HEAD" }));
  assert.equal(head.status, 426);
  assert.equal(await head.text(), "");
});

Deno.test("websocket() answers 426 with Sec-WebSocket-Version: 13 to other versions", async () => {
  for (const version of ["8", "12", "14", "13, 8", "013", "", null]) {
    const res = await route.fetch(handshake({ "sec-websocket-version": version }));
    assert.equal(res.status, 426, `version ${version}`);
    assert.equal(res.headers.get("sec-websocket-version"), "13");
    assert.equal((await problemOf(res)).status, 426);
  }
});

Deno.test("websocket() answers 400 to a missing or malformed key", async () => {
  const keys = [
    null,
    "",
    "abc",
    "AAAAAAAAAAAAAAAAAAAA", // 15 bytes
    "AAAAAAAAAAAAAAAAAAAAAAA=", // 17 bytes
    "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", // 24 bytes
    "dGhlIHNhbXBsZSBub25jZR==", // 16 bytes with stray bits in the padding
    "dGhlIHNhbXBsZSBub25jZQ", // unpadded
    "dGhlIHNhbXBsZSBub25jZQ=", // padded wrongly
    "dGhlIHNhbXBsZSBub25j!Q==",
    "dGhlIHNhbXBsZSBub25jZQ==dGhlIHNhbXBsZSBub25jZQ==",
    `${KEY}, ${KEY}`, // sent twice
    "dGhl-HNhbXBsZSBub25jZQ==", // base64url is not base64
  ];
  for (const key of keys) {
    const res = await route.fetch(handshake({ "sec-websocket-key": key }));
    assert.equal(res.status, 400, `key ${key}`);
    assert.match((await problemOf(res)).detail, /Sec-WebSocket-Key/);
  }
  // Any 16 bytes are a valid key.
  const bytes = new Uint8Array(16).map((_, i) => 255 - i * 7);
  const res = await route.fetch(
    handshake({ "sec-websocket-key": btoa(String.fromCharCode(...bytes)) }),
  );
  assert.equal(res.status, 101);
});

Deno.test("websocket() answers 400 without Upgrade: websocket or Connection: upgrade", async () => {
  const cases: [Record<string, string | null>, RegExp][] = [
    [{ upgrade: null }, /Upgrade/],
    [{ upgrade: "h2c" }, /Upgrade/],
    [{ upgrade: "websocket2" }, /Upgrade/],
    [{ connection: null }, /Connection/],
    [{ connection: "keep-alive" }, /Connection/],
    [{ connection: "upgraded" }, /Connection/],
  ];
  for (const [changes, detail] of cases) {
    const res = await route.fetch(handshake(changes));
    assert.equal(res.status, 400, JSON.stringify(changes));
    assert.match((await problemOf(res)).detail, detail);
  }
});

Deno.test("websocket() answers 400 to a handshake with another method than GET", async () => {
  const res = await route.fetch(handshake({}, { method: "POST", path: "/ws-post" }));
  assert.equal(res.status, 400);
  assert.match((await problemOf(res)).detail, /GET, not POST/);
  // HEAD reaches the GET route's handler: 400, without a body.
  const head = await route.fetch(handshake({}, { method: "HEAD" }));
  assert.equal(head.status, 400);
  // A route that is GET only: the router's 405 comes first.
  assert.equal((await route.fetch(handshake({}, { method: "PUT" }))).status, 405);
});

Deno.test("websocket() never answers a handshake-like request with a 500", async () => {
  const value = fc.oneof(
    fc.constant(null),
    fc.constantFrom("websocket", "Upgrade", "13", KEY, "upgrade, keep-alive", ""),
    fc.string({ maxLength: 40 }).map((s) => s.replace(/[\r\n\0]/g, "")),
  );
  const methods = fc.constantFrom("GET", "HEAD", "POST", "DELETE");
  // Every method reaches the middleware; the route only sees GET and HEAD.
  const middleware = chain(
    [websocket({}, { protocols: ["v1.chat"] })],
    () => new Response(null, { status: 204 }),
  );
  await fc.assert(
    fc.asyncProperty(value, value, value, value, value, methods, async (u, c, k, v, p, method) => {
      const changes = {
        upgrade: u,
        connection: c,
        "sec-websocket-key": k,
        "sec-websocket-version": v,
        "sec-websocket-protocol": p,
      };
      const apps = method === "GET" || method === "HEAD" ? [route, middleware] : [middleware];
      for (const app of apps) {
        let request: Request;
        try {
          request = handshake(changes, { method, path: "/chat" });
        } catch {
          return; // a header value the Headers class refuses
        }
        const res = await app.fetch(request);
        const allowed = app === route ? [101, 400, 426] : [101, 204, 400, 426];
        assert.ok(allowed.includes(res.status), `status ${res.status}`);
        if (res.status === 400 || res.status === 426) {
          assert.equal(res.headers.get("content-type"), "application/problem+json");
        }
        await res.body?.cancel();
      }
    }),
    { numRuns: 500 },
  );
});

Deno.test("websocket() picks the first of its protocols that the client offers", async () => {
  const offer = async (value: string | null) =>
    (await route.fetch(handshake({ "sec-websocket-protocol": value }, { path: "/chat" })))
      .headers.get("sec-websocket-protocol");
  assert.equal(await offer("v1.chat, v2.chat"), "v2.chat");
  assert.equal(await offer("v1.chat,v2.chat"), "v2.chat");
  assert.equal(await offer("v1.chat"), "v1.chat");
  assert.equal(await offer("mqtt"), null);
  assert.equal(await offer(null), null);
  // Without protocols of its own, the server selects none.
  const plain = await route.fetch(handshake({ "sec-websocket-protocol": "v1.chat" }));
  assert.equal(plain.headers.get("sec-websocket-protocol"), null);
});

Deno.test("websocket() as a middleware passes requests that are no handshake on", async () => {
  const app = chain(
    [websocket({})],
    router([get("/", () => new Response("page"))]),
  );
  const page = await app.fetch(new Request("http://localhost/"));
  assert.equal(await page.text(), "page");
  assert.equal((await app.fetch(handshake({}, { path: "/anywhere" }))).status, 101);
  assert.equal((await app.fetch(handshake({ "sec-websocket-key": null }))).status, 400);
});

Deno.test("websocket() 101 carries headers set by earlier middleware; logger records it", async () => {
  const records: LogRecord[] = [];
  const custom: Middleware = async (ctx, next) => {
    ctx.setHeader("x-request-id", "r-42");
    ctx.setHeader("set-cookie", "a=1");
    ctx.setHeader("set-cookie", "b=2");
    return await next();
  };
  const app = chain(
    [
      logger({ sink: (_line, record) => records.push(record) }),
      cors({ origin: "https://app.example" }),
      custom,
    ],
    router([get("/ws", websocket({}))]),
  );
  const res = await app.fetch(handshake({ origin: "https://app.example" }));
  assert.equal(res.status, 101);
  assert.equal(res.headers.get("x-request-id"), "r-42");
  assert.deepEqual(res.headers.getSetCookie(), ["a=1", "b=2"]);
  assert.equal(res.headers.get("access-control-allow-origin"), "https://app.example");
  assert.equal(res.headers.get("vary"), "Origin");
  assert.equal(res.headers.get("sec-websocket-accept"), await acceptKey(KEY));
  assert.equal(records[0].status, 101);
});

Deno.test("websocket() lets auth answer 401 before any upgrade", async () => {
  let upgraded = 0;
  const app = chain(
    [auth({ validate: bearerTokens(["t0k3n"]) })],
    router([get("/ws", websocket({ onOpen: () => void upgraded++ }))]),
  );
  const refused = await app.fetch(handshake());
  assert.equal(refused.status, 401);
  assert.equal(refused.headers.get("sec-websocket-accept"), null);
  const ok = await app.fetch(handshake({ authorization: "Bearer t0k3n" }));
  assert.equal(ok.status, 101);
  assert.equal(upgraded, 0, "nothing opens without a server");
});

Deno.test("websocket() refuses malformed options", () => {
  assert.throws(() => websocket({ onMessage: "x" as never }), {
    name: "TypeError",
    message: "Cannot create websocket(): onMessage must be a function",
  });
  assert.throws(() => websocket(null as never), TypeError);
  for (const maxMessageBytes of [0, -1, 1.5, NaN, Infinity]) {
    assert.throws(() => websocket({}, { maxMessageBytes }), RangeError);
  }
  for (const value of [-1, 1.5, NaN, Infinity]) {
    assert.throws(() => websocket({}, { maxQueuedMessages: value }), RangeError);
    assert.throws(() => websocket({}, { maxQueuedBytes: value }), RangeError);
  }
  for (const idleTimeout of [-1, NaN, Infinity]) {
    assert.throws(() => websocket({}, { idleTimeout }), RangeError);
  }
  assert.throws(() => websocket({}, { protocols: ["a b"] }), {
    name: "TypeError",
    message: 'Cannot create websocket(): protocol "a b" is not an HTTP token',
  });
  assert.throws(() => websocket({}, { protocols: [""] }), TypeError);
  for (const origin of ["https://app.example/", "https://App.example", "app.example", "null"]) {
    assert.throws(() => websocket({}, { origins: [origin] }), TypeError, origin);
  }
  assert.throws(() => websocket({}, { origins: "https://app.example" as never }), {
    name: "TypeError",
    message: "Cannot create websocket(): origins must be an array of origins or a function",
  });
});
