// Conformance cases for the router over raw HTTP/1.1 (node:net, which both runtimes implement):
// request targets that the URL parser of a client would have normalized before sending.
import assert from "node:assert/strict";
import type { Env } from "./suite.ts";
import type * as Weft from "../../mod.ts";
import { RawClient } from "./websocket_cases.ts";

/** The cases, by name. */
export const routerCases: Record<string, (env: Env) => Promise<void>> = {
  async "router: a group's middleware wrap the trailing-slash 308 to its paths, as cors() needs"(
    env,
  ) {
    const { cors, get, group, router, serve } = env.weft;
    const origin = "https://app.example";
    const seen: string[] = [];
    const app = router([
      get("/", (ctx) => ctx.text("home")),
      group("/api", [cors({ origin }), (ctx, next) => {
        seen.push(`${ctx.route} ${JSON.stringify(ctx.params)}`);
        return next();
      }], [get("/notes/:id", (ctx) => ctx.text(`note ${ctx.params.id}`))]),
    ], { trailingSlash: "redirect" });
    const server = serve(app, { port: 0, hostname: "127.0.0.1", onListen() {} });
    try {
      const base = `http://127.0.0.1:${server.addr.port}`;
      for (
        const answer of [app.fetch, (request: Request) => fetch(request, { redirect: "manual" })]
      ) {
        seen.length = 0;
        const res = await answer(
          new Request(`${base}/api/notes/7/?full=1`, { headers: { origin } }),
        );
        await res.body?.cancel();
        // a browser follows a cross-origin redirect only when it passes the CORS check
        assert.equal(res.status, 308);
        assert.equal(res.headers.get("location"), "/api/notes/7?full=1");
        assert.equal(res.headers.get("access-control-allow-origin"), origin);
        assert.equal(res.headers.get("vary"), "Origin");
        assert.deepEqual(seen, ['/api/notes/:id {"id":"7"}']);
      }
      // a 404 still runs no group's middleware
      const missing = await app.fetch(new Request(`${base}/api/nothing/`, { headers: { origin } }));
      assert.equal(missing.status, 404);
      assert.equal(missing.headers.get("access-control-allow-origin"), null);
      await missing.body?.cancel();
    } finally {
      await server.shutdown();
    }
  },

  async "router: a trailing-slash 308 never points at another host, for raw /\\, // and escapes"(
    env,
  ) {
    const { get, router, serve } = env.weft;
    const echo = (ctx: Parameters<Weft.Handler>[0]) => ctx.json(ctx.params);
    const app = router([get("/:slug", echo), get("/:slug/:rest", echo)], {
      trailingSlash: "redirect",
    });
    const server = serve(app, { port: 0, hostname: "127.0.0.1", onListen() {} });
    try {
      const targets = [
        "/\\evil.example/",
        "/\\\\evil.example/",
        "/%5Cevil.example/",
        "/%5c%5C/evil.example/",
        "/%2Fevil.example/",
        "/%09/evil.example/",
        "/%0A%0D/evil.example/",
      ];
      for (const target of targets) {
        const raw = await RawClient.open(server.addr.port);
        try {
          raw.write(`GET ${target}?q=1 HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n`);
          const res = await raw.response();
          assert.equal(res.status, 308, target);
          const location = res.headers.get("location")!;
          assert.equal(location, "/evil.example?q=1", target);
          for (const candidate of [location, decodeURIComponent(location)]) {
            assert.equal(new URL(candidate, "http://localhost/").origin, "http://localhost");
          }
        } finally {
          raw.close();
        }
      }
    } finally {
      await server.shutdown();
    }
  },
};
