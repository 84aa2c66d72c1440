/**
 * `timeout(ms)`: a deadline for the response.
 *
 * @module
 */
import { problem } from "../http/problem.ts";
import { bodyAtHand } from "../server/deno.ts";
import type { Middleware } from "../types.ts";
import { readAhead, resume } from "./_read_ahead.ts";
import { concat } from "../http/read_limited.ts";

/**
 * A body that the runtime does not show at hand, but that is whole within a few microtasks up
 * to this size, is taken whole (and keeps its Content-Length).
 */
const MAX_AHEAD_BYTES = 65_536;

/**
 * Gives the rest of the chain `ms` milliseconds to answer.
 *
 * 1. `ctx.req.signal` aborts (with a `TimeoutError` `DOMException`) when the deadline passes,
 *    as it does when the client goes away, so a handler passing it on to `fetch()`, a database
 *    driver or its own loop stops its work. So does the signal of a request that a later
 *    middleware puts in `ctx.req` (`ctx.req = new Request(ctx.req, init)`). A copy left out of
 *    `ctx.req` (`new Request(ctx.req)`, `fetch(ctx.req)`) takes the runtime's own signal: give
 *    it `signal: ctx.req.signal`.
 * 2. If the response has not started by then, the client gets a 503 problem response at once;
 *    the handler's response, when it comes, is discarded (its body cancelled).
 * 3. If the response has started and its body is still streaming at the deadline, the body is
 *    cut: the stream fails, so the server ends the response abnormally (HTTP/1.1: the
 *    connection closes without the last chunk; HTTP/2: `RST_STREAM`), which a client cannot
 *    mistake for a complete body. A body at hand (a string, bytes, JSON) is sent whole.
 * 4. An event stream (`Content-Type: text/event-stream`, as `sse()` answers) is meant to stay
 *    open, so the deadline bounds only the time until it is returned: its body is never cut,
 *    and from then on `ctx.req.signal` aborts only when the client goes away. A handler that
 *    has not returned it by the deadline gets the 503 as any other.
 *
 * The deadline covers the app, not the network: reading the request's header block and body
 * is bounded by the server (on Node, `serve()`'s `headersTimeout` and `requestTimeout`; see
 * docs/bodies.md for what `Deno.serve` offers).
 *
 * @param ms The deadline in milliseconds, a positive integer.
 * @returns The middleware.
 * @throws {RangeError} When `ms` is not a positive integer.
 *
 * @example A slow handler gets 503, and its signal aborts
 * ```ts
 * import { chain, get, router, timeout } from "../../mod.ts";
 * import assert from "node:assert/strict";
 *
 * let aborted = false;
 * const app = chain([timeout(20)], router([
 *   get("/slow", (ctx) =>
 *     new Promise<Response>((resolve) => {
 *       ctx.req.signal.addEventListener("abort", () => {
 *         aborted = true;
 *         resolve(new Response("too late"));
 *       });
 *     })),
 * ]));
 * const res = await app.fetch(new Request("http://localhost/slow"));
 * assert.equal(res.status, 503);
 * assert.equal(res.headers.get("content-type"), "application/problem+json");
 * assert.equal(aborted, true);
 * ```
 */
export function timeout(ms: number): Middleware {
  if (!Number.isSafeInteger(ms) || ms <= 0) {
    throw new RangeError(`Cannot create timeout(): ${ms} is not a positive integer of ms`);
  }
  const detail = `The response was not ready within ${ms} ms`;

  return async function timeout(ctx, next) {
    // 1. the deadline, and a request signal that aborts at it; so does the signal of a request
    //    that a later middleware puts in ctx.req (a copy made with `new Request(ctx.req, init)`
    //    takes the runtime's signal, not this one)
    const deadline = new AbortController();
    follow(ctx.req, deadline.signal);
    const req = descriptorOf(ctx, "req"); // Context's, or an outer timeout()'s
    Object.defineProperty(ctx, "req", {
      get: req.get,
      set(request: Request) {
        req.set!.call(this, request);
        follow(request, deadline.signal);
      },
      configurable: true,
    });
    let expired!: () => void;
    const late = new Promise<null>((resolve) => expired = () => resolve(null));
    const timer = setTimeout(() => {
      deadline.abort(new DOMException(detail, "TimeoutError"));
      expired();
    }, ms);

    // 2. the response, or 503 if the deadline came first
    const pending = next();
    const res = await Promise.race([pending, late]);
    if (res === null) {
      pending.then((discarded) => discarded.body?.cancel().catch(() => {}));
      return problem({ status: 503, detail, instance: ctx.path });
    }

    // 3. a body at hand goes out whole, whatever its size, and an event stream stays open (it
    //    ends when its handler or client says so); any other streamed body is cut at the
    //    deadline (bodyAtHand() looks before res.body, which on Deno would make a stream of it)
    if (bodyAtHand(res) !== undefined || isEventStream(res)) {
      clearTimeout(timer);
      return res;
    }
    const body = res.body;
    if (body === null) {
      clearTimeout(timer);
      return res;
    }
    const reader = body.getReader();
    const ahead = await readAhead(reader, MAX_AHEAD_BYTES, false);
    if (ahead.done) {
      clearTimeout(timer);
      return new Response(concat(ahead.chunks, ahead.total), res);
    }
    const rest = resume(reader, ahead.chunks, ahead.pending);
    return new Response(cutAt(rest, deadline.signal, () => clearTimeout(timer)), res);
  };
}

// Makes `request.signal` abort at the deadline too. The signal is made when the app first reads
// it: on Deno, reading the runtime's signal is what exposes an app to its legacy abort after a
// successful response, and what makes Deno warn about that (once per process).
function follow(request: Request, deadline: AbortSignal): void {
  const outer = Object.getOwnPropertyDescriptor(request, "signal"); // an outer timeout()'s
  const proto = Object.getPrototypeOf(request);
  let signal: AbortSignal | undefined;
  Object.defineProperty(request, "signal", {
    get: () =>
      signal ??= AbortSignal.any([
        outer === undefined
          ? Reflect.get(proto, "signal", request)
          : outer.get?.call(request) ?? outer.value,
        deadline,
      ]),
    configurable: true,
  });
}

// The descriptor of `key` on `object` or the nearest of its prototypes that has one.
function descriptorOf(object: object, key: string): PropertyDescriptor {
  for (let o: object | null = object; o !== null; o = Object.getPrototypeOf(o)) {
    const descriptor = Object.getOwnPropertyDescriptor(o, key);
    if (descriptor !== undefined) return descriptor;
  }
  throw new TypeError(`Cannot apply timeout(): the context has no ${key}`);
}

// Whether the response is a `text/event-stream` (the media type's essence, whatever its
// parameters and case): a stream of events the client keeps open, not a body to finish in time.
function isEventStream(res: Response): boolean {
  const type = res.headers.get("content-type");
  return type !== null && /^\s*text\/event-stream\s*(?:;|$)/i.test(type);
}

// A stream that fails with the signal's reason when it aborts, and cancels its source.
function cutAt(
  source: ReadableStream<Uint8Array>,
  signal: AbortSignal,
  finished: () => void,
): ReadableStream<Uint8Array> {
  const reader = source.getReader();
  let open = true;
  return new ReadableStream<Uint8Array>({
    start(controller) {
      signal.addEventListener("abort", () => {
        if (!open) return;
        open = false;
        controller.error(signal.reason);
        reader.cancel(signal.reason).catch(() => {});
      }, { once: true });
    },
    async pull(controller) {
      const result = await reader.read();
      if (!open) return;
      if (result.done) {
        open = false;
        finished();
        controller.close();
      } else controller.enqueue(result.value);
    },
    cancel(reason) {
      open = false;
      finished();
      return reader.cancel(reason);
    },
  }, { highWaterMark: 0 });
}
