// A lightweight `Response` for Node: the one that serve() installs as `globalThis.Response`.
//
// Node's `Response` (undici) builds a Headers list and, for every body, a ReadableStream at
// construction; on Node 20 a ReadableStream costs more than all of node:http's own work for a
// small response. A NodeResponse keeps the status, the headers as given and the body as given
// (a string, bytes, a stream or null), which is all the adapter needs to write it (see
// _node_send.ts). Anything else (`body`, `text()`, `clone()` of a stream, …) builds the real
// Response once and delegates to it; `headers` is a real, mutable `Headers`, made on first use.
// NodeResponse.prototype inherits from Response.prototype and `instanceof Response` holds for
// both kinds, so code that checks or extends responses keeps working.

import { delegate } from "./_node_delegate.ts";
import { TOKEN } from "./_node_headers.ts";

const NATIVE = Symbol.for("weft.nativeResponse");

/** Node's own Response class, even when serve() has replaced the global. */
export const NativeResponse: typeof Response =
  (globalThis.Response as unknown as Record<symbol, typeof Response | undefined>)[NATIVE] ??
    globalThis.Response;

/** A body the adapter writes without a stream: a string, bytes or nothing. */
export type Source = string | Uint8Array<ArrayBuffer> | ReadableStream<Uint8Array> | null;

/** Internal fields, read by the writer in _node_send.ts. */
export const STATUS = Symbol("weft.status");
export const STATUS_TEXT = Symbol("weft.statusText");
/** The body as given, while no real Response owns it. */
export const SOURCE = Symbol("weft.source");
/** Headers given as a plain object and not yet turned into `Headers`. */
export const PLAIN = Symbol("weft.plain");
/** The `Headers`, once made (or given). */
export const HEADERS = Symbol("weft.headers");
/** The real Response, once something needed it; it owns the body from then on. */
export const REAL = Symbol("weft.real");

/** The `Content-Type` undici gives a string body. */
export const TEXT_TYPE = "text/plain;charset=UTF-8";
/** The headers of `Response.json()` without init: the writer knows them without reading them. */
export const JSON_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  "content-type": "application/json",
});
const BAD_VALUE = /[\0\r\n\u0100-\uffff]/;
const NULL_BODY = new Set([101, 103, 204, 205, 304]);
// Uint8Array's own slice(): Buffer's shares the memory.
const copy = Uint8Array.prototype.slice as (this: Uint8Array) => Uint8Array<ArrayBuffer>;

function statusOf(value: unknown): number {
  // WebIDL unsigned short, then the Fetch range check.
  let status = Math.trunc(Number(value));
  status = Number.isFinite(status) ? ((status % 65_536) + 65_536) % 65_536 : 0;
  if (status < 200 || status > 599) {
    throw new RangeError('init["status"] must be in the range of 200 to 599, inclusive.');
  }
  return status;
}

function isPlain(value: object): value is Record<string, unknown> {
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

function checkPlain(headers: Record<string, unknown>): void {
  for (const name in headers) {
    if (!TOKEN.test(name)) {
      throw new TypeError(`Headers.append: "${name}" is an invalid header name.`);
    }
    if (BAD_VALUE.test(String(headers[name]))) {
      throw new TypeError(`Headers.append: "${headers[name]}" is an invalid header value.`);
    }
  }
}

/** A `Response` that builds Node's own only when something beyond status and headers needs it. */
export class NodeResponse {
  // Declared only: the constructor assigns each once (no per-instance field definitions).
  declare [STATUS]: number;
  declare [STATUS_TEXT]: string;
  declare [SOURCE]: Source;
  declare [PLAIN]: Record<string, unknown> | undefined;
  declare [HEADERS]: Headers | undefined;
  declare [REAL]: Response | undefined;

  constructor(body?: BodyInit | null, init?: ResponseInit) {
    let status = 200;
    let statusText = "";
    let plain: Record<string, unknown> | undefined;
    let headers: Headers | undefined;
    if (init !== undefined && init !== null) {
      if (init.status !== undefined) status = statusOf(init.status);
      if (init.statusText !== undefined) {
        statusText = String(init.statusText);
        if (BAD_VALUE.test(statusText)) throw new TypeError("Invalid statusText");
      }
      const given = init.headers;
      if (given !== undefined) {
        if (given === JSON_HEADERS) plain = JSON_HEADERS;
        else if (given !== null && typeof given === "object" && isPlain(given)) {
          checkPlain(given as Record<string, unknown>);
          plain = given as Record<string, unknown>;
        } else headers = new Headers(given);
      }
    }
    let source: Source = null;
    let real: Response | undefined;
    if (body === undefined || body === null) source = null;
    else if (typeof body === "string") source = body;
    else if (body instanceof ArrayBuffer || ArrayBuffer.isView(body)) {
      // A copy, as the Fetch standard asks: the caller may reuse its buffer at once.
      source = body instanceof ArrayBuffer
        ? new Uint8Array(body.slice(0))
        : copy.call(new Uint8Array(body.buffer as ArrayBuffer, body.byteOffset, body.byteLength));
    } else if (body instanceof ReadableStream) {
      if (body.locked) {
        throw new TypeError("Response body object should not be disturbed or locked");
      }
      source = body;
    } else {
      // Blob, FormData, URLSearchParams, async iterables: undici knows their types and lengths.
      real = new NativeResponse(body, { status, statusText, headers: headers ?? plain as never });
      headers = real.headers;
      plain = undefined;
    }
    if (source !== null && NULL_BODY.has(status)) {
      throw new TypeError(`Response constructor: Invalid response status code ${status}`);
    }
    this[STATUS] = status;
    this[STATUS_TEXT] = statusText;
    this[SOURCE] = source;
    this[PLAIN] = plain;
    this[HEADERS] = headers;
    this[REAL] = real;
  }

  get status(): number {
    return this[STATUS];
  }

  get statusText(): string {
    return this[STATUS_TEXT];
  }

  get ok(): boolean {
    return this.status >= 200 && this.status <= 299;
  }

  get type(): ResponseType {
    return "default";
  }

  get url(): string {
    return "";
  }

  get redirected(): boolean {
    return false;
  }

  get headers(): Headers {
    let headers = this[HEADERS];
    if (headers === undefined) {
      headers = this[HEADERS] = new Headers(this[PLAIN] as Record<string, string> | undefined);
      this[PLAIN] = undefined;
      if (typeof this[SOURCE] === "string" && !headers.has("content-type")) {
        headers.set("content-type", TEXT_TYPE);
      }
    }
    return headers;
  }

  get body(): ReadableStream<Uint8Array> | null {
    if (this[REAL] === undefined && this[SOURCE] === null) return null;
    return realOf(this).body;
  }

  get bodyUsed(): boolean {
    return this[REAL]?.bodyUsed ?? false;
  }

  clone(): Response {
    if (this.bodyUsed) throw new TypeError("Response.clone: Body has already been consumed.");
    const source = this[SOURCE];
    const init = { status: this.status, statusText: this.statusText, headers: this.headers };
    if (this[REAL] === undefined && !(source instanceof ReadableStream)) {
      return new NodeResponse(source, init) as unknown as Response;
    }
    // undici tees the stream: the real Response keeps one branch, the copy takes the other.
    return new NodeResponse(realOf(this).clone().body, init) as unknown as Response;
  }

  static json(data: unknown, init?: ResponseInit): Response {
    const body = JSON.stringify(data);
    if (body === undefined) throw new TypeError("Value is not JSON serializable");
    if (init === undefined || init === null) {
      return new NodeResponse(body, { headers: JSON_HEADERS }) as unknown as Response;
    }
    let headers: HeadersInit = JSON_HEADERS;
    if (init.headers !== undefined) {
      const given = new Headers(init.headers);
      if (!given.has("content-type")) given.set("content-type", "application/json");
      headers = given;
    }
    const { status, statusText } = init;
    return new NodeResponse(body, { status, statusText, headers }) as unknown as Response;
  }

  static [Symbol.hasInstance](value: unknown): boolean {
    return value instanceof NativeResponse;
  }
}

function realOf(response: NodeResponse): Response {
  let real = response[REAL];
  if (real === undefined) {
    real = response[REAL] = new NativeResponse(response[SOURCE], {
      status: response[STATUS],
      statusText: response[STATUS_TEXT],
      headers: response.headers,
    });
    response[SOURCE] = null;
  }
  return real;
}

// Every other member of Response.prototype (text(), json(), blob(), …) delegates to the real
// one. So do undici's internal slots (own symbols of a Response): Node's own methods called on a
// NodeResponse (`Response.prototype.text.call(response)` with the class captured before serve()
// replaced it) then work on the real one. Without them (an undici that keeps its state in
// private fields) those methods would refuse a NodeResponse, so it is not installed.
const SLOTS = Object.getOwnPropertySymbols(new NativeResponse(null));
delegate(NodeResponse.prototype, NativeResponse.prototype, realOf, SLOTS);
Object.defineProperty(NodeResponse.prototype, Symbol.for("nodejs.util.inspect.custom"), {
  value: function (
    this: NodeResponse,
    _depth: number,
    options: unknown,
    inspect: (value: unknown, options: unknown) => string,
  ): string {
    const { status, statusText, headers, bodyUsed, ok } = this;
    return `Response ${inspect({ status, statusText, headers, bodyUsed, ok }, options)}`;
  },
});
Object.setPrototypeOf(NodeResponse, NativeResponse);
Object.defineProperty(NodeResponse, NATIVE, { value: NativeResponse });

// Every promise fulfilled with a response looks up a `then` on it (an `async` middleware's
// `return res`, each layer's settle()): V8 walks the prototype chain, and Node's Response
// prototypes are dictionaries, so the walk costs hundreds of instructions. A `then` that is
// `undefined` on the first prototype ends it there and leaves the response no thenable, as the
// spec has it (bench/instructions.ts --node, kind weft-await:10: about 560 instructions a layer).
// `"then" in response` is true for a NodeResponse; its value stays undefined.
Object.defineProperty(NodeResponse.prototype, "then", { writable: true, configurable: true });

/**
 * Puts the `then` shortcut above on or off, so that the conformance suite can show it changes
 * no answer. Called by tests/node/conformance.test.ts only (bundlers drop it).
 */
export function useThenShortcut(on: boolean): void {
  if (on) {
    Object.defineProperty(NodeResponse.prototype, "then", { writable: true, configurable: true });
  } else delete (NodeResponse.prototype as { then?: unknown }).then;
}

/** Whether a response is a NodeResponse (of this copy of Weft). */
export function isNodeResponse(response: Response): response is Response & NodeResponse {
  return (response as unknown as NodeResponse)[STATUS] !== undefined;
}

/**
 * Whether a value is a `Response`: a light one first, since a generic instanceof costs more
 * in Node 20 than the property read (the Node load benchmark).
 */
export function isResponse(value: unknown): value is Response {
  return (typeof value === "object" && value !== null &&
    isNodeResponse(value as Response)) || value instanceof NativeResponse;
}

/**
 * Whether undici's slots are reachable, so the light Response is installed. Read by
 * tests/node/internals.test.ts only (bundlers drop it).
 */
export function responseSlotsLive(): boolean {
  return SLOTS.length > 0;
}

/**
 * Makes `Response` in every module the lightweight one, as @hono/node-server does, unless
 * something else replaced Node's own already or undici's slots are out of reach.
 */
export function installResponse(): void {
  if (globalThis.Response === NativeResponse && SLOTS.length > 0) {
    Object.defineProperty(globalThis, "Response", {
      value: NodeResponse,
      writable: true,
      configurable: true,
    });
  }
}
