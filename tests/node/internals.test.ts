// The Node adapter's fast paths that rest on private internals of Node, undici and ws (tabled
// in docs/architecture.md, "Node internals"). Each module that probes an internal exports a
// function saying whether it found it; each test drives the code that probes one and fails,
// naming the internal, when the fallback ran instead. Run it under every supported Node:
// `npx vitest run internals.test.ts`, and under Node 22 (as CI does) with
// `npx -y node@22 node_modules/vitest/vitest.mjs run internals.test.ts`.
import * as http from "node:http";
import * as http2 from "node:http2";
import assert from "node:assert/strict";
import { describe, test } from "vitest";
import { WebSocket } from "ws";
import * as weft from "weft";
// The modules that "weft" loads (npm ci copies npm/ into node_modules/weft), reached by path:
// they are no export of the package.
import { sessionStateLive } from "./node_modules/weft/lib/server/_node_h2_stream.js";
import { httpMessageLive, listen2Live } from "./node_modules/weft/lib/server/_node_http.js";
import { lazyRequestsLive } from "./node_modules/weft/lib/server/_node_request.js";
import {
  NativeResponse,
  NodeResponse,
  responseSlotsLive,
} from "./node_modules/weft/lib/server/_node_response.js";
import { bodyAtHand, bodySourceLive } from "./node_modules/weft/lib/server/_node_send.js";
import { statusCodeSymbolLive } from "./node_modules/weft/lib/server/_node_ws.js";
import { withDeadline } from "../_deadline.ts";

const QUIET = { hostname: "127.0.0.1", port: 0, onListen() {} };
const NODE = `Node ${process.version}`;

type Served = ReturnType<typeof weft.serve>;

async function withServer(
  app: Parameters<typeof weft.serve>[0],
  fn: (server: Served) => Promise<void>,
) {
  const server = weft.serve(app, QUIET);
  try {
    await fn(server);
  } finally {
    await withDeadline(server.shutdown(), 10_000, "server.shutdown()");
  }
}

// `live` is what the probing module reports: true, false (its fallback ran) or undefined (the
// test never reached the probe).
function assertLive(internal: string, live: boolean | undefined): void {
  assert.ok(
    live !== undefined,
    `${internal}: never probed on ${NODE}; the test did not reach the code that reads it`,
  );
  assert.ok(
    live,
    `${internal}: not found on ${NODE}, so the adapter took its fallback; see "Node internals" ` +
      "in docs/architecture.md",
  );
}

describe("the Node internals the adapter relies on are live", () => {
  test("undici Response symbol slots: Node's own Response methods accept a light response", async () => {
    assertLive("undici Response symbol slots", responseSlotsLive());
    const light = new NodeResponse("light") as unknown as Response;
    assert.equal(await NativeResponse.prototype.text.call(light), "light");
  });

  test("undici Response body source: a native Response's string body is at hand", () => {
    assertLive(
      "undici Response body source (Symbol(state).body.source)",
      bodySourceLive(),
    );
  });

  test("compress() finds the string or bytes of light and native responses", () => {
    const light = new NodeResponse("light") as unknown as Response;
    assert.equal(bodyAtHand(light), "light");
    assert.deepEqual(
      bodyAtHand(new NodeResponse(new Uint8Array([1, 2])) as unknown as Response),
      new Uint8Array([1, 2]),
    );
    void light.body; // a real Response owns the body from here on
    assert.equal(bodyAtHand(light), undefined);
    assert.equal(
      bodyAtHand(new NodeResponse(new ReadableStream()) as unknown as Response),
      undefined,
    );
    const native = new NativeResponse("native");
    assert.equal(bodyAtHand(native), bodySourceLive() ? "native" : undefined);
  });

  test("undici Request symbol slots: requests are built lazily", async () => {
    assertLive("undici Request symbol slots", lazyRequestsLive());
    const app = weft.router([
      weft.get("/copy", (ctx) => new Response(new Request(ctx.req).url)),
    ]);
    await withServer(app, async (server) => {
      const base = `http://127.0.0.1:${server.addr.port}`;
      const res = await withDeadline(
        fetch(`${base}/copy`),
        10_000,
        "GET /copy",
      );
      assert.equal(await res.text(), `${base}/copy`);
    });
  });

  test("http2 session state symbol: an h2c session's open streams are counted", async () => {
    const app = weft.router([weft.get("/", () => new Response("h2"))]);
    await withServer(app, async (server) => {
      const session = http2.connect(`http://127.0.0.1:${server.addr.port}`);
      try {
        const body = await withDeadline(
          new Promise<string>((resolve, reject) => {
            const stream = session.request({ ":path": "/" });
            let text = "";
            stream.setEncoding("utf8");
            stream.on("data", (chunk: string) => text += chunk);
            stream.on("end", () => resolve(text));
            stream.on("error", reject);
          }),
          10_000,
          "an h2c response",
        );
        assert.equal(body, "h2");
      } finally {
        session.destroy();
      }
    });
    assertLive("Http2Session Symbol(state).streams", sessionStateLive());
  });

  test("ws status-code symbol: a message over maxMessageBytes closes with ws's own code", async () => {
    const websocket = (weft as unknown as {
      websocket(
        handlers: object,
        options: object,
      ): Parameters<typeof weft.get>[1];
    }).websocket;
    const app = weft.router([
      weft.get("/ws", websocket({}, { maxMessageBytes: 1024 })),
    ]);
    await withServer(app, async (server) => {
      const client = new WebSocket(`ws://127.0.0.1:${server.addr.port}/ws`);
      client.on("error", () => {});
      await withDeadline(
        new Promise((resolve, reject) => {
          client.once("open", resolve);
          client.once("error", reject);
        }),
        5_000,
        "the WebSocket handshake",
      );
      const closed = new Promise<number>((resolve) => client.once("close", resolve));
      client.send(new Uint8Array(2048));
      assert.equal(await withDeadline(closed, 5_000, "the 1009 close"), 1009);
    });
    assertLive("ws error Symbol(status-code)", statusCodeSymbolLive());
  });

  test("net.Server _listen2: serve() knows its port when it returns", async () => {
    const server = weft.serve(() => new Response("ok"), QUIET);
    const port = server.addr.port; // before any await: the bind happened inside serve()
    await withDeadline(server.shutdown(), 10_000, "server.shutdown()");
    assert.notEqual(port, 0);
    assertLive("net.Server _listen2", listen2Live());
  });

  test("http socket _httpMessage: Expect: 100-continue gets its 100", async () => {
    const app = weft.router([
      weft.post("/", async (ctx) => new Response(await ctx.body())),
    ]);
    await withServer(app, async (server) => {
      const echoed = await withDeadline(
        new Promise<string>((resolve, reject) => {
          const req = http.request({
            host: "127.0.0.1",
            port: server.addr.port,
            method: "POST",
            path: "/",
            headers: { expect: "100-continue", "content-length": "4" },
          });
          // Without the 100 the body is never sent, and the deadline fails the test.
          req.once("continue", () => req.end("body"));
          req.once("response", (res) => {
            let text = "";
            res.setEncoding("utf8");
            res.on("data", (chunk: string) => text += chunk);
            res.on("end", () => resolve(text));
          });
          req.once("error", reject);
          req.flushHeaders();
        }),
        5_000,
        "the 100 Continue and the echo",
      );
      assert.equal(echoed, "body");
    });
    assertLive("socket._httpMessage", httpMessageLive());
  });
});
