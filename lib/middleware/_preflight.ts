// CORS preflights and the middleware that check requests: a preflight (Fetch standard §4.8)
// carries none of the request's credentials, headers or body, so a check of those that refuses
// it makes every cross-origin call fail. auth() lets it go on and takes back only an answer
// without content (passPreflight); basicAuth(), validate() and describe() let it go on only to
// the router's own answer (automaticPreflight), so that nothing else runs for it.
import type { Context } from "../context.ts";
import { AUTOMATIC } from "../_settled.ts";

/**
 * Whether the request is a CORS preflight: `OPTIONS` with `Origin` and
 * `Access-Control-Request-Method`.
 */
export function isPreflight(ctx: Context): boolean {
  return ctx.req.method === "OPTIONS" && ctx.header("origin") !== null &&
    ctx.header("access-control-request-method") !== null;
}

/**
 * Lets a preflight that a check refused go on to what comes next (the router's automatic 204
 * with `Allow`, or a preflight handler's own empty answer). Anything else that answers it (an
 * `options()` route, a handler of every method) ran without what the check would have given
 * it, so its answer is dropped and `refusal` answers instead.
 *
 * @param next What comes after the check.
 * @param refusal The check's own answer (a response, or a throw of its error).
 * @returns The answer without content, or the refusal.
 */
export async function passPreflight(
  next: () => Promise<Response>,
  refusal: () => Response,
): Promise<Response> {
  const res = await next();
  if (res.body === null && res.status < 300) return res;
  res.body?.cancel().catch(() => {});
  return refusal();
}

/**
 * Whether the request is a CORS preflight that the router answers itself, with its automatic
 * 204 and `Allow`, after the middleware of the path's groups: a check of what only the real
 * request carries lets such a preflight go on. Anything else (an `options()` route, a handler of
 * every method, a chain in front of the router, which runs before the router knows) would run
 * without what the check gives, so the check refuses it as it refuses any request.
 */
export function automaticPreflight(ctx: Context): boolean {
  return isPreflight(ctx) && (ctx as { [AUTOMATIC]?: true })[AUTOMATIC] === true;
}
