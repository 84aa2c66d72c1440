/**
 * The shapes every part of Weft agrees on: handlers, middleware and composed apps.
 *
 * @module
 */
import type { Context } from "./context.ts";
import type { Params } from "./_params.ts";
import type { ConnInfo } from "./server/types.ts";

export type { Params } from "./_params.ts";

/** A handler: takes the context, returns a response. */
export type Handler<P extends Params = Params> = (
  ctx: Context<P>,
) => Response | Promise<Response>;

/** Runs the rest of the chain; resolves with its response (errors become error responses). */
export type Next = () => Promise<Response>;

/** A middleware: may act before and after `next()`, or answer without calling it. */
export type Middleware = (ctx: Context, next: Next) => Response | Promise<Response>;

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
