// Path params, the one type that both the Context (context.ts) and the handler shapes
// (types.ts, which exports it) need, so that types.ts imports context.ts and not the reverse.

/** Path params: names from the route pattern to decoded values. */
export type Params = Record<string, string>;
