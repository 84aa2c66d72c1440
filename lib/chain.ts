/**
 * `chain([a, b, c], handler)`: the onion middleware pipeline, composed once.
 *
 * @module
 */
import { createApp, type InternalApp, settle } from "./_app.ts";
import type { Context } from "./context.ts";
import type { App, Handler, Middleware, Next, Params, VariablesOf } from "./types.ts";
import { HOOKS } from "./_settled.ts";

/**
 * Composes middleware around a handler: requests pass a, b, c, then the handler; responses
 * return through c, b, a. A middleware may answer without calling `next()`; calling it twice
 * rejects. A throw anywhere becomes a problem response that the outer middleware see as the
 * result of their `next()` (an `HttpError` keeps its status, anything else is a 500). The
 * handler sees the variables the middleware declare (`ctx.var`); when it is a `router()` with
 * hooks, the chain adopts them (`onError` then covers the middleware too).
 *
 * @param middleware The middleware, outermost first.
 * @param handler The innermost handler (often a `router()`).
 * @returns An App: a handler with a `fetch` method.
 *
 * @example
 * ```ts
 * import { chain } from "./chain.ts";
 * import assert from "node:assert/strict";
 *
 * const order: string[] = [];
 * const app = chain([
 *   async (_ctx, next) => { order.push("a in"); const res = await next(); order.push("a out"); return res; },
 *   async (_ctx, next) => { order.push("b in"); const res = await next(); order.push("b out"); return res; },
 * ], () => { order.push("handler"); return new Response("ok"); });
 *
 * await app.fetch(new Request("http://localhost/"));
 * assert.deepEqual(order, ["a in", "b in", "handler", "b out", "a out"]);
 * ```
 */
export function chain<
  // deno-lint-ignore no-explicit-any
  const M extends readonly Middleware<any>[],
  H extends Handler<Params, VariablesOf<M>> = Handler<Params, VariablesOf<M>>,
>(
  middleware: M,
  handler: H,
): App & Pick<H, "~routes" & keyof H>;
// deno-lint-ignore no-explicit-any
export function chain(middleware: readonly Middleware<any>[], handler: Handler<any, any>): App {
  const run = compose(middleware, handler);
  // Never decorate the caller's own function with fetch().
  return createApp(
    run === handler ? (ctx) => run(ctx) : run,
    (handler as Partial<InternalApp>)[HOOKS],
  );
}

/**
 * Marks a middleware that only calls `next()` (a `describe()` that validates nothing): compose()
 * leaves it out, so it costs no layer per request.
 */
export const PASS: unique symbol = /* @__PURE__ */ Symbol();

/** Folds middleware around a handler, once (chain(), per-route middleware, groups). */
// deno-lint-ignore no-explicit-any
export function compose(middleware: readonly Middleware<any>[], handler: Handler<any, any>): Run {
  let run = handler as Run;
  for (let i = middleware.length - 1; i >= 0; i--) {
    const current = middleware[i];
    if (typeof current !== "function") {
      throw new TypeError(`Cannot compose the chain: middleware ${i} is not a function`);
    }
    if (PASS in current) continue;
    const inner = run;
    run = function layer(ctx) {
      let called = false;
      const next: Next = () => {
        if (called) {
          const twice = Promise.reject(new Error(`next() was called twice in "${current.name}"`));
          // The caller may ignore it: an unhandled rejection would end the process (Deno).
          twice.catch(() => {});
          return twice;
        }
        called = true;
        return settle(ctx, inner);
      };
      return current(ctx, next);
    };
  }
  return run;
}

// deno-lint-ignore no-explicit-any
type Run = (ctx: Context<any, any>) => Response | Promise<Response>;
