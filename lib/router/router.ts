/**
 * `router([...routes])` and the route constructors `get`, `post`, `put`, `patch`, `del`, `head`,
 * `options` and `route`.
 *
 * @module
 */
import { createApp, settle } from "../_app.ts";
import type { Context } from "../context.ts";
import type { HttpError } from "../http/http_error.ts";
import { problem } from "../http/problem.ts";
import { sameOriginPath } from "../http/same_origin_path.ts";
import type { App, Handler, Params } from "../types.ts";
import { parsePattern, type PathParams } from "./pattern.ts";
import { RadixTree } from "./radix.ts";
import { restoreParam } from "./_path.ts";

/** A route definition made by {@linkcode route} or a method constructor. */
export interface Route {
  /** The HTTP method, upper case. */
  readonly method: string;
  /** The route pattern. */
  readonly pattern: string;
  /** The handler. */
  readonly handler: Handler;
}

/** Options of {@linkcode router}. */
export interface RouterOptions {
  /**
   * `"strict"`: `/a/` and `/a` are different paths. `"redirect"`: a miss whose other form (with
   * or without the trailing slash) matches is answered with a 308 to that form.
   *
   * @default {"strict"}
   */
  trailingSlash?: "strict" | "redirect";
  /**
   * `true`: the routes are compiled, when the router is built, into JavaScript run through
   * `new Function`, which matches faster than walking the radix tree; the tree is walked instead
   * where the runtime forbids code generation from strings (a Content Security Policy without
   * `'unsafe-eval'`) and for a method with several hundred dynamic routes, too large for the
   * engine to optimize. `false`: always walk the tree, never generating code. Both give the
   * same matches.
   *
   * @default {true}
   */
  compile?: boolean;
}

/**
 * Defines a route for any method.
 *
 * @param method The HTTP method (case-insensitive; stored upper case).
 * @param pattern A pattern such as `"/users/:id"` or `"/files/*path"`.
 * @param handler The handler; `ctx.params` is typed from the pattern.
 * @returns The route definition.
 */
export function route<P extends string>(
  method: string,
  pattern: P,
  handler: Handler<PathParams<P>>,
): Route {
  return { method: method.toUpperCase(), pattern, handler: handler as unknown as Handler };
}

/**
 * Defines a GET route (HEAD is answered by it too, without the body).
 *
 * @param pattern The route pattern; `ctx.params` is typed from it.
 * @param handler The handler.
 * @returns The route definition.
 */
export function get<P extends string>(pattern: P, handler: Handler<PathParams<P>>): Route {
  return route("GET", pattern, handler);
}

/**
 * Defines a POST route.
 *
 * @param pattern The route pattern; `ctx.params` is typed from it.
 * @param handler The handler.
 * @returns The route definition.
 */
export function post<P extends string>(pattern: P, handler: Handler<PathParams<P>>): Route {
  return route("POST", pattern, handler);
}

/**
 * Defines a PUT route.
 *
 * @param pattern The route pattern; `ctx.params` is typed from it.
 * @param handler The handler.
 * @returns The route definition.
 */
export function put<P extends string>(pattern: P, handler: Handler<PathParams<P>>): Route {
  return route("PUT", pattern, handler);
}

/**
 * Defines a PATCH route.
 *
 * @param pattern The route pattern; `ctx.params` is typed from it.
 * @param handler The handler.
 * @returns The route definition.
 */
export function patch<P extends string>(pattern: P, handler: Handler<PathParams<P>>): Route {
  return route("PATCH", pattern, handler);
}

/**
 * Defines a DELETE route (`delete` is a reserved word).
 *
 * @param pattern The route pattern; `ctx.params` is typed from it.
 * @param handler The handler.
 * @returns The route definition.
 */
export function del<P extends string>(pattern: P, handler: Handler<PathParams<P>>): Route {
  return route("DELETE", pattern, handler);
}

/**
 * Defines a HEAD route (overrides the automatic HEAD of a GET route).
 *
 * @param pattern The route pattern; `ctx.params` is typed from it.
 * @param handler The handler.
 * @returns The route definition.
 */
export function head<P extends string>(pattern: P, handler: Handler<PathParams<P>>): Route {
  return route("HEAD", pattern, handler);
}

/**
 * Defines an OPTIONS route (overrides the automatic 204 with `Allow`).
 *
 * @param pattern The route pattern; `ctx.params` is typed from it.
 * @param handler The handler.
 * @returns The route definition.
 */
export function options<P extends string>(pattern: P, handler: Handler<PathParams<P>>): Route {
  return route("OPTIONS", pattern, handler);
}

interface Target {
  handler: Handler;
  /** The route pattern, for ctx.route. */
  pattern: string;
  /** A HEAD answered by a GET handler: the body is dropped. */
  headFromGet: boolean;
  /** A static pattern without "%": a path equal to it needs no percent-decoding. */
  plain: boolean;
}

function isPlain(pattern: string): boolean {
  return !pattern.includes("%") && parsePattern(pattern).every((s) => s.kind === "static");
}

// RFC 9110 §9.3.2 and §8.6: the answer to HEAD is the GET response without its content, with
// the Content-Length the GET would have, or none. A body that is at hand (a string, bytes, a
// stream that ends at once) is counted; one that is not ready by the next macrotask, such as an
// event stream, is cancelled and the length left out. Nothing is kept in memory.
async function withoutBody(res: Response): Promise<Response> {
  const body = res.body;
  if (body === null) return res;
  const head = new Response(null, res);
  if (res.headers.has("content-length")) {
    body.cancel().catch(() => {});
    return head;
  }
  const length = await countBytes(body);
  if (length !== undefined) head.headers.set("content-length", String(length));
  return head;
}

async function countBytes(body: ReadableStream<Uint8Array>): Promise<number | undefined> {
  const reader = body.getReader();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<undefined>((resolve) => timer = setTimeout(() => resolve(undefined), 0));
  let length = 0;
  try {
    for (;;) {
      const chunk = await Promise.race([reader.read(), late]);
      if (chunk === undefined) return undefined;
      if (chunk.done) return length;
      length += chunk.value.byteLength;
    }
  } catch {
    return undefined;
  } finally {
    clearTimeout(timer);
    reader.cancel().catch(() => {});
  }
}

/**
 * Builds a router: a radix tree over the routes, with built-in 404, 405 (with `Allow`),
 * automatic HEAD for GET routes and automatic OPTIONS (204 with `Allow`). Priority is by
 * specificity (static, then `:param`, then `*wildcard`), never by registration order.
 * Conflicting routes throw here, not at request time.
 *
 * @param routes Route definitions from `get()`, `post()`, … or `route()`.
 * @param options The trailing-slash policy and whether to compile the routes.
 * @returns An App: a handler with a `fetch` method.
 *
 * @example
 * ```ts
 * import { get, router } from "./router.ts";
 * import assert from "node:assert/strict";
 *
 * const app = router([
 *   get("/users/:id", (ctx) => ctx.json({ id: ctx.params.id })),
 *   get("/users/me", (ctx) => ctx.json({ id: "me" })),
 * ]);
 * const res = await app.fetch(new Request("http://localhost/users/me"));
 * assert.deepEqual(await res.json(), { id: "me" });
 * assert.equal((await app.fetch(new Request("http://localhost/nope"))).status, 404);
 * ```
 */
export function router(routes: readonly Route[], options?: RouterOptions): App;
export function router(routes: readonly Route[], options: RouterOptions = {}): App {
  const tree = new RadixTree<Target>();
  for (const { method, pattern, handler } of routes) {
    if (typeof handler !== "function") {
      throw new TypeError(`Cannot add route "${method} ${pattern}": the handler is not a function`);
    }
    tree.add(method, pattern, { handler, pattern, headFromGet: false, plain: isPlain(pattern) });
  }
  for (const { method, pattern, handler } of routes) {
    if (method === "GET" && !tree.has("HEAD", pattern)) {
      tree.add("HEAD", pattern, { handler, pattern, headFromGet: true, plain: isPlain(pattern) });
    }
  }
  const redirect = options.trailingSlash === "redirect";
  const find = options.compile === false ? tree.find.bind(tree) : tree.compile();

  function miss(ctx: Context, path: string): Response {
    const allowed = tree.methodsFor(path);
    if (allowed.length === 0) {
      if (redirect && path !== "/") {
        const other = path.endsWith("/") ? path.slice(0, -1) : path + "/";
        if (tree.methodsFor(other).length > 0) {
          const url = ctx.req.url;
          const query = url.indexOf("?");
          // The path as sent may start with "/\" or "//", which a browser would take for a host.
          const location = sameOriginPath(
            ctx.path.endsWith("/") ? ctx.path.slice(0, -1) : ctx.path + "/",
          );
          return new Response(null, {
            status: 308,
            headers: { location: query === -1 ? location : location + url.slice(query) },
          });
        }
      }
      return problem({ status: 404, detail: `No route matches ${ctx.path}` });
    }
    if (!allowed.includes("OPTIONS")) allowed.push("OPTIONS");
    const allow = allowed.join(", ");
    if (ctx.req.method === "OPTIONS") {
      return new Response(null, { status: 204, headers: { allow } });
    }
    return problem({
      status: 405,
      detail: `${ctx.req.method} is not allowed on ${ctx.path}`,
    }, { allow });
  }

  return createApp(function router(ctx: Context): Response | Promise<Response> {
    const method = ctx.req.method;
    let path = ctx.path;
    let match = find(method, path);
    let encoded = false;
    // A static pattern without "%" that equals the path as sent proves the path has no escape
    // to decode; anything else is matched again on the decoded path when it has one.
    if (match === undefined || !match.data.plain) {
      encoded = path.includes("%");
      if (encoded) {
        try {
          path = ctx.decodedPath;
        } catch (error) {
          return (error as HttpError).toResponse(); // a malformed escape: 400
        }
        match = find(method, path);
      }
      if (match === undefined) return miss(ctx, path);
    }
    const { names, values } = match;
    if (names.length > 0) {
      const params: Params = {};
      for (let i = 0; i < names.length; i++) {
        const value = values[i];
        params[names[i]] = encoded ? restoreParam(value) : value;
      }
      ctx.params = params;
    }
    const { handler, headFromGet, pattern } = match.data;
    ctx.route = pattern;
    if (!headFromGet) return handler(ctx);
    return settle(ctx, handler).then(withoutBody);
  });
}
