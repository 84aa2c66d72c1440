/**
 * `requestId()`: one id per request, taken from a valid incoming `X-Request-Id` or generated,
 * echoed on the response and written by `logger()`.
 *
 * @module
 */
import type { Context } from "../context.ts";
import type { Middleware } from "../types.ts";

/** The variable {@linkcode requestId} sets: the request's id. */
export interface RequestIdVariables {
  /** The id taken from the request or generated. */
  "request.id": string;
}
import { REQUEST_ID_KEY } from "./_keys.ts";

export { REQUEST_ID_KEY };

/** Options of {@linkcode requestId}. */
export interface RequestIdOptions {
  /**
   * The request and response header.
   *
   * @default {"x-request-id"}
   */
  header?: string;
  /**
   * The longest incoming id accepted; a longer one is replaced.
   *
   * @default {128}
   */
  maxLength?: number;
  /**
   * Makes a new id: letters, digits and `._:+/=-` only, as an incoming id must be (another
   * makes the request a reported 500 whose `TypeError` says what `generate()` returned).
   *
   * @default {() => crypto.randomUUID()}
   */
  generate?: (ctx: Context) => string;
  /**
   * Whether an incoming id is used at all (turn off when clients are not trusted to choose).
   *
   * @default {true}
   */
  trustIncoming?: boolean;
}

// Letters, digits and the punctuation of UUIDs, ULIDs, base64 and trace ids: nothing that
// could end a log field or a header.
const SAFE_ID = /^[A-Za-z0-9._:+/=-]+$/;

/**
 * Reads the request's id.
 *
 * @param ctx The request context.
 * @returns The id, or `undefined` when no `requestId()` middleware ran.
 *
 * @example
 * ```ts
 * import { chain, get, router } from "../../mod.ts";
 * import { getRequestId, requestId } from "./request_id.ts";
 * import assert from "node:assert/strict";
 *
 * const app = chain([requestId()], router([get("/", (ctx) => ctx.json({ id: getRequestId(ctx) }))]));
 * const res = await app.fetch(new Request("http://localhost/", { headers: { "x-request-id": "abc-123" } }));
 * assert.deepEqual(await res.json(), { id: "abc-123" });
 * assert.equal(res.headers.get("x-request-id"), "abc-123");
 * ```
 */
export function getRequestId(
  ctx: { readonly var: RequestIdVariables | object },
): string | undefined {
  return (ctx.var as Partial<RequestIdVariables>)[REQUEST_ID_KEY];
}

/**
 * Gives every request an id: the incoming `X-Request-Id` when it is 1 to `maxLength`
 * characters of letters, digits and `._:+/=-`, otherwise a new UUID. The id is stored (read
 * it with {@linkcode getRequestId}), set on the response and written by `logger()` when
 * `logger()` comes before this middleware in the chain.
 *
 * @param options The header, the length limit and the generator.
 * @returns The middleware.
 * @throws {TypeError} When the header is not a header name or `maxLength` not a positive
 * integer.
 *
 * @example
 * ```ts
 * import { chain, get, logger, router } from "../../mod.ts";
 * import { requestId } from "./request_id.ts";
 * import assert from "node:assert/strict";
 *
 * const lines: string[] = [];
 * const app = chain(
 *   [logger({ format: "json", sink: (line) => lines.push(line) }), requestId()],
 *   router([get("/", () => new Response("hi"))]),
 * );
 * const res = await app.fetch(new Request("http://localhost/", { headers: { "x-request-id": "bad id\n" } }));
 * const id = res.headers.get("x-request-id")!;
 * assert.match(id, /^[0-9a-f-]{36}$/);
 * assert.equal(JSON.parse(lines[0]).requestId, id);
 * ```
 */
export function requestId(options: RequestIdOptions = {}): Middleware<RequestIdVariables> {
  const header = options.header ?? "x-request-id";
  if (!/^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/.test(header)) {
    throw new TypeError(`Cannot create requestId(): "${header}" is not a header name`);
  }
  const maxLength = options.maxLength ?? 128;
  if (!Number.isInteger(maxLength) || maxLength < 1) {
    throw new TypeError("Cannot create requestId(): maxLength must be a positive integer");
  }
  const generate = options.generate ?? (() => crypto.randomUUID());
  const trust = options.trustIncoming ?? true;

  return async function requestId(ctx, next) {
    const incoming = trust ? ctx.header(header) : null;
    let id = incoming;
    if (id === null || id.length > maxLength || !SAFE_ID.test(id)) {
      id = generate(ctx);
      // held to the rule of incoming ids, so that no id can end a log field or break the header
      if (typeof id !== "string" || !SAFE_ID.test(id)) {
        throw new TypeError(
          `requestId(): generate() returned ${
            JSON.stringify(id)
          }, not letters, digits and ._:+/=- only`,
        );
      }
    }
    ctx.set(REQUEST_ID_KEY, id);
    ctx.setHeader(header, id);
    return await next();
  };
}
