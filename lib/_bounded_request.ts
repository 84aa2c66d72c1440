// ctx.req with its body bounded by ctx.bodyLimit: a request whose body methods (text(),
// formData(), json(), arrayBuffer(), blob(), bytes()) and `body` stream read through the limit,
// failing with a 413 HttpError once more bytes than the limit arrived, as ctx.body() does. The
// request keeps its identity and its signal: only its prototype changes, to one that sits in
// front of the runtime's own (one such prototype per request class).
import type { HttpError } from "./http/http_error.ts";
import { tooLarge } from "./http/read_limited.ts";

/** What a bounded request reads its limit from (the Context, whose limit bodyLimit() sets). */
export interface LimitSource {
  readonly bodyLimit: number;
}

const SOURCE: unique symbol = Symbol("weft.limitSource");
const STATE: unique symbol = Symbol("weft.limitedBody");

interface BoundedRequest extends Request {
  [SOURCE]: LimitSource;
  [STATE]?: { stream: ReadableStream<Uint8Array> | null; error: HttpError | undefined };
}

const METHODS = ["arrayBuffer", "blob", "bytes", "formData", "json", "text"] as const;
const PROTOTYPES = /* @__PURE__ */ new WeakMap<object, object>();

function bodyGetter(proto: object): () => ReadableStream<Uint8Array> | null {
  for (let p: object | null = proto; p !== null; p = Object.getPrototypeOf(p)) {
    const getter = Object.getOwnPropertyDescriptor(p, "body")?.get;
    if (getter !== undefined) return getter as () => ReadableStream<Uint8Array> | null;
  }
  throw new TypeError("Cannot bound the request body: the request has no body getter");
}

// The body stream, read through the limit; made on first use.
function limited(
  request: BoundedRequest,
  original: () => ReadableStream<Uint8Array> | null,
): NonNullable<BoundedRequest[typeof STATE]> {
  let state = request[STATE];
  if (state !== undefined) return state;
  const source = original.call(request);
  state = request[STATE] = { stream: null, error: undefined };
  if (source === null) return state;
  const owner = request[SOURCE];
  const own = state;
  let reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
  let total = 0;
  own.stream = new ReadableStream<Uint8Array>({
    async pull(controller) {
      reader ??= source.getReader();
      const { done, value } = await reader.read();
      if (done) return controller.close();
      total += value.byteLength;
      const limit = owner.bodyLimit;
      if (total > limit) {
        reader.cancel().catch(() => {});
        controller.error(own.error = tooLarge(limit));
        return;
      }
      controller.enqueue(value);
    },
    cancel(reason) {
      return reader === undefined ? source.cancel(reason) : reader.cancel(reason);
    },
    // No read-ahead: on Deno a body locked by a reader keeps its connection open until the
    // reader is garbage-collected, so nothing is read or locked before the application reads.
  }, { highWaterMark: 0 });
  return state;
}

function boundedPrototype(base: object): object {
  let proto = PROTOTYPES.get(base);
  if (proto !== undefined) return proto;
  const original = bodyGetter(base);
  const members: PropertyDescriptorMap = {
    body: {
      get(this: BoundedRequest) {
        return limited(this, original).stream;
      },
      configurable: true,
    },
  };
  for (const name of METHODS) {
    members[name] = {
      value: async function (this: BoundedRequest) {
        const state = limited(this, original);
        const type = this.headers.get("content-type");
        const copy = new Response(
          state.stream,
          type === null ? {} : { headers: { "content-type": type } },
        );
        try {
          return await (copy[name] as () => Promise<unknown>)();
        } catch (error) {
          throw state.error ?? error;
        }
      },
      writable: true,
      configurable: true,
    };
  }
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
