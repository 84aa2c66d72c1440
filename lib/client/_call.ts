// One call of the typed client: the request written from a pattern and an input, and the
// answer read into { ok, status, data } or { ok: false, problem }. Only Web APIs (fetch,
// Request, Headers, URLSearchParams), so it runs in Deno, Node and browsers alike.
import { STATUS_TEXT } from "../http/status.ts";
import type { ProblemDetails, TextValue } from "./types.ts";

/** The input of a call, untyped (the types of weft/client checked it). */
export interface CallInput {
  params?: Record<string, TextValue>;
  query?: Record<string, TextValue | readonly TextValue[] | null | undefined>;
  headers?: Record<string, TextValue | readonly TextValue[] | null | undefined>;
  json?: unknown;
  body?: BodyInit | null;
  init?: RequestInit;
}

/** An answer, untyped. */
export interface AnswerAny {
  ok: boolean;
  status: number;
  data?: unknown;
  problem?: ProblemDetails;
  response?: Response;
}

/**
 * Sends one request and reads its answer; never rejects but for a programmer's mistake: a param
 * that is missing, empty or a dot segment (docs/client.md lists these).
 */
export async function call(
  send: (request: Request) => Promise<Response>,
  base: string,
  defaults: RequestInit,
  method: string,
  path: string,
  input: CallInput = {},
): Promise<AnswerAny> {
  // 1. the params: one that cannot fill the pattern is a mistake, and throws
  const segments = fill(path, input.params ?? {});
  // 2. the request. Building it throws for values that cannot be sent (a header value that is
  // not a ByteString, a param with a lone surrogate, a body JSON.stringify refuses, a base URL
  // that does not parse): like a request that fails, that is a status-0 problem, not a throw.
  let request: Request;
  try {
    const headers = new Headers(defaults.headers);
    for (const [name, value] of new Headers(input.init?.headers)) headers.set(name, value);
    for (const [name, value] of Object.entries(input.headers ?? {})) {
      if (value !== undefined && value !== null) headers.set(name, texts(value).join(", "));
    }
    let body = input.body;
    if (input.json !== undefined) {
      body = JSON.stringify(input.json);
      headers.set("content-type", "application/json");
    }
    const url = base + encode(segments) + search(input.query ?? {});
    const init: RequestInit & { duplex?: "half" } = {
      ...defaults,
      ...input.init,
      method,
      headers,
      body,
    };
    // Fetch requires `duplex: "half"` with a stream body; Node's fetch enforces it (a
    // TypeError), Deno's does not
    if (typeof ReadableStream === "function" && body instanceof ReadableStream) {
      init.duplex = "half";
    }
    request = new Request(url, init);
  } catch (error) {
    return failure(0, "The request could not be written", error);
  }
  // 3. the answer
  let response: Response;
  try {
    response = await send(request);
  } catch (error) {
    return failure(0, "The request failed", error);
  }
  return await read(response);
}

function texts(value: TextValue | readonly TextValue[]): string[] {
  return (Array.isArray(value) ? value : [value]).map(String);
}

// "/notes/:id/files/*rest" with { id: 7, rest: "a/b c" } → ["", "notes", ["7"], "files",
// ["a", "b c"]]: the pattern's own segments, and each param's text (a wildcard's split at its
// slashes), checked but not yet encoded.
function fill(pattern: string, params: Record<string, TextValue>): (string | string[])[] {
  return pattern.split("/").map((segment) => {
    const sigil = segment[0];
    if (sigil !== ":" && sigil !== "*") return segment;
    const name = segment.slice(1);
    const value = Object.hasOwn(params, name) ? params[name] : undefined; // not "constructor" of {}
    if (value === undefined) {
      throw new TypeError(`Cannot call "${pattern}": the param "${name}" is missing`);
    }
    const parts = sigil === "*" ? String(value).split("/") : [String(value)];
    // An empty segment is another path ("/files//raw"), which a sibling route such as
    // "/files/*path" would answer: it cannot stand for the param.
    if (sigil === ":" && parts[0] === "") {
      throw new TypeError(`Cannot call "${pattern}": the param "${name}" is empty`);
    }
    // A URL resolves "." and ".." segments (and their escapes) away: such a value cannot be sent.
    if (parts.some((part) => part === "." || part === "..")) {
      throw new TypeError(`Cannot call "${pattern}": the param "${name}" is a dot segment`);
    }
    return parts;
  });
}

// The path of fill()'s segments, each param percent-encoded: "/notes/7/files/a/b%20c". Throws a
// URIError for text that is not well-formed UTF-16 (a lone surrogate).
function encode(segments: readonly (string | string[])[]): string {
  return segments.map((segment) =>
    typeof segment === "string" ? segment : segment.map(encodeURIComponent).join("/")
  ).join("/");
}

// The query string; a field that is undefined or null is left out (text carries no null).
function search(query: NonNullable<CallInput["query"]>): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value === undefined || value === null) continue;
    for (const text of texts(value)) params.append(key, text);
  }
  const text = params.toString();
  return text === "" ? "" : `?${text}`;
}

async function read(response: Response): Promise<AnswerAny> {
  const { ok, status } = response;
  const media = (response.headers.get("content-type") ?? "").split(";")[0].trim().toLowerCase();
  const isProblem = media === "application/problem+json";
  if (!isProblem && media !== "application/json" && !media.endsWith("+json")) {
    // An error that is not JSON (a proxy's HTML 502, a plain-text 500) was declared by no
    // route: it is a problem, so that `if (res.problem)` covers it before `res.data` is read
    // (its body is left in `response`). A 3xx (a 304 to a conditional request, a redirect
    // not followed) is an answer, not an error.
    if (!ok && (status < 300 || status >= 400)) {
      return {
        ok,
        status,
        problem: { type: "about:blank", title: phrase(response), status },
        response,
      };
    }
    return { ok, status, data: undefined, response };
  }
  let value: unknown;
  try {
    const text = await response.text();
    value = text === "" ? undefined : JSON.parse(text);
  } catch (error) {
    return failure(status, "The response body is not valid JSON", error, response);
  }
  if (!isProblem) return { ok, status, data: value, response };
  const problem = typeof value === "object" && value !== null && !Array.isArray(value)
    ? value as Partial<ProblemDetails>
    : {};
  // RFC 9457 §3.1: a problem without a type is "about:blank", whose title is the status's
  // phrase (an empty body, as a HEAD answer has, names neither)
  return {
    ok: false,
    status,
    problem: {
      ...problem,
      type: typeof problem.type === "string" ? problem.type : "about:blank",
      title: typeof problem.title === "string" ? problem.title : phrase(response),
      status,
    },
    response,
  };
}

// The status's reason phrase: the one the response carries, which HTTP/2 and a response made in
// the same process (app.fetch) leave empty, or the standard one (RFC 9110 §15).
function phrase(response: Response): string {
  return response.statusText || (STATUS_TEXT[response.status] ?? "Error");
}

function failure(
  status: number,
  title: string,
  error: unknown,
  response?: Response,
): AnswerAny {
  const detail = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  return { ok: false, status, problem: { type: "about:blank", title, status, detail }, response };
}
