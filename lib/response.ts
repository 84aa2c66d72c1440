/**
 * Response helpers: `response(ctx, status, body)` and the body values `html()`, `text()` and
 * `jsonText()`.
 *
 * @module
 */
import type { Context } from "./context.ts";

/** A body with its media type, made by {@linkcode html}, {@linkcode text} or {@linkcode jsonText}. */
export interface TypedBody {
  /** The payload. */
  readonly body: BodyInit | null;
  /** The `Content-Type` it goes out with. */
  readonly type: string;
}

/**
 * An HTML body value.
 *
 * @param markup The HTML text.
 * @returns A body typed `text/html; charset=utf-8`.
 */
export function html(markup: string): TypedBody {
  return { body: markup, type: "text/html; charset=utf-8" };
}

/**
 * A plain-text body value.
 *
 * @param value The text.
 * @returns A body typed `text/plain; charset=utf-8`.
 */
export function text(value: string): TypedBody {
  return { body: value, type: "text/plain; charset=utf-8" };
}

/**
 * A body value for JSON text that is already serialized (use `ctx.json(value)` for values).
 *
 * @param json The JSON text.
 * @returns A body typed `application/json`.
 */
export function jsonText(json: string): TypedBody {
  return { body: json, type: "application/json" };
}

function isTypedBody(body: unknown): body is TypedBody {
  return typeof body === "object" && body !== null && "type" in body && "body" in body;
}

/**
 * Builds a response that inherits the headers set on `ctx.res`.
 *
 * @param ctx The request context.
 * @param status The status code.
 * @param body A typed body from {@linkcode html}, {@linkcode text} or {@linkcode jsonText}, any
 * `BodyInit`, or `null`.
 * @returns A response with mutable headers.
 *
 * @example
 * ```ts
 * import { Context } from "./context.ts";
 * import { html, response } from "./response.ts";
 * import assert from "node:assert/strict";
 *
 * const ctx = new Context(new Request("http://localhost/"));
 * ctx.setHeader("x-request-id", "42");
 * const res = response(ctx, 200, html("<h1>Hi</h1>"));
 * assert.equal(res.headers.get("content-type"), "text/html; charset=utf-8");
 * assert.equal(res.headers.get("x-request-id"), "42");
 * ```
 */
export function response(
  ctx: Context,
  status: number,
  body: TypedBody | BodyInit | null,
): Response {
  return isTypedBody(body)
    ? ctx.respond(body.body, body.type, status)
    : ctx.respond(body, null, status);
}
