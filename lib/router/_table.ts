// What a router or a route was built from, kept for tools that read an app's routes
// (weft/openapi); never read per request. One key for both, as a byte of the core bundle counts.

/**
 * On a route: its own middleware, outermost first (`undefined` for none). On the App that
 * `router()` returns: the routes and groups it was given.
 */
export const SOURCE: unique symbol = /* @__PURE__ */ Symbol();
