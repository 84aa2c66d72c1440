/**
 * `router([...routes])` and the route constructors `get`, `post`, `put`, `patch`, `del`, `head`,
 * `options` and `route`.
 *
 * @module
 */
import { createApp, settle } from "../_app.ts";
import { AUTOMATIC } from "../_settled.ts";
import { compose } from "../chain.ts";
import type { Context } from "../context.ts";
import type { HttpError } from "../http/http_error.ts";
import { problem } from "../http/problem.ts";
import { withoutBody } from "../http/_ended_body.ts";
import { sameOriginPath } from "../http/same_origin_path.ts";
import type { App, AppHooks, Handler, Middleware, Params, VariablesOf } from "../types.ts";
import type { PathParams } from "./pattern.ts";
import { RadixTree } from "./radix.ts";
import type { RadixMatch } from "./_tree.ts";
import { restoreParam } from "./_path.ts";
import { SOURCE } from "./_table.ts";

/**
 * Type only: how a route was declared — its method, its full pattern and its middleware list
 * (the tuple of their types, a group's first). Typed clients (`weft/client`) read a route's
 * inputs and responses from it; nothing reads it at run time.
 */
export interface RouteShape {
  /** The HTTP method, upper case. */
  readonly method: string;
  /** The full pattern (with the prefixes of the groups around the route). */
  readonly pattern: string;
  /** The types of the route's middleware, outermost first. */
  readonly middleware: readonly unknown[];
}

/** A route definition made by {@linkcode route} or a method constructor. */
export interface Route<
  V extends object = Record<never, never>,
  T extends RouteShape = RouteShape,
> {
  /** The HTTP method, upper case. */
  readonly method: string;
  /** The route pattern. */
  readonly pattern: string;
  /** The handler, with the route's own middleware folded around it. */
  readonly handler: Handler<Params, V>;
  /** Type only: the route as declared (never set). */
  readonly "~route"?: T;
}

/**
 * Routes under a common prefix and middleware, made by {@linkcode group}; `V` names the
 * variables it needs from the groups around it.
 *
 * @example
 * ```ts
 * import { get, type Group, group } from "./router.ts";
 * import assert from "node:assert/strict";
 *
 * const admin: Group = group("/admin", [], [get("/", (ctx) => ctx.text("admin"))]);
 * assert.equal(admin.prefix, "/admin");
 * ```
 */
export interface Group<
  V extends object = Record<never, never>,
  T extends RouteShape = RouteShape,
> {
  /** The prefix of every pattern in the group (`""` for none). */
  readonly prefix: string;
  /** The group's middleware, outermost first. */
  // deno-lint-ignore no-explicit-any
  readonly middleware: readonly Middleware<any>[];
  /** The routes and groups inside. */
  // deno-lint-ignore no-explicit-any
  readonly routes: readonly (Route<any> | Group<any>)[];
  /** Type only: the variables the group's routes need from outside it. */
  readonly "~needs"?: (ctx: Context<Params, V>) => void;
  /** Type only: the routes inside, as declared, with their full patterns (never set). */
  readonly "~routes"?: T;
}

/**
 * Type only: the shapes of the routes in a list of routes and groups, as one union.
 *
 * @example
 * ```ts
 * import { get, post, type RoutesOf } from "./router.ts";
 *
 * const routes = [get("/a", (ctx) => ctx.text("a")), post("/b", (ctx) => ctx.text("b"))];
 * const methods: RoutesOf<typeof routes>["method"][] = ["GET", "POST"];
 * ```
 */
export type RoutesOf<R extends readonly unknown[]> = R[number] extends infer I
  ? I extends { readonly prefix: string; readonly "~routes"?: infer T } ? Extract<T, RouteShape>
  : I extends { readonly "~route"?: infer T } ? Extract<T, RouteShape>
  : never
  : never;

/**
 * Type only: a route pattern inside a group's prefix, as `router()` flattens it (a route `"/"`
 * is the prefix itself).
 *
 * @example
 * ```ts
 * import type { JoinedPattern } from "./router.ts";
 *
 * const pattern: JoinedPattern<"/api", "/notes/:id"> = "/api/notes/:id";
 * const root: JoinedPattern<"/api", "/"> = "/api";
 * ```
 */
export type JoinedPattern<Prefix extends string, P extends string> = Prefix extends "" ? P
  : P extends "/" ? Prefix
  : `${Prefix}${P}`;

/**
 * Type only: route shapes inside a group: the prefix joined to each pattern, the group's
 * middleware before each route's own.
 */
export type PrefixedRoutes<Prefix extends string, M extends readonly unknown[], T> = T extends
  RouteShape ? {
    readonly method: T["method"];
    readonly pattern: JoinedPattern<Prefix, T["pattern"]>;
    readonly middleware: readonly [...M, ...T["middleware"]];
  }
  : never;

/** Options of {@linkcode router}: routing policies and the app's hooks. */
export interface RouterOptions extends AppHooks {
  /**
   * `"strict"`: `/a/` and `/a` are different paths. `"redirect"`: a miss whose other form (with
   * or without the trailing slash) matches is answered with a 308 to that form, inside the
   * middleware of that form's groups (a `cors()` there decorates it).
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
 * A route constructor (`get`, `post`, …): `(pattern, handler)`, or `(pattern, middleware,
 * handler)` with middleware that run for this route only and whose variables the handler sees.
 * `ctx.params` is typed from the pattern.
 *
 * @example
 * ```ts
 * import { post, type RouteConstructor } from "./router.ts";
 * import assert from "node:assert/strict";
 *
 * const constructor: RouteConstructor = post;
 * const route = constructor("/notes/:id", (ctx) => ctx.text(ctx.params.id));
 * assert.equal(route.method, "POST");
 * ```
 */
export interface RouteConstructor<Method extends string = string> {
  /**
   * @param pattern A pattern such as `"/users/:id"` or `"/files/*path"`.
   * @param handler The handler.
   */
  <P extends string, V extends object = Record<never, never>>(
    pattern: P,
    handler: Handler<PathParams<P>, V>,
  ): Route<V, { readonly method: Method; readonly pattern: P; readonly middleware: readonly [] }>;
  /**
   * @param pattern A pattern such as `"/users/:id"` or `"/files/*path"`.
   * @param middleware Middleware for this route only, outermost first.
   * @param handler The handler; it sees the middleware's variables.
   */
  <
    P extends string,
    // deno-lint-ignore no-explicit-any
    const M extends readonly Middleware<any>[],
    V extends object = Record<never, never>,
  >(
    pattern: P,
    middleware: M,
    handler: Handler<PathParams<P>, V & VariablesOf<M>>,
  ): Route<V, { readonly method: Method; readonly pattern: P; readonly middleware: M }>;
}

/**
 * Defines a route for any method.
 *
 * @param method The HTTP method (case-insensitive; stored upper case).
 * @param pattern A pattern such as `"/users/:id"` or `"/files/*path"`.
 * @param middleware Middleware for this route only (optional).
 * @param handler The handler; `ctx.params` is typed from the pattern.
 * @returns The route definition.
 *
 * @example
 * ```ts
 * import { route, router } from "./router.ts";
 * import assert from "node:assert/strict";
 *
 * const app = router([route("PROPFIND", "/dav/*path", (ctx) => ctx.text(ctx.params.path))]);
 * const res = await app.fetch(new Request("http://localhost/dav/a/b", { method: "PROPFIND" }));
 * assert.equal(await res.text(), "a/b");
 * ```
 */
export function route<
  const Method extends string,
  P extends string,
  V extends object = Record<never, never>,
>(
  method: Method,
  pattern: P,
  handler: Handler<PathParams<P>, V>,
): Route<
  V,
  { readonly method: Uppercase<Method>; readonly pattern: P; readonly middleware: readonly [] }
>;
/**
 * Defines a route for any method, with middleware for this route only.
 *
 * @param method The HTTP method (case-insensitive; stored upper case).
 * @param pattern A pattern such as `"/users/:id"` or `"/files/*path"`.
 * @param middleware Middleware for this route only, outermost first.
 * @param handler The handler; it sees the middleware's variables.
 * @returns The route definition.
 */
export function route<
  const Method extends string,
  P extends string,
  // deno-lint-ignore no-explicit-any
  const M extends readonly Middleware<any>[],
  V extends object = Record<never, never>,
>(
  method: Method,
  pattern: P,
  middleware: M,
  handler: Handler<PathParams<P>, V & VariablesOf<M>>,
): Route<V, { readonly method: Uppercase<Method>; readonly pattern: P; readonly middleware: M }>;
export function route(
  method: string,
  pattern: string,
  // deno-lint-ignore no-explicit-any
  middleware: readonly Middleware<any>[] | Handler<any, any>,
  // deno-lint-ignore no-explicit-any
  handler?: Handler<any, any>,
  // deno-lint-ignore no-explicit-any
): Route<any> {
  return {
    method: method.toUpperCase(),
    pattern,
    handler: handler === undefined
      ? middleware as Handler
      : compose(middleware as readonly Middleware[], handler),
    [SOURCE]: handler && middleware,
  } as Route;
}

function method<Method extends string>(name: Method): RouteConstructor<Method> {
  // deno-lint-ignore no-explicit-any
  return ((pattern: string, middleware: any, handler?: any) =>
    route(name, pattern, middleware, handler)) as RouteConstructor<Method>;
}

/**
 * Defines a GET route (HEAD is answered by it too, without the body).
 *
 * @example
 * ```ts
 * import { get, router } from "./router.ts";
 * import type { Middleware } from "../types.ts";
 * import assert from "node:assert/strict";
 *
 * const locale: Middleware<{ locale: string }> = (ctx, next) => {
 *   ctx.var.locale = ctx.header("accept-language") ?? "en";
 *   return next();
 * };
 * const app = router([
 *   get("/notes/:id", [locale], (ctx) => ctx.json({ id: ctx.params.id, locale: ctx.var.locale })),
 * ]);
 * const res = await app.fetch(new Request("http://localhost/notes/7"));
 * assert.deepEqual(await res.json(), { id: "7", locale: "en" });
 * ```
 */
export const get: RouteConstructor<"GET"> = /* @__PURE__ */ method("GET");
/** Defines a POST route; see {@linkcode get} for the forms. */
export const post: RouteConstructor<"POST"> = /* @__PURE__ */ method("POST");
/** Defines a PUT route; see {@linkcode get} for the forms. */
export const put: RouteConstructor<"PUT"> = /* @__PURE__ */ method("PUT");
/** Defines a PATCH route; see {@linkcode get} for the forms. */
export const patch: RouteConstructor<"PATCH"> = /* @__PURE__ */ method("PATCH");
/** Defines a DELETE route (`delete` is a reserved word); see {@linkcode get} for the forms. */
export const del: RouteConstructor<"DELETE"> = /* @__PURE__ */ method("DELETE");
/** Defines a HEAD route (overrides the automatic HEAD of a GET route). */
export const head: RouteConstructor<"HEAD"> = /* @__PURE__ */ method("HEAD");
/** Defines an OPTIONS route (overrides the automatic 204 with `Allow`). */
export const options: RouteConstructor<"OPTIONS"> = /* @__PURE__ */ method("OPTIONS");

/**
 * Groups routes under a path prefix and middleware. Groups nest, and `router()` flattens them
 * into its one tree when it is built: a grouped route is matched, prioritised and checked for
 * conflicts exactly like the same route written flat with the full pattern, and its handler
 * runs behind the middleware of every group around it. A group's middleware also wrap the
 * 405 and automatic OPTIONS answers for its paths (so `cors()` in a group decorates
 * preflights); a 404 runs none.
 *
 * @param prefix A path such as `"/api"` (no trailing slash), or `""`. A route `"/"` inside is
 * the prefix itself.
 * @param middleware The group's middleware, outermost first; the routes see their variables.
 * @param routes Routes and groups.
 * @returns The group, for `router()` or another group.
 *
 * @example
 * ```ts
 * import { get, group, router } from "./router.ts";
 * import type { Middleware } from "../types.ts";
 * import assert from "node:assert/strict";
 *
 * const user: Middleware<{ user: string }> = (ctx, next) => {
 *   ctx.var.user = "ada";
 *   return next();
 * };
 * const app = router([
 *   get("/", (ctx) => ctx.text("home")),
 *   group("/api", [user], [
 *     get("/me", (ctx) => ctx.json({ user: ctx.var.user })),
 *     group("/admin", [], [get("/", (ctx) => ctx.text(`admin ${ctx.var.user}`))]),
 *   ]),
 * ]);
 * const me = await app.fetch(new Request("http://localhost/api/me"));
 * assert.deepEqual(await me.json(), { user: "ada" });
 * const admin = await app.fetch(new Request("http://localhost/api/admin"));
 * assert.equal(await admin.text(), "admin ada");
 * ```
 */
export function group<
  // deno-lint-ignore no-explicit-any
  const M extends readonly Middleware<any>[],
  V extends object = Record<never, never>,
  const Prefix extends string = string,
  const R extends readonly (
    | Route<NoInfer<V> & VariablesOf<M>, RouteShape>
    | Group<NoInfer<V> & VariablesOf<M>, RouteShape>
  )[] = readonly (Route<V & VariablesOf<M>> | Group<V & VariablesOf<M>>)[],
>(
  prefix: Prefix,
  middleware: M,
  routes: R,
): Group<V, PrefixedRoutes<Prefix, M, RoutesOf<R>>> {
  if (
    typeof prefix !== "string" || (prefix !== "" && (prefix[0] !== "/" || prefix.endsWith("/")))
  ) {
    throw new TypeError(
      `Cannot build the group "${prefix}": a prefix starts with "/" and does not end with one`,
    );
  }
  return { prefix, middleware, routes };
}

interface Target {
  handler: Handler;
  /** A HEAD answered by a GET handler: the body is dropped. */
  headFromGet: boolean;
  /** A static pattern without "%": a path equal to it needs no percent-decoding. */
  plain: boolean;
  /** The 405 and automatic OPTIONS answer behind the route's group middleware, if any. */
  refuse?: Handler;
}

// deno-lint-ignore no-explicit-any
type Item = Route<any> | Group<any>;
// deno-lint-ignore no-explicit-any
type AnyMiddleware = Middleware<any>;

/**
 * Groups flattened: each route with its full pattern and its groups' middleware, outermost
 * first. Internal (no export of mod.ts); bench/router_bench.ts builds its grouped trees with it.
 */
export function flatten(
  items: readonly Item[],
  prefix: string,
  middleware: readonly AnyMiddleware[],
  out: [Route, readonly AnyMiddleware[]][],
): [Route, readonly AnyMiddleware[]][] {
  for (const item of items) {
    if ("prefix" in item) {
      flatten(item.routes, prefix + item.prefix, [...middleware, ...item.middleware], out);
    } else {
      const pattern = prefix !== "" && item.pattern === "/" ? prefix : prefix + item.pattern;
      out.push([{ method: item.method, pattern, handler: item.handler as Handler }, middleware]);
    }
  }
  return out;
}

// A static pattern (no segment opens with ":" or "*") without "%".
function isPlain(pattern: string): boolean {
  return !/%|\/[:*]/.test(pattern);
}

// Sets the params (decoded once; `encoded`: the path had escapes) and the route of a match.
function enter(ctx: Context, match: RadixMatch<Target>, encoded: boolean): void {
  const { names, values } = match;
  if (names.length > 0) {
    const params: Params = {};
    for (let i = 0; i < names.length; i++) {
      const value = values[i];
      params[names[i]] = encoded ? restoreParam(value) : value;
    }
    ctx.params = params;
  }
  ctx.route = match.pattern;
}

// The path with its trailing slash removed, or with one added.
function otherForm(path: string): string {
  return path.endsWith("/") ? path.slice(0, -1) : path + "/";
}

/**
 * Builds a router: a radix tree over the routes, with built-in 404, 405 (with `Allow`),
 * automatic HEAD for GET routes and automatic OPTIONS (204 with `Allow`). Priority is by
 * specificity (static, then `:param`, then `*wildcard`), never by registration order.
 * Conflicting routes throw here, not at request time. Groups are flattened into the same tree.
 *
 * @param routes Route definitions from `get()`, `post()`, … or `route()`, and `group()`s.
 * @param options The trailing-slash policy, whether to compile the routes, and the app's
 * hooks (`notFound`, `onError`).
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
export function router<
  const R extends readonly (
    | Route<Record<never, never>, RouteShape>
    | Group<Record<never, never>, RouteShape>
  )[],
>(
  routes: R,
  options?: RouterOptions,
): App & { readonly "~routes"?: RoutesOf<R> };
export function router(routes: readonly (Route | Group)[], options: RouterOptions = {}): App {
  const tree = new RadixTree<Target>();
  const gets = new Map<string, Target>();
  for (const [{ method, pattern, handler }, middleware] of flatten(routes, "", [], [])) {
    if (typeof handler !== "function") {
      throw new TypeError(`Cannot add route "${method} ${pattern}": the handler is not a function`);
    }
    const target: Target = {
      handler: compose(middleware, handler), // the handler itself without middleware
      headFromGet: false,
      plain: isPlain(pattern),
      refuse: middleware.length > 0 ? compose(middleware, refuse) : undefined,
    };
    tree.add(method, pattern, target);
    if (method === "GET") gets.set(pattern, target);
  }
  for (const [pattern, target] of gets) {
    if (!tree.has("HEAD", pattern)) tree.add("HEAD", pattern, { ...target, headFromGet: true });
  }
  const redirect = options.trailingSlash === "redirect";
  const notFound = options.notFound;
  const find = options.compile === false ? tree.find.bind(tree) : tree.compile();

  // 405 with Allow, or the automatic OPTIONS answer, for a path that has routes; for one whose
  // other form has them (trailingSlash: "redirect"), a 308 to that form.
  function refuse(ctx: Context): Response {
    const allowed = tree.methodsFor(ctx.decodedPath);
    if (allowed.length === 0) {
      const url = ctx.req.url;
      const query = url.indexOf("?");
      // The path as sent may start with "/\" or "//", which a browser would take for a host.
      const location = sameOriginPath(otherForm(ctx.path));
      return new Response(null, {
        status: 308,
        headers: { location: query === -1 ? location : location + url.slice(query) },
      });
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

  function miss(ctx: Context, path: string, encoded: boolean): Response | Promise<Response> {
    let allowed = tree.methodsFor(path);
    // with trailingSlash: "redirect", a path whose other form has routes is answered with a 308
    // to that form (by refuse()), inside the middleware of that form's groups
    if (allowed.length === 0 && redirect && path !== "/") {
      allowed = tree.methodsFor(path = otherForm(path));
    }
    if (allowed.length === 0) {
      if (notFound !== undefined) return notFound(ctx);
      return problem({ status: 404, detail: `No route matches ${ctx.path}` });
    }
    // A grouped path: its group middleware (cors(), validate()…) wrap the answer, and see the
    // params and the route as they would for the route's own method: for a preflight, the
    // method it asks about; otherwise the first allowed method whose route is in a group (in
    // whatever order the routes were registered).
    let match;
    for (const method of [ctx.req.headers.get("access-control-request-method"), ...allowed]) {
      if (!allowed.includes(method!)) continue;
      match = find(method!, path)!;
      if (match.data.refuse !== undefined) break;
    }
    const grouped = match!.data.refuse;
    if (grouped === undefined) return refuse(ctx);
    enter(ctx, match!, encoded);
    (ctx as { [AUTOMATIC]?: true })[AUTOMATIC] = true;
    return grouped(ctx);
  }

  const app = createApp(function router(ctx: Context): Response | Promise<Response> {
    const method = ctx.req.method;
    let path = ctx.path;
    let match = find(method, path);
    let encoded = false;
    // A static pattern without "%" that equals the path as sent proves the path has no escape
    // to decode; anything else is matched again on the decoded path when it has one.
    if (match === undefined || !match.data.plain) {
      encoded = path.includes("%");
      // Escapes decoded and dot segments resolved, as ctx.decodedPath holds it (a guard on it
      // sees the path matched). (A search for one character is V8's fast one: most paths have
      // no "." at all.)
      if (encoded || path.includes(".") && path.includes("/.")) {
        try {
          path = ctx.decodedPath;
        } catch (error) {
          return (error as HttpError).toResponse(); // a malformed escape: 400
        }
        match = find(method, path);
      }
      if (match === undefined) return miss(ctx, path, encoded);
    }
    enter(ctx, match, encoded);
    const { handler, headFromGet } = match.data;
    if (!headFromGet) return handler(ctx);
    return settle(ctx, handler).then(withoutBody);
  }, options);
  (app as App & { [SOURCE]: typeof routes })[SOURCE] = routes;
  return app;
}
