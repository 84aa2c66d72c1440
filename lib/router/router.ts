/**
 * `router([...routes])` and the route constructors `get`, `post`, `put`, `patch`, `del`, `head`,
 * `options` and `route`.
 *
 * @module
 */
import { createApp } from "../_app.ts";
import type { Context } from "../context.ts";
import { problem } from "../http/problem.ts";
import { sameOriginPath } from "../http/same_origin_path.ts";
import type { App, Handler, Params } from "../types.ts";
import { parsePattern, type PathParams } from "./pattern.ts";
import { RadixTree } from "./radix.ts";

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
  /** A HEAD answered by a GET handler: the body is dropped. */
  headFromGet: boolean;
  /** A static pattern without "%": a path equal to it needs no percent-decoding. */
  plain: boolean;
}

const ENCODED = /%2F|%25/gi;

// Percent-decodes each segment once, keeping "/" and "%" encoded so segment boundaries
// survive; throws URIError on a malformed escape or invalid UTF-8.
function normalize(path: string): string {
  const parts = path.split("/");
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i];
    if (part.includes("%")) {
      parts[i] = decodeURIComponent(part).replaceAll("%", "%25").replaceAll("/", "%2F");
    }
  }
  return parts.join("/");
}

function isPlain(pattern: string): boolean {
  return !pattern.includes("%") && parsePattern(pattern).every((s) => s.kind === "static");
}

function restore(value: string): string {
  return value.replace(ENCODED, (m) => m[1] === "2" && m[2] === "5" ? "%" : "/");
}

function dropBody(res: Response): Response {
  res.body?.cancel().catch(() => {});
  return new Response(null, res);
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
export function router(routes: readonly Route[], options: RouterOptions = {}): App {
  const tree = new RadixTree<Target>();
  for (const { method, pattern, handler } of routes) {
    if (typeof handler !== "function") {
      throw new TypeError(`Cannot add route "${method} ${pattern}": the handler is not a function`);
    }
    tree.add(method, pattern, { handler, headFromGet: false, plain: isPlain(pattern) });
  }
  for (const { method, pattern, handler } of routes) {
    if (method === "GET" && !tree.has("HEAD", pattern)) {
      tree.add("HEAD", pattern, { handler, headFromGet: true, plain: isPlain(pattern) });
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
          path = normalize(path);
        } catch {
          return problem({
            status: 400,
            detail: "The request path has a malformed percent-encoding",
          });
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
        params[names[i]] = encoded && value.includes("%") ? restore(value) : value;
      }
      ctx.params = params;
    }
    const { handler, headFromGet } = match.data;
    if (!headFromGet) return handler(ctx);
    const res = handler(ctx);
    return res instanceof Promise ? res.then(dropBody) : dropBody(res);
  });
}
