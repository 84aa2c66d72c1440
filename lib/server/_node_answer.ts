// Weft apps on Node answer through a callback. The server writes a response from a callback
// anyway: given the promise of an app's entry point, it would add a then() of its own, and the
// entry point's promise would fulfil with the response, which costs a lookup of a `then` on it.
// Handing the response straight to the server's callback saves both (bench/instructions.ts
// --node, kinds weft-await:2 and weft); the conformance suite runs with and without it.
import { checked, type InternalApp, outgoing, recover } from "../_app.ts";
import { Context } from "../context.ts";
import { problem } from "../http/problem.ts";
import { HOOKS } from "../_settled.ts";
import type { AppHooks } from "../types.ts";
import type { ConnInfo } from "./types.ts";

/**
 * Answers a request: with a response at once, or `undefined`, having arranged to call `done`
 * once with the response. Never rejects or throws for what the app did.
 */
export type Answer = (
  request: Request,
  info: ConnInfo,
  done: (response: Response) => void,
) => Response | undefined;

/** The callback entry point of a Weft app, which answers as its `fetch()` does. */
export function answerer(app: InternalApp): Answer {
  const hooks = app[HOOKS];
  return (request, info, done) => {
    const ctx = new Context(request, info);
    if (hooks !== undefined) (ctx as Context & { [HOOKS]?: AppHooks })[HOOKS] = hooks;
    // As the app's own entry point (createApp() in lib/_app.ts), which keeps its copy of these
    // lines out of the Deno bundle's way: it has no use for this one.
    let res: Response | Promise<Response>;
    try {
      res = app(ctx);
    } catch (error) {
      return outgoing(ctx, recover(ctx, error));
    }
    if (!(res instanceof Promise)) return outgoing(ctx, checked(ctx, res));
    res.then(
      (value) => done(answered(ctx, value, checked)),
      (error) => done(answered(ctx, error, recover)),
    );
  };
}

// The response for what the app fulfilled with, or the error it failed with. A throw here
// would leave the request unanswered: it becomes the 500 that serve() gives any failure of the
// app's promise.
function answered(
  ctx: Context,
  value: unknown,
  settle: (ctx: Context, value: unknown) => Response,
): Response {
  try {
    return outgoing(ctx, settle(ctx, value));
  } catch {
    return problem({ status: 500 });
  }
}
