// One call of the typed client: the request written from a pattern and an input, and the
// answer read into { ok, status, data } or { ok: false, problem }. Only Web APIs (fetch,
// Request, Headers, URLSearchParams), so it runs in Deno, Node and browsers alike.
import type { ProblemDetails, TextValue } from "./types.ts";

/** The input of a call, untyped (the types of weft/client checked it). */
export interface CallInput {
  params?: Record<string, TextValue>;
  query?: Record<string, TextValue | readonly TextValue[] | undefined>;
  headers?: Record<string, TextValue | readonly TextValue[] | undefined>;
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

/** Sends one request and reads its answer; never rejects but for a programmer's mistake. */
export async function call(
  send: (request: Request) => Promise<Response>,
  base: string,
  defaults: RequestInit,
  method: string,
  path: string,
  input: CallInput = {},
): Promise<AnswerAny> {
  // 1. the request (a missing param or a bad base URL is a mistake: it throws)
  const headers = new Headers(defaults.headers);
  for (const [name, value] of new Headers(input.init?.headers)) headers.set(name, value);
  for (const [name, value] of Object.entries(input.headers ?? {})) {
    if (value !== undefined) headers.set(name, texts(value).join(", "));
  }
  let body = input.body;
  if (input.json !== undefined) {
    body = JSON.stringify(input.json);
    headers.set("content-type", "application/json");
  }
  const url = base + fill(path, input.params ?? {}) + search(input.query ?? {});
  const request = new Request(url, { ...defaults, ...input.init, method, headers, body });
  // 2. the answer
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

// "/notes/:id/files/*rest" with { id: 7, rest: "a/b c" } → "/notes/7/files/a/b%20c".
function fill(pattern: string, params: Record<string, TextValue>): string {
  return pattern.split("/").map((segment) => {
    const sigil = segment[0];
    if (sigil !== ":" && sigil !== "*") return segment;
    const name = segment.slice(1);
    const value = params[name];
    if (value === undefined) {
      throw new TypeError(`Cannot call "${pattern}": the param "${name}" is missing`);
    }
    const parts = sigil === "*" ? String(value).split("/") : [String(value)];
    // A URL resolves "." and ".." segments (and their escapes) away: such a value cannot be sent.
    if (parts.some((part) => part === "." || part === "..")) {
      throw new TypeError(`Cannot call "${pattern}": the param "${name}" is a dot segment`);
    }
    return parts.map(encodeURIComponent).join("/");
  }).join("/");
}

function search(query: NonNullable<CallInput["query"]>): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value !== undefined) { for (const text of texts(value)) params.append(key, text); }
  }
  const text = params.toString();
  return text === "" ? "" : `?${text}`;
}

async function read(response: Response): Promise<AnswerAny> {
  const { ok, status } = response;
  const media = (response.headers.get("content-type") ?? "").split(";")[0].trim().toLowerCase();
  const isProblem = media === "application/problem+json";
  if (!isProblem && media !== "application/json" && !media.endsWith("+json")) {
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
  return {
    ok: false,
    status,
    problem: {
      ...problem,
      type: problem.type ?? "about:blank",
      title: problem.title ?? "",
      status,
    },
    response,
  };
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
