// Request headers read straight from Node's raw header list.
//
// Building undici's `Headers` for a browser's request (ten or so fields, each validated and
// lower-cased on append) costs about as much as the rest of a small request; the middleware
// mostly asks for one or two fields (Origin, Authorization, Content-Length). A NodeHeaders
// answers get() and has() from the raw list and builds the real `Headers` for anything else
// (iteration, a change), delegating to it from then on. It inherits from Headers.prototype, so
// `instanceof Headers` holds, and it iterates like one, so `new Headers(headers)` copies it.

import { delegate } from "./_node_delegate.ts";

const RAW = Symbol("weft.rawHeaders");
const HTTP2 = Symbol("weft.http2");
const REAL = Symbol("weft.realHeaders");
/** A field name (RFC 9110 §5.6.2: a token). */
export const TOKEN = /^[!#$%&'*+\-.^_`|~\dA-Za-z]+$/;

function isWhitespace(code: number): boolean {
  return code === 32 || code === 9 || code === 10 || code === 13;
}

// Fetch's header value normalization: no leading or trailing HTTP whitespace.
function normalize(value: string): string {
  const last = value.length - 1;
  if (last < 0 || (!isWhitespace(value.charCodeAt(0)) && !isWhitespace(value.charCodeAt(last)))) {
    return value;
  }
  let start = 0;
  let end = value.length;
  while (start < end && isWhitespace(value.charCodeAt(start))) start++;
  while (end > start && isWhitespace(value.charCodeAt(end - 1))) end--;
  return value.slice(start, end);
}

/**
 * The value of `name` (lower case) in a raw header list as `Headers.get()` would give it:
 * repeated fields joined with ", ", and repeated `Cookie` fields with "; ", the separator of a
 * cookie-string (HTTP/2's cookie crumbs, RFC 9113 §8.2.3, and HTTP/1.1 lines alike, as Deno and
 * Node's own `IncomingMessage.headers` join them: with ", " a second line's pair would be read
 * as part of the first one's value). Pseudo-headers never match, as no token starts with ":".
 */
export function findHeader(raw: readonly string[], name: string): string | null {
  let found: string | null = null;
  for (let i = 0; i < raw.length; i += 2) {
    const key = raw[i];
    if (key.length !== name.length || (key !== name && key.toLowerCase() !== name)) continue;
    const value = normalize(raw[i + 1]);
    found = found === null ? value : found + (name === "cookie" ? "; " : ", ") + value;
  }
  return found;
}

function lowerName(name: string, method: string): string {
  const text = String(name);
  if (!TOKEN.test(text)) {
    throw new TypeError(`Headers.${method}: "${text}" is an invalid header name.`);
  }
  return text.toLowerCase();
}

function build(raw: readonly string[], http2: boolean): Headers {
  const headers = new Headers();
  let cookies = false;
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i];
    // Pseudo-headers are not fields; Cookie fields are joined with "; " (see findHeader()).
    if (http2 && name.charCodeAt(0) === 58) continue;
    if (name.length === 6 && name.toLowerCase() === "cookie") cookies = true;
    else headers.append(name, raw[i + 1]);
  }
  if (cookies) headers.set("cookie", findHeader(raw, "cookie")!);
  return headers;
}

/** The headers of a Node request, lazily a real `Headers`. */
export class NodeHeaders {
  // Declared only, as in NodeRequest: the constructor assigns each once.
  declare [RAW]: readonly string[];
  declare [HTTP2]: boolean;
  declare [REAL]: Headers | undefined;

  constructor(raw: readonly string[], http2: boolean) {
    this[RAW] = raw;
    this[HTTP2] = http2;
    this[REAL] = undefined;
  }

  get(name: string): string | null {
    const real = this[REAL];
    if (real !== undefined) return real.get(name);
    return findHeader(this[RAW], lowerName(name, "get"));
  }

  has(name: string): boolean {
    const real = this[REAL];
    if (real !== undefined) return real.has(name);
    return findHeader(this[RAW], lowerName(name, "has")) !== null;
  }

  forEach(
    callback: (value: string, key: string, parent: Headers) => void,
    thisArg?: unknown,
  ): void {
    realHeaders(this).forEach((value, key) => {
      callback.call(thisArg, value, key, this as unknown as Headers);
    });
  }

  [Symbol.iterator](): ReturnType<Headers["entries"]> {
    return realHeaders(this).entries();
  }
}

Object.defineProperty(NodeHeaders.prototype, Symbol.for("nodejs.util.inspect.custom"), {
  value: function (
    this: NodeHeaders,
    _depth: number,
    options: unknown,
    inspect: (value: unknown, options: unknown) => string,
  ): string {
    return inspect(realHeaders(this), options);
  },
});
// The rest of Headers' methods (set(), append(), keys(), …) act on the real Headers.
delegate(NodeHeaders.prototype, Headers.prototype, realHeaders);

/** The real `Headers` behind `headers` (built once for a NodeHeaders), or `headers` itself. */
export function realHeaders(headers: Headers | NodeHeaders): Headers {
  if (!(headers instanceof NodeHeaders)) return headers;
  return headers[REAL] ??= build(headers[RAW], headers[HTTP2]);
}
