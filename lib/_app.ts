// Turning a composed handler into an App: the fetch entry point, error recovery, the check
// that every layer answers with a Response, and the inheritance of ctx.res headers. Shared by
// chain() and router().
import { Context } from "./context.ts";
import { withoutBody } from "./http/_ended_body.ts";
import { describeError, escapeLog } from "./http/_log_escape.ts";
import { HttpError } from "./http/http_error.ts";
import { problem } from "./http/problem.ts";
import type { App, AppHooks } from "./types.ts";
import type { ConnInfo } from "./server/types.ts";
import { isResponse } from "./server/deno.ts";
import { BUILT, HOOKS, ON_ERROR, ON_VALUE, READING, SAFE as SAFE_KEY } from "./_settled.ts";
import { type BoundedBody, releaseAfter } from "./_bounded_request.ts";
import { appendVary, editHeaders } from "./middleware/_headers.ts";

type Run = (ctx: Context) => Response | Promise<Response>;

// The Context with the chain's own fields, which its public type leaves out.
type Settled = Context & {
  [SAFE_KEY]: Promise<Response> | undefined;
  [HOOKS]: AppHooks | undefined;
  [BUILT]: Response | undefined;
  [ON_VALUE]: ((value: unknown) => Response) | undefined;
  [ON_ERROR]: ((error: unknown) => Response) | undefined;
  [READING]: BoundedBody | undefined;
};

// The method, the path and the error's message come from the request: escaped, so that a CR or
// LF in them cannot write a line of its own.
function defaultReporter(error: unknown, ctx: Context): void {
  const line = `weft: ${escapeLog(ctx.req.method)} ${escapeLog(ctx.path)} failed: ` +
    describeError(error);
  console.error(line);
}

/**
 * Records an error on the context and hands it to the app's `onError` hook, or to
 * console.error without one or when the hook fails; returns the response the hook chose, if
 * any (it never throws).
 */
export function report(ctx: Context, error: unknown): Response | undefined {
  ctx.error = error;
  const onError = (ctx as Settled)[HOOKS]?.onError;
  try {
    if (onError !== undefined) {
      try {
        const res: unknown = onError(error, ctx);
        if (isResponse(res)) return res;
        // A promise is not waited for; if it fails, the error is written as without the hook.
        if (res instanceof Promise) res.catch(() => defaultReporter(error, ctx));
        return;
      } catch {
        // A failing hook must not turn one error into two, nor lose the first: written below.
      }
    }
    defaultReporter(error, ctx);
  } catch {
    // console.error itself failed: nothing is left to tell.
  }
}

/** Turns a thrown value into a response: an HttpError's own status, else a 500 without details. */
export function recover(ctx: Context, error: unknown): Response {
  if (error instanceof HttpError) return error.toResponse();
  return report(ctx, error) ?? problem({ status: 500 });
}

// What a layer returned, named for the error message: "undefined", "null", "a string", "an
// object (Object)", "a promise"…
function describe(value: unknown): string {
  if (value === undefined || value === null) return String(value);
  if (typeof value !== "object") return `a ${typeof value}`;
  const name = (value as { constructor?: { name?: unknown } }).constructor?.name;
  return typeof name === "string" && name !== "" ? `an object (${name})` : "an object";
}

/**
 * The response a layer answered with, or a 500 (reported, naming the method, the route and
 * what came back) when it answered with something else: a handler written in JavaScript, or
 * typed `any`, may return `undefined` or a plain object, and the middleware around it would
 * otherwise fail on it and be blamed.
 */
export function checked(ctx: Context, value: unknown): Response {
  if (isResponse(value)) return value;
  const route = ctx.route ?? ctx.path;
  return recover(
    ctx,
    new TypeError(
      `Cannot answer ${ctx.req.method} ${route}: a handler or middleware returned ${
        describe(value)
      } instead of a Response`,
    ),
  );
}

// Imported bindings are read through a cell on every use; module constants are folded into the
// compiled code.
const SAFE: typeof SAFE_KEY = SAFE_KEY;

// ctx[SAFE] is the last promise settle() returned for the request. Such promises never reject
// and always fulfil with a Response, so when a middleware hands back exactly the promise its
// next() gave it (`(ctx, next) => next()`), the layer above can pass it on instead of chaining
// another then(): one promise per request instead of one per layer.
function resolved(ctx: Settled, res: Response): Promise<Response> {
  // Resolving a promise with an object looks up its `then`. Reading `then` first lets V8's
  // optimizing compiler learn the response's map here, prove from it that there is no `then`,
  // and fulfil the promise directly (the Deno load benchmark's "two middleware" case).
  void (res as { then?: unknown }).then;
  return ctx[SAFE] = Promise.resolve(res);
}

/** Runs `run` and resolves with a response whatever it throws or returns. */
export function settle(context: Context, run: Run): Promise<Response> {
  const ctx = context as Settled;
  let res: Response | Promise<Response>;
  try {
    res = run(ctx);
  } catch (error) {
    return resolved(ctx, recover(ctx, error));
  }
  if (!(res instanceof Promise)) return resolved(ctx, checked(ctx, res));
  if (res === ctx[SAFE]) return res;
  // The callbacks are the request's own, made at its first asynchronous layer: an async
  // middleware in front of another then costs a promise, not a promise and two closures.
  return ctx[SAFE] = res.then(
    ctx[ON_VALUE] ??= (value) => checked(ctx, value),
    ctx[ON_ERROR] ??= (error) => recover(ctx, error),
  );
}

// The response as it leaves the app. Headers set with ctx.setHeader() reach it even when the
// handler built it itself (what the response already has wins; Set-Cookie and Vary are merged),
// and a request body that a reader began and left unread is released once it has gone out.
export function outgoing(ctx: Context, res: Response): Response {
  // A response built by ctx.json() and friends carries ctx.res already, unless ctx.res was
  // reached after it was built (Context's `res` getter forgets the built response then).
  if (ctx.hasResponseState && res !== (ctx as Settled)[BUILT]) {
    const own = ctx.res.headers;
    res = editHeaders(res, (headers) => applyHeaders(own, headers));
  }
  const reading = (ctx as Settled)[READING];
  return reading === undefined || !reading.unfinished ? res : releaseAfter(res, reading);
}

function applyHeaders(own: Headers, headers: Headers): void {
  for (const cookie of own.getSetCookie()) {
    if (!headers.getSetCookie().includes(cookie)) headers.append("set-cookie", cookie);
  }
  for (const [name, value] of own) {
    if (name === "set-cookie") continue;
    if (name === "vary") appendVary(headers, value);
    else if (!headers.has(name)) headers.set(name, value);
  }
}

/** The symbol under which an App keeps its non-promise entry point (used by serve()). */
export const RESPOND: unique symbol = Symbol("weft.respond");

/** An App with its internal entry point. */
export type InternalApp = App & {
  [RESPOND]: (request: Request, info?: ConnInfo) => Response | Promise<Response>;
  [HOOKS]: AppHooks | undefined;
};

/**
 * Gives a composed handler its `fetch` entry point. The server entry point answers
 * synchronously only when the app itself did (a router or handler without middleware): once a
 * middleware has a promise of the response in hand, it may still change the response in a
 * then() callback, and a server that sent a response it got synchronously would miss that
 * change while app.fetch() (which its caller awaits) would not.
 */
export function createApp(run: Run, hooks?: AppHooks): App {
  // lib/server/_node_answer.ts answers as this does, through a callback instead of a promise.
  function respond(request: Request, info?: ConnInfo): Response | Promise<Response> {
    const ctx = new Context(request, info);
    if (hooks !== undefined) (ctx as Settled)[HOOKS] = hooks;
    let res: Response | Promise<Response>;
    try {
      res = run(ctx);
    } catch (error) {
      return outgoing(ctx, recover(ctx, error));
    }
    if (res instanceof Promise) {
      return res.then(
        (value) => outgoing(ctx, checked(ctx, value)),
        (error) => outgoing(ctx, recover(ctx, error)),
      );
    }
    return outgoing(ctx, checked(ctx, res));
  }
  const app = run as InternalApp;
  app[RESPOND] = respond;
  app[HOOKS] = hooks;
  app.fetch = function fetch(request: Request, info?: ConnInfo): Promise<Response> {
    const res = Promise.resolve(respond(request, info));
    // a server sends a HEAD answer's head only, with the length its body had; so does
    // app.fetch() (the router's 404 and 405, a handler's own answer), or a test would see a body
    // no client gets
    return request.method === "HEAD" ? res.then(withoutBody) : res;
  };
  return app;
}
