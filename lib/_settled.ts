// The keys of two fields that settle() and the app entry point (lib/_app.ts) keep on each
// Context. On the request's own object, which is young, storing them costs nothing extra;
// module-level variables live in old space, and every store of a young value into one runs
// the write barrier's slow path (about 120 instructions per request, counted with callgrind).

/** The last promise settle() returned for the request; such a promise never rejects. */
export const SAFE: unique symbol = Symbol("weft.safe");

/** The response the {@linkcode SAFE} promise is fulfilled with, when it was made from one. */
export const SETTLED: unique symbol = Symbol("weft.settled");
