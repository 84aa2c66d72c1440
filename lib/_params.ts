// Path params and the app-wide variables, the types that both the Context (context.ts) and the
// handler shapes (types.ts, which exports them) need, so that types.ts imports context.ts and
// not the reverse.

/** Path params: names from the route pattern to decoded values. */
export type Params = Record<string, string>;

/**
 * Variables that an app's own middleware set on every request, declared once for the whole
 * app by augmenting this interface; `ctx.var` and `ctx.get()` then know them everywhere.
 * Variables that only some routes have are declared by their middleware instead
 * (`Middleware<{ user: User }>`).
 *
 * @example Declaring an app-wide variable (in the app's own module, at top level)
 * ```ts ignore
 * import { chain, type Middleware } from "weft";
 *
 * declare module "weft" {
 *   interface Variables {
 *     requestId: string;
 *   }
 * }
 *
 * const requestId: Middleware = (ctx, next) => {
 *   ctx.var.requestId = crypto.randomUUID();
 *   return next();
 * };
 * export const app = chain([requestId], (ctx) => ctx.text(ctx.var.requestId));
 * ```
 */
// deno-lint-ignore no-empty-interface
export interface Variables {}
