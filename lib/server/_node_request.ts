// A Node request as a Web `Request`, built lazily: the request half of lib/server/node.ts.
import type { Buffer } from "node:buffer";
import type * as http from "node:http";
import { delegate } from "./_node_delegate.ts";
import { findHeader, NodeHeaders, realHeaders } from "./_node_headers.ts";
import { REQUEST_TARGET } from "./types.ts";

/** The request line and header block of a request, as the adapter read them. */
export interface RequestHead {
  method: string;
  /** The absolute URL. */
  url: string;
  /** The request target as sent, when it is in origin form (path and query). */
  target: string | undefined;
  /** Node's raw header list: names and values, alternating. */
  raw: string[];
  http2: boolean;
}

/** Where a request body comes from: node:http's request, or an HTTP/2 stream. */
export interface BodySource {
  on(event: "data", fn: (chunk: Buffer) => void): unknown;
  once(event: "end" | "close", fn: () => void): unknown;
  once(event: "error", fn: (error: unknown) => void): unknown;
  pause(): unknown;
  resume(): unknown;
  /** node:http's flag: the whole message arrived. */
  readonly complete?: boolean;
  readonly readableEnded: boolean;
  /** node:http's connection (an HTTP/2 stream has none here). */
  readonly socket?: {
    once(event: "close", fn: () => void): unknown;
    off(event: "close", fn: () => void): unknown;
  } | null;
}

/** What ends a request early: Node's response, the HTTP/2 stream or, for an upgrade, the socket. */
export interface Closable {
  once(event: "close", fn: () => void): unknown;
  readonly destroyed: boolean;
  readonly writableFinished?: boolean;
}

const HEAD = Symbol("weft.head");
const INPUT = Symbol("weft.input");
const CLOSER = Symbol("weft.closer");
const HEADERS = Symbol("weft.headers");
const BODY = Symbol("weft.body");
const REAL = Symbol("weft.real");
const CONTROLLER = Symbol("weft.controller");

/**
 * A `Request` whose method, URL, headers, body and signal come straight from Node's request;
 * anything else (`json()`, `clone()`, `new Request(request)` …) builds the real `Request` once
 * and delegates to it. Building a `Request` costs more than the rest of a small request in
 * Node (undici parses the URL, copies the headers and wires an `AbortSignal`), so routing on
 * method and path never builds one.
 */
class NodeRequest {
  // Declared only: the constructor assigns each once (no per-instance field definitions, which
  // keep V8 from inlining the construction).
  declare [HEAD]: RequestHead;
  declare [INPUT]: BodySource | null;
  declare [CLOSER]: Closable;
  declare [HEADERS]: NodeHeaders | undefined;
  declare [BODY]: ReadableStream<Uint8Array> | null | undefined;
  declare [REAL]: Request | undefined;
  declare [CONTROLLER]: AbortController | undefined;
  declare [REQUEST_TARGET]: string | undefined;

  constructor(head: RequestHead, input: BodySource | null, closer: Closable) {
    this[REQUEST_TARGET] = head.target;
    this[HEAD] = head;
    this[INPUT] = input;
    this[CLOSER] = closer;
    this[HEADERS] = undefined;
    this[BODY] = undefined;
    this[REAL] = undefined;
    this[CONTROLLER] = undefined;
  }

  get method(): string {
    return this[HEAD].method;
  }

  get url(): string {
    return this[HEAD].url;
  }

  get headers(): Headers {
    if (this[REAL] !== undefined) return this[REAL].headers;
    const head = this[HEAD];
    return (this[HEADERS] ??= new NodeHeaders(head.raw, head.http2)) as unknown as Headers;
  }

  get body(): ReadableStream<Uint8Array> | null {
    if (this[REAL] !== undefined) return this[REAL].body;
    if (this[BODY] === undefined) {
      const input = this[INPUT];
      this[BODY] = input === null ? null : bodyOf(input);
    }
    return this[BODY];
  }

  get signal(): AbortSignal {
    return abortControllerOf(this).signal;
  }
}

// The real Request, built once, which owns the body and signal from then on.
function realRequest(request: NodeRequest): Request {
  if (request[REAL] !== undefined) return request[REAL];
  const body = request.body;
  return request[REAL] = new Request(request[HEAD].url, {
    method: request.method,
    headers: realHeaders(request.headers),
    body,
    signal: request.signal,
    ...(body === null ? {} : { duplex: "half" }),
  } as RequestInit);
}

function abortControllerOf(request: NodeRequest): AbortController {
  let controller = request[CONTROLLER];
  if (controller === undefined) {
    const created = controller = request[CONTROLLER] = new AbortController();
    const closer = request[CLOSER];
    const abort = () => {
      if (closer.writableFinished !== true) created.abort(new Error("The client went away"));
    };
    if (closer.destroyed) abort();
    else closer.once("close", abort);
  }
  return controller;
}

// Every other member of Request.prototype delegates to the real Request; so do undici's
// internal slots (own symbols of a Request), which is what makes `new Request(request)` and
// `fetch(request)` accept a NodeRequest. When the slots are not reachable (a Node whose undici
// keeps them in private fields), LAZY is false and every request is built eagerly instead.
delegate(
  NodeRequest.prototype,
  Request.prototype,
  realRequest,
  Object.getOwnPropertySymbols(new Request("http://localhost/")),
);

const LAZY = (() => {
  try {
    const probe = new NodeRequest(
      {
        method: "GET",
        url: "http://localhost/probe",
        target: undefined,
        raw: ["x-probe", "1"],
        http2: false,
      },
      null,
      { once() {}, destroyed: false },
    ) as unknown as Request;
    const copy = new Request(probe, { headers: { "x-copy": "2" } });
    return copy.url === "http://localhost/probe" && copy.method === "GET" &&
      copy.headers.get("x-copy") === "2" && probe instanceof Request;
  } catch {
    return false;
  }
})();

/**
 * Whether undici's slots are reachable, so requests are lazy. Read by
 * tests/node/internals.test.ts only (bundlers drop it).
 */
export function lazyRequestsLive(): boolean {
  return LAZY;
}

/**
 * The Web `Request` of a Node request, its body read from `input` (`null`: it has none): lazy
 * where Node's undici allows it, built at once otherwise. Throws when the request cannot be
 * represented (undici refuses its method or URL).
 */
export function toRequest(head: RequestHead, input: BodySource | null, closer: Closable): Request {
  const request = new NodeRequest(head, input, closer);
  return LAZY ? request as unknown as Request : realRequest(request);
}

/** Whether a node:http request has a body, by its method and framing headers. */
export function hasBody(incoming: http.IncomingMessage, method: string): boolean {
  if (method === "GET" || method === "HEAD") return false;
  // The raw list: node:http builds `incoming.headers` only when asked.
  const raw = incoming.rawHeaders;
  const length = findHeader(raw, "content-length");
  return findHeader(raw, "transfer-encoding") !== null ||
    (length !== null && length !== "0");
}

// The request body as a byte stream: Node's stream pauses whenever the Web stream holds 64 KiB
// unread and resumes when it is pulled, so a slow reader slows the client down. Nothing is
// taken from Node's stream before the first read (no 'data' listener, no read-ahead): a body
// whose stream was made and never read is one node:http discards once the response is done,
// as it discards a body nobody asked for; taking from it would leave it paused, unread, and
// the keep-alive connection stuck behind it.
function bodyOf(input: BodySource): ReadableStream<Uint8Array> {
  let settled = false;
  let flowing = false;
  return new ReadableStream<Uint8Array>({
    start(controller) {
      const fail = (error?: unknown) => {
        if (settled) return;
        settled = true;
        controller.error(error ?? new Error("The client closed the connection mid-body"));
      };
      input.once("end", () => {
        // node:http ends a request it discards (its response has finished) whatever arrived,
        // and one nobody read
        if (!flowing || input.complete === false) return fail();
        if (settled) return;
        settled = true;
        controller.close();
      });
      input.once("error", fail);
      const cut = () => {
        if (!(input.complete ?? input.readableEnded)) fail();
      };
      input.once("close", cut);
      // node:http stops watching a request once its response has finished: a client that then
      // leaves mid-body closes the connection without a 'close' here, and a read (a handler
      // still reading after timeout() answered) would wait for ever.
      const socket = input.socket;
      if (socket) {
        socket.once("close", cut);
        input.once("end", () => socket.off("close", cut)); // one listener per request at most
      }
    },
    pull(controller) {
      if (!flowing) {
        flowing = true;
        input.on("data", (chunk: Buffer) => {
          if (settled) return;
          controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
          if ((controller.desiredSize ?? 0) <= -65_536) input.pause();
        });
      }
      input.resume();
    },
    cancel() {
      // Discard the rest; Node keeps the connection usable (HTTP/1.1) or resets the stream.
      settled = true;
      input.resume();
    },
  }, new ByteLengthQueuingStrategy({ highWaterMark: 0 }));
}
