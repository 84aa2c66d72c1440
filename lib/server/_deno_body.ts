// The body a Deno response was made from, while nothing has touched it: compress() takes it
// whole (through _deno_compression.ts), and timeout() passes such a body on untouched (through
// deno.ts's bodyAtHand).
//
// Deno keeps the string or bytes a response was made from in its inner response (the own
// symbol property described "response") as `body.streamOrStatic = { body, consumed }` until
// something touches `res.body`, which makes a stream of it. Reading it there spares compress()
// a stream and a copy: with the string made bytes by Buffer.from() (_zlib.ts), server CPU a
// request for 64 KiB of JSON at gzip level 6 went from 1.12× nginx's to 1.00× (324 → 298 µs;
// bench/compress/run.ts, 5 rounds). Found by probing, once; where the shape differs (another
// Deno), nothing is at hand and the body is read from its stream. Checked by
// tests/deno_internals_test.ts.
interface Inner {
  body?: { streamOrStatic?: { body?: unknown; consumed?: boolean } } | null;
}
let inner: symbol | null | undefined;

function probe(response: Response): symbol | null {
  for (const key of Object.getOwnPropertySymbols(response)) {
    if (key.description !== "response") continue;
    const value = (response as unknown as Record<symbol, Inner | undefined>)[key];
    if (value !== null && typeof value === "object" && "body" in value) return key;
  }
  return null;
}

/** The string or bytes of a response whose body nothing has touched. */
export function atHand(response: Response): Uint8Array | string | undefined {
  // Deno 2.9 fills the inner response of one made without headers once they are read
  // (compress() has read them already).
  void response.headers;
  if (inner === undefined) inner = probe(response);
  if (inner === null) return undefined;
  const found = (response as unknown as Record<symbol, Inner | undefined>)[inner]?.body
    ?.streamOrStatic;
  if (found === undefined || found.consumed !== false) return undefined;
  const body = found.body;
  return typeof body === "string" || body instanceof Uint8Array ? body : undefined;
}

/** Whether the probe found Deno's inner response (`undefined` before the first probe). */
export function atHandLive(): boolean | undefined {
  return inner === undefined ? undefined : inner !== null;
}
