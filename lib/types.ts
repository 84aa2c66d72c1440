/**
 * The shapes every part of Weft agrees on: handlers, middleware and composed apps.
 *
 * @module
 */
import type { Context } from "./context.ts";
import type { Params } from "./_params.ts";
import type { ConnInfo } from "./server/types.ts";

export type { Params, Variables } from "./_params.ts";

/**
 * A handler: takes the context, returns a response. `V` names the variables that the
 * middleware before it set (`ctx.var`).
 */
export type Handler<P extends Params = Params, V extends object = Record<never, never>> = (
  ctx: Context<P, V>,
) => Response | Promise<Response>;

/** Runs the rest of the chain; resolves with its response (errors become error responses). */
export type Next = () => Promise<Response>;

/**
 * A middleware: may act before and after `next()`, or answer without calling it. `V` names the
 * variables it sets on `ctx.var` for the middleware and handler after it:
 * `Middleware<{ user: User }>` gives a handler behind it `ctx.var.user: User`.
 */
export type Middleware<V extends object = Record<never, never>> = (
  ctx: Context<Params, V>,
  next: Next,
) => Response | Promise<Response>;

/**
 * The variables a list of middleware sets, all together: `VariablesOf<[Middleware<{ a: 1 }>,
 * Middleware<{ b: 2 }>]>` is `{ a: 1 } & { b: 2 }`. An untyped inline middleware (its `ctx`
 * typed from `Middleware<any>`) adds none.
 *
 * @example
 * ```ts
 * import type { Middleware, VariablesOf } from "../mod.ts";
 *
 * type Both = VariablesOf<[Middleware<{ a: number }>, Middleware<{ b: string }>]>;
 * const vars: Both = { a: 1, b: "two" };
 * ```
 */
// deno-lint-ignore no-explicit-any
export type VariablesOf<M extends readonly Middleware<any>[]> = (
  M[number] extends infer E
    ? E extends Middleware<infer V> ? unknown extends V ? never : (vars: V) => void : never
    : never
) extends (vars: infer I) => void ? I & Record<never, never>
  : Record<never, never>;

/**
 * App-wide hooks, given to `router(routes, { notFound, onError })`. A `chain()` around that
 * router adopts them, so they cover the whole app: its middleware, its routes and its
 * WebSocket handlers.
 *
 * @example
 * ```ts
 * import { chain, get, type Middleware, router } from "../mod.ts";
 * import assert from "node:assert/strict";
 *
 * const errors: unknown[] = [];
 * const failing: Middleware = () => {
 *   throw new Error("outside the router");
 * };
 * const app = chain([failing], router([get("/", (ctx) => ctx.text("home"))], {
 *   notFound: (ctx) => ctx.text(`nothing at ${ctx.path}`, { status: 404 }),
 *   onError: (error) => void errors.push(error),
 * }));
 * const res = await app.fetch(new Request("http://localhost/"));
 * assert.equal(res.status, 500);
 * assert.equal((errors[0] as Error).message, "outside the router");
 * ```
 */
export interface AppHooks {
  /**
   * Answers a request that no route matches (instead of the 404 problem). Requests that match
   * a path but not its method still get 405 with `Allow`.
   */
  notFound?: (ctx: Context) => Response | Promise<Response>;
  /**
   * Receives every error that becomes a 500 (a throw that is not an `HttpError`, a handler
   * that returns no Response, a failing WebSocket handler without its own `onError`) instead
   * of console.error. It may return a Response, synchronously, to answer with instead of the
   * 500 problem; errors after the response has gone (WebSocket handlers) only reach it. When
   * it throws, or returns a promise that rejects, the error goes to console.error after all.
   */
  onError?: (error: unknown, ctx: Context) => Response | void;
}

/**
 * A composed handler (a router or a chain). It is a handler, so it nests in other chains and
 * routes, and it has `fetch`, so `Deno.serve`, `deno serve` and tests can call it directly.
 */
export interface App {
  /** Runs the app as a handler inside another chain or router. */
  (ctx: Context): Response | Promise<Response>;
  /** Answers a request; never rejects (errors become problem responses). */
  fetch(request: Request, info?: ConnInfo): Promise<Response>;
}
