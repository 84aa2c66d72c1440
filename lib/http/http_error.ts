/**
 * `HttpError`: thrown anywhere in a handler or middleware to answer with a chosen status.
 *
 * @module
 */
import { problem, type ProblemDetails } from "./problem.ts";

/** Options of {@linkcode HttpError}. */
export interface HttpErrorOptions {
  /** Extra response headers (for example `WWW-Authenticate`). */
  headers?: HeadersInit;
  /** Extension members of the problem body, or a replacement `type`/`title`. */
  problem?: Omit<ProblemDetails, "status" | "detail">;
  /** The underlying error, kept for logging; never sent to the client. */
  cause?: unknown;
}

/**
 * An error that becomes an RFC 9457 problem response with its status when thrown in a handler
 * or middleware.
 *
 * @example
 * ```ts
 * import { HttpError } from "./http_error.ts";
 * import assert from "node:assert/strict";
 *
 * const res = new HttpError(409, "The name is taken").toResponse();
 * assert.equal(res.status, 409);
 * assert.equal((await res.json()).detail, "The name is taken");
 * ```
 */
export class HttpError extends Error {
  /** The response status (400–599). */
  readonly status: number;
  /** Extra response headers. */
  readonly headers: HeadersInit | undefined;
  /** Extra problem members. */
  readonly problem: Omit<ProblemDetails, "status" | "detail"> | undefined;

  /**
   * Creates an error that answers with `status`.
   *
   * @param status An HTTP status code from 400 to 599.
   * @param detail A human-readable explanation sent as the problem's `detail`.
   * @param options Headers, problem members and the cause.
   */
  constructor(status: number, detail?: string, options?: HttpErrorOptions);
  constructor(status: number, detail?: string, options: HttpErrorOptions = {}) {
    if (!Number.isInteger(status) || status < 400 || status > 599) {
      throw new RangeError(`Cannot create HttpError: status ${status} is not in 400-599`);
    }
    super(detail ?? `HTTP ${status}`, { cause: options.cause });
    this.name = "HttpError";
    this.status = status;
    this.headers = options.headers;
    this.problem = options.problem;
  }

  /** Builds the problem response for this error. */
  toResponse(): Response {
    return problem({ ...this.problem, status: this.status, detail: this.message }, this.headers);
  }
}
