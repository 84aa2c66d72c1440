// ctx.req with its body bounded by ctx.bodyLimit: a request whose body methods (text(),
// formData(), json(), arrayBuffer(), blob(), bytes()) and `body` stream read through the limit,
// failing with a 413 HttpError once more bytes than the limit arrived, as ctx.body() does. The
// request keeps its identity and its signal: only its prototype changes, to one that sits in
// front of the runtime's own (one such prototype per request class). bodyLimit() uses the same
// body to refuse oversize uploads before the handler and to release what a handler left unread.
import { HttpError } from "./http/http_error.ts";
import { tooLarge } from "./http/read_limited.ts";
import { READING } from "./_settled.ts";

/**
 * What a bounded request reads its limit from (the Context, whose limit bodyLimit() sets), and
 * where it records the body once a reader begins to read it.
 */
export interface LimitSource {
  readonly bodyLimit: number;
  [READING]?: BoundedBody;
}

/** The bounded body of a request. */
export interface BoundedBody {
  /** The body stream as the application reads it; `null` when the request has none. */
  readonly stream: ReadableStream<Uint8Array> | null;
  /** The 413 the stream failed with, once it did. */
  readonly error: HttpError | undefined;
  /**
   * Whether a reader took from the body (the request's `bodyUsed`); a body that `clone()` tee'd
   * counts as unread, as each of its two halves is whole.
   */
  readonly used: boolean;
  /** Whether a reader took from the runtime's stream and has not reached its end. */
  readonly unfinished: boolean;
  /** Cancels what a reader began to read and left unread. */
  release(): void;
}

const SOURCE: unique symbol = Symbol("weft.limitSource");
const STATE: unique symbol = Symbol("weft.boundedBody");

interface BoundedRequest extends Request {
  [SOURCE]: LimitSource;
  [STATE]?: BoundedBody;
}

type BodyGetter = (this: Request) => ReadableStream<Uint8Array> | null;

const METHODS = ["arrayBuffer", "blob", "bytes", "formData", "json", "text"] as const;
const PROTOTYPES = /* @__PURE__ */ new WeakMap<object, object>();

function bodyGetter(proto: object): BodyGetter {
  for (let p: object | null = proto; p !== null; p = Object.getPrototypeOf(p)) {
    const getter = Object.getOwnPropertyDescriptor(p, "body")?.get;
    if (getter !== undefined) return getter as BodyGetter;
  }
  throw new TypeError("Cannot bound the request body: the request has no body getter");
}

// On Deno, a request body locked by a reader that is never released keeps its connection open
// (in CLOSE-WAIT once the client has gone) until the reader is garbage-collected, while an
// untouched body is released when the response is done. So nothing is read and nothing is
// locked until the application reads (a lazy reader, no read-ahead: highWaterMark 0).
function limit(source: ReadableStream<Uint8Array>, owner: LimitSource): BoundedBody {
  let reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
  let finished = false;
  let total = 0;
  const body = {
    stream: null as ReadableStream<Uint8Array> | null,
    error: undefined as HttpError | undefined,
    get used() {
      // read through this body's stream, or by a reader of the runtime's body before it
      return body.stream === stream && source.locked;
    },
    get unfinished() {
      return reader !== undefined && !finished;
    },
    release() {
      if (reader === undefined || finished) return;
      finished = true;
      reader.cancel().catch(() => {});
    },
  };
  const stream = body.stream = new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (reader === undefined) {
        reader = source.getReader();
        owner[READING] = body;
      }
      let result: ReadableStreamReadResult<Uint8Array>;
      try {
        result = await reader.read();
      } catch (error) {
        finished = true;
        controller.error(error);
        return;
      }
      if (finished) {
        // released while this read waited (the response went out): what the reader gets is
        // cut, never an end that would pass it for the whole body
        controller.error(new Error("The request body was released: its response has gone out"));
        return;
      }
      if (result.done) {
        finished = true;
        controller.close();
        return;
      }
      total += result.value.byteLength;
      const max = owner.bodyLimit;
      if (total > max) {
        body.release();
        controller.error(body.error = tooLarge(max));
        return;
      }
      controller.enqueue(result.value);
    },
    cancel(reason) {
      finished = true;
      return reader === undefined ? source.cancel(reason) : reader.cancel(reason);
    },
  }, { highWaterMark: 0 });
  return body;
}

const NO_BODY: BoundedBody = {
  stream: null,
  error: undefined,
  used: false,
  unfinished: false,
  release() {},
};

function stateOf(request: BoundedRequest, original: BodyGetter): BoundedBody {
  let state = request[STATE];
  if (state === undefined) {
    const source = original.call(request);
    state = request[STATE] = source === null ? NO_BODY : limit(source, request[SOURCE]);
  }
  return state;
}

function boundedPrototype(base: object): object {
  let proto = PROTOTYPES.get(base);
  if (proto !== undefined) return proto;
  const original = bodyGetter(base);
  const members: PropertyDescriptorMap = {
    body: {
      get(this: BoundedRequest) {
        return stateOf(this, original).stream;
      },
      configurable: true,
    },
    bodyUsed: {
      get(this: BoundedRequest) {
        return stateOf(this, original).used;
      },
      configurable: true,
    },
  };
  for (const name of METHODS) {
    members[name] = {
      value: async function (this: BoundedRequest) {
        const state = stateOf(this, original);
        // taken by another reader (ctx.body() before ctx.req was bounded): the app's mistake
        if (state.used) throw new TypeError("The request body was already read");
        const type = this.headers.get("content-type");
        const copy = new Response(
          state.stream,
          type === null ? {} : { headers: { "content-type": type } },
        );
        try {
          return await (copy[name] as () => Promise<unknown>)();
        } catch (error) {
          // what the client sent (JSON or a form that does not parse, a body cut short): a
          // 400, not the app's 500 (a body read before fails above, with the app's TypeError)
          throw state.error ??
            new HttpError(400, `The request body could not be read by ${name}()`, { cause: error });
        }
      },
      writable: true,
      configurable: true,
    };
  }
  // clone() tees the bounded stream: the runtime's own clone would read its raw body, which the
  // bounded request no longer owns once it was read through the limit.
  members.clone = {
    value: function (this: BoundedRequest) {
      const state = stateOf(this, original);
      if (state.stream === null) {
        return new Request(this.url, { method: this.method, headers: this.headers });
      }
      const [own, copy] = state.stream.tee();
      (state as { stream: ReadableStream<Uint8Array> | null }).stream = own;
      return new Request(this.url, {
        method: this.method,
        headers: this.headers,
        body: copy,
        duplex: "half",
      } as RequestInit);
    },
    writable: true,
    configurable: true,
  };
  proto = Object.create(base, members) as object;
  PROTOTYPES.set(base, proto);
  return proto;
}

/**
 * Bounds the body of `request` by `source.bodyLimit` (read at every chunk, so a later change
 * of the limit applies) and returns the same request. GET and HEAD requests are left alone.
 */
export function bound(request: Request, source: LimitSource): Request {
  const method = request.method;
  if (method === "GET" || method === "HEAD") return request;
  const bounded = request as BoundedRequest;
  const already = Object.hasOwn(bounded, SOURCE);
  bounded[SOURCE] = source;
  if (!already) Object.setPrototypeOf(request, boundedPrototype(Object.getPrototypeOf(request)));
  return request;
}

/**
 * The bounded body of a request that {@linkcode bound} bounded.
 *
 * @returns The body, or `undefined` for a request left alone.
 */
export function boundedBody(request: Request): BoundedBody | undefined {
  const bounded = request as BoundedRequest;
  if (!Object.hasOwn(bounded, SOURCE)) return undefined;
  return stateOf(bounded, bodyGetter(Object.getPrototypeOf(Object.getPrototypeOf(request))));
}

/**
 * Makes a bounded request serve `bytes` (read ahead by bodyLimit()) as its body from now on.
 */
export function replaceBody(request: Request, bytes: Uint8Array<ArrayBuffer>): void {
  const copy = new Response(bytes);
  (request as BoundedRequest)[STATE] = {
    stream: copy.body,
    error: undefined,
    get used() {
      return this.stream === copy.body && copy.bodyUsed;
    },
    unfinished: false,
    release() {},
  };
}

/**
 * Releases what a reader left unread of `body` once `res` has gone out: at once for a response
 * without a body, else when its body ends or is cancelled (not before, as the response may
 * stream what is still being read). A body begun and left unread holds its connection: the
 * runtime serves the next request only once the body is read or dropped.
 */
export function releaseAfter(res: Response, body: BoundedBody): Response {
  if (res.body === null) {
    body.release();
    return res;
  }
  const source = res.body.getReader();
  const stream = new ReadableStream<Uint8Array>({
    async pull(controller) {
      let result: ReadableStreamReadResult<Uint8Array>;
      try {
        result = await source.read();
      } catch (error) {
        body.release();
        controller.error(error);
        return;
      }
      if (result.done) {
        body.release();
        controller.close();
      } else controller.enqueue(result.value);
    },
    cancel(reason) {
      body.release();
      return source.cancel(reason);
    },
  }, { highWaterMark: 0 });
  return new Response(stream, res);
}
