/**
 * `weft/wsgi`: a static-file middleware on the WSGI calling convention (PEP 3333), a gateway
 * that runs any WSGI application for fetch `Request`s, and a PEP 3333 validator.
 *
 * A WSGI application is `(environ, startResponse) => Iterable<Uint8Array>`; `environ` carries
 * the CGI variables with bytes as Latin-1 code units, and the iterable's `close()` is always
 * called.
 *
 * @example Static files in front of an application, run as a fetch handler
 * ```ts
 * import { StaticMiddleware, toFetchHandler, validator, type WsgiApp } from "./mod.ts";
 * import assert from "node:assert/strict";
 *
 * const root = Deno.makeTempDirSync();
 * Deno.writeTextFileSync(`${root}/app.css`, "body { margin: 0 }");
 *
 * const notFound: WsgiApp = (_environ, startResponse) => {
 *   startResponse("404 Not Found", [["Content-Type", "text/plain"], ["Content-Length", "9"]]);
 *   return [new TextEncoder().encode("not found")];
 * };
 * const app = validator(StaticMiddleware(notFound, root, "/static"));
 * const fetch = toFetchHandler(app);
 *
 * const res = await fetch(new Request("http://localhost/static/app.css"));
 * assert.equal(res.status, 200);
 * assert.equal(res.headers.get("content-type"), "text/css");
 * assert.equal(res.headers.get("cache-control"), "max-age=60");
 * const etag = res.headers.get("etag")!;
 * assert.equal(await res.text(), "body { margin: 0 }");
 *
 * const again = await fetch(new Request("http://localhost/static/app.css", { headers: { "if-none-match": etag } }));
 * assert.equal(again.status, 304);
 *
 * const miss = await fetch(new Request("http://localhost/static/../secret"));
 * assert.equal(miss.status, 404);
 * await miss.body?.cancel();
 * app.assertClosed();
 * Deno.removeSync(root, { recursive: true });
 * ```
 *
 * @module
 */
export { StaticMiddleware, type StaticMiddlewareOptions } from "./static_middleware.ts";
export { type GatewayOptions, toFetchHandler, type WsgiFetchHandler } from "./gateway.ts";
export { serveWsgi, type ServeWsgiOptions } from "./serve_wsgi.ts";
export { type ValidatedWsgiApp, validator, WsgiValidationError } from "./validate.ts";
export type {
  Environ,
  FileLike,
  FileWrapper,
  StartResponse,
  WriteFunction,
  WsgiApp,
  WsgiErrors,
  WsgiInput,
  WsgiIterable,
} from "./types.ts";
