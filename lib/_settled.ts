// The key of the field that settle() and the app entry point (lib/_app.ts) keep on each
// Context. On the request's own object, which is young, storing it costs nothing extra;
// module-level variables live in old space, and every store of a young value into one runs
// the write barrier's slow path (the Deno load benchmark's "two middleware" case).

/** The last promise settle() returned for the request; such a promise never rejects. */
export const SAFE: unique symbol = Symbol("weft.safe");

/** The hooks (`onError`, `notFound`) of the app that created the context. */
export const HOOKS: unique symbol = Symbol("weft.hooks");

/** The last response a context's helpers built; it already carries `ctx.res`. */
export const BUILT: unique symbol = Symbol("weft.built");

/** The request's own `then` callbacks of settle(), made once per request, not once per layer. */
export const ON_VALUE: unique symbol = Symbol("weft.onValue");

/** See {@linkcode ON_VALUE}. */
export const ON_ERROR: unique symbol = Symbol("weft.onError");

/**
 * The bounded body a reader began to read (lib/_bounded_request.ts), set when the first read
 * starts: the app entry point releases what is left unread once the response has gone out.
 */
export const READING: unique symbol = Symbol("weft.reading");

/**
 * Set by the router on a request it answers itself (a 405, or the automatic 204 of an OPTIONS
 * request) before the middleware of the groups of that path run: lib/middleware/_preflight.ts
 * lets only such a CORS preflight pass the checks that it cannot pass.
 */
export const AUTOMATIC: unique symbol = Symbol("weft.automatic");
