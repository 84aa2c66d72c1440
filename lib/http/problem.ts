/**
 * RFC 9457 problem details: the body of every error response Weft builds.
 *
 * @module
 */
import { STATUS_TEXT } from "./status.ts";

/** An RFC 9457 problem object; extension members are allowed. */
export interface ProblemDetails {
  /** A URI reference identifying the problem type; `"about:blank"` by default. */
  type?: string;
  /** A short summary of the problem type; the status's reason phrase by default. */
  title?: string;
  /** The HTTP status code. */
  status: number;
  /** An explanation specific to this occurrence. */
  detail?: string;
  /** A URI reference identifying this occurrence. */
  instance?: string;
  /** Extension members (RFC 9457 §3.2). */
  [extension: string]: unknown;
}

/**
 * Builds an `application/problem+json` response (RFC 9457).
 *
 * @param problem The problem; `type` defaults to `"about:blank"`, `title` to the reason phrase.
 * @param headers Extra response headers (for example `Allow` or `WWW-Authenticate`).
 * @returns A response with mutable headers.
 *
 * @example
 * ```ts
 * import { problem } from "./problem.ts";
 * import assert from "node:assert/strict";
 *
 * const res = problem({ status: 404, detail: "No route matches /nope" });
 * assert.equal(res.status, 404);
 * assert.equal(res.headers.get("content-type"), "application/problem+json");
 * assert.equal((await res.json()).title, "Not Found");
 * ```
 */
export function problem(problem: ProblemDetails, headers?: HeadersInit): Response {
  const body = {
    type: "about:blank",
    title: STATUS_TEXT[problem.status] ?? "Error",
    ...problem,
  };
  const res = new Response(JSON.stringify(body), { status: problem.status, headers });
  res.headers.set("content-type", "application/problem+json");
  return res;
}
