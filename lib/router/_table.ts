// What a router was built from, kept for tools that read an app's routes (weft/openapi). Only
// read when such a tool runs, never per request.

/** A route's own middleware, outermost first. */
export const USES: unique symbol = Symbol();

/** The routes and groups `router()` was given. */
export const ROUTES: unique symbol = Symbol();
