// The context keys that more than one module reads, apart so that logger() can read the request
// id without importing requestId().

/** The key under which `requestId()` stores the request's id. */
export const REQUEST_ID_KEY = "request.id";
