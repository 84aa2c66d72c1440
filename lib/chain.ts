/**
 * `chain([a, b, c], handler)`: the onion middleware pipeline, composed once.
 *
 * @module
 */
import { createApp, settle } from "./_app.ts";
import type { Context } from "./context.ts";
import type { App, Handler, Middleware, Next } from "./types.ts";

/**
 * Composes middleware around a handler: requests pass a, b, c, then the handler; responses
 * return through c, b, a. A middleware may answer without calling `next()`; calling it twice
 * rejects. A throw anywhere becomes a problem response that the outer middleware see as the
 * result of their `next()` (an `HttpError` keeps its status, anything else is a 500).
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
export function chain(middleware: readonly Middleware[], handler: Handler): App {
  // deno-lint-ignore no-explicit-any
  let run = handler as (ctx: Context<any>) => Response | Promise<Response>;
  for (let i = middleware.length - 1; i >= 0; i--) {
    const current = middleware[i];
    if (typeof current !== "function") {
      throw new TypeError(`Cannot compose the chain: middleware ${i} is not a function`);
    }
    const inner = run;
    run = function layer(ctx) {
      let called = false;
      const next: Next = () => {
        if (called) {
          return Promise.reject(new Error(`next() was called twice in "${current.name}"`));
        }
        called = true;
        return settle(ctx, inner);
      };
      return current(ctx, next);
    };
  }
  // Never decorate the caller's own function with fetch().
  return createApp(run === handler ? (ctx) => handler(ctx) : run);
}
