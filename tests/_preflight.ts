// A CORS preflight as a browser sends it, for the tests of the middleware that let one through.

/** An `OPTIONS` request with `Origin` and `Access-Control-Request-Method`, and `headers`. */
export function preflight(
  path: string,
  method = "GET",
  headers: Record<string, string> = {},
): Request {
  return new Request(`http://localhost${path}`, {
    method: "OPTIONS",
    headers: { origin: "https://app.example", "access-control-request-method": method, ...headers },
  });
}
