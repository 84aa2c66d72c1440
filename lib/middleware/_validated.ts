// The schemas a validate() middleware was given, kept on it for tools that document an app's
// routes (weft/openapi); never read per request.

/** The key of the `ValidateSchemas` on a `validate()` middleware (non-enumerable). */
export const VALIDATES: unique symbol = /* @__PURE__ */ Symbol("weft.validates");
