// Writing a Web `Response` onto Node's response: the response half of lib/server/node.ts.
//
// The head goes out in one writeHead() call with a flat [name, value, …] list (node:http takes
// it as it is; the HTTP/2 writer of _node_h2_stream.ts turns it into one respond(), leaving out
// the connection-specific fields HTTP/2 forbids). A body that is a string or bytes goes out in
// one end() with its Content-Length; a stream is read and written with backpressure by
// _node_pipe.ts, loaded on the first streamed body.
import { Buffer } from "node:buffer";
import {
  HEADERS,
  isNodeResponse,
  JSON_HEADERS,
  NativeResponse,
  PLAIN,
  REAL,
  SOURCE,
  STATUS,
  TEXT_TYPE,
} from "./_node_response.ts";
import type { Head, Reporter, Writer } from "./_node_writer.ts";
import { lazy } from "./_node_lazy.ts";

export type { Head, Reporter, Writer } from "./_node_writer.ts";

// What the two head builders found among the fields they copied.
const TYPED = 1; // a Content-Type
const LENGTH = 2; // a Content-Length

// The head builders leave out a Transfer-Encoding the response carries (one copied from a
// proxied response, say): the framing is the server's, a Content-Length or node:http's chunked
// coding, and node:http given both would send both (RFC 9112 §6.2: never both).
const FRAMING = "transfer-encoding";

// Returns LENGTH when the headers carry a Content-Length, 0 otherwise.
function headFromHeaders(headers: Headers, head: Head): number {
  let found = 0;
  // Iteration yields names in lower case, values combined, and each Set-Cookie on its own.
  for (const [name, value] of headers) {
    if (name === "content-length") found = LENGTH;
    else if (name === FRAMING) continue;
    head.push(name, value);
  }
  return found;
}

// Headers given as a plain object (validated by the NodeResponse constructor); returns TYPED
// and LENGTH for the fields among them.
function headFromPlain(plain: Record<string, unknown>, head: Head): number {
  let found = 0;
  for (const key in plain) {
    const name = key.toLowerCase();
    if (name === "content-type") found |= TYPED;
    else if (name === "content-length") found |= LENGTH;
    else if (name === FRAMING) continue;
    const value = plain[key];
    head.push(name, typeof value === "string" ? value : String(value));
  }
  return found;
}

// Node's undici keeps the source a Response body was made from (a string or bytes) in an
// internal slot. Where that slot is reachable (found by probing, once), such a body of a
// Response made by Node's own class goes out in one write too; anywhere else the stream path
// does the same job.
const RESPONSE_STATE: symbol | undefined = (() => {
  try {
    const probe = new NativeResponse("weft");
    for (const key of Object.getOwnPropertySymbols(probe)) {
      const state = (probe as unknown as Record<symbol, { body?: BodyState }>)[key];
      if (state?.body?.source === "weft" && state.body.stream instanceof ReadableStream) {
        return key;
      }
    }
  } catch {
    // no fast path
  }
  return undefined;
})();

/**
 * Whether the body-source slot was found, so such bodies take the one-write path. Read by
 * tests/node/internals.test.ts only (bundlers drop it).
 */
export function bodySourceLive(): boolean {
  return RESPONSE_STATE !== undefined;
}

interface BodyState {
  source: unknown;
  stream: ReadableStream<Uint8Array>;
}

function sourceOf(response: Response): string | Uint8Array | undefined {
  if (RESPONSE_STATE === undefined) return undefined;
  const body = (response as unknown as Record<symbol, { body?: BodyState } | undefined>)[
    RESPONSE_STATE
  ]?.body;
  if (body === undefined || body === null || body.stream.locked || response.bodyUsed) {
    return undefined;
  }
  const source = body.source;
  return typeof source === "string" || source instanceof Uint8Array ? source : undefined;
}

/**
 * The string or bytes a response was made from, while nothing has touched its body: the
 * source of Weft's light response, or of a Response made by Node's own class where its slot is
 * reachable. compress() takes it whole, without building a real Response and its stream.
 */
export function bodyAtHand(response: Response): Uint8Array | string | undefined {
  if (!isNodeResponse(response)) return sourceOf(response);
  if (response[REAL] !== undefined) return undefined;
  const source = response[SOURCE];
  return typeof source === "string" || source instanceof Uint8Array ? source : undefined;
}

/**
 * Writes `response` to Node's response. Never throws: a response that cannot be written (a
 * header Node refuses) becomes an empty 500, or a reset once the head is out.
 */
export function send(
  response: Response,
  res: Writer,
  method: string,
  closing: boolean,
  reporter?: Reporter,
): void {
  try {
    write(response, res, method, closing, reporter);
  } catch {
    fail(res);
  }
}

function write(
  response: Response,
  res: Writer,
  method: string,
  closing: boolean,
  reporter: Reporter | undefined,
): void {
  // 0. the common case, its head made in one piece: a light response with a string body and no
  //    header but the type that body implies (text, or JSON from Response.json()); its status is
  //    one that has a body (the constructor refuses a body with any other)
  if (
    isNodeResponse(response) && response[REAL] === undefined &&
    response[HEADERS] === undefined && !closing && method !== "HEAD"
  ) {
    const plain = response[PLAIN];
    const source = response[SOURCE];
    if (typeof source === "string" && (plain === undefined || plain === JSON_HEADERS)) {
      res.writeHead(response[STATUS], [
        "content-type",
        plain === undefined ? TEXT_TYPE : "application/json",
        "content-length",
        `${Buffer.byteLength(source)}`,
      ]);
      res.end(source);
      return;
    }
  }
  const status = response.status;
  // (HTTP/2 forbids this field: its writer leaves it out.)
  const head: Head = closing ? ["connection", "close"] : [];
  let found = 0; // TYPED and LENGTH, from the head builders
  let body: string | Uint8Array | null | undefined;
  let stream: ReadableStream<Uint8Array> | null = null;
  // 1. the head, and the body as given where it is at hand
  if (isNodeResponse(response) && response[REAL] === undefined) {
    const source = response[SOURCE];
    const headers = response[HEADERS];
    if (headers !== undefined) found = headFromHeaders(headers, head);
    else {
      const plain = response[PLAIN];
      if (plain === JSON_HEADERS) head.push("content-type", "application/json");
      else {
        if (plain !== undefined) found = headFromPlain(plain, head);
        if ((found & TYPED) === 0 && typeof source === "string") {
          head.push("content-type", TEXT_TYPE);
        }
      }
    }
    if (source instanceof ReadableStream) stream = source;
    else body = source;
  } else {
    found = headFromHeaders(response.headers, head);
    body = isNodeResponse(response) ? undefined : sourceOf(response);
    if (body === undefined) stream = response.body;
  }
  // 2. no body: HEAD, 1xx, 204, 304
  if (method === "HEAD" || status < 200 || status === 204 || status === 304) {
    stream?.cancel().catch(() => {});
    // RFC 9110 §8.6: a 1xx or 204 has none (a HEAD's or a 304's is the GET's, kept)
    if (status < 200 || status === 204) removeLength(head);
    res.writeHead(status, head);
    res.end();
    return;
  }
  // 3. a string, bytes or nothing: one write, with its Content-Length (writeHead fixes the
  //    head, so Node would otherwise fall back to chunked encoding); a Content-Length the app
  //    set is replaced by the body's own, as Deno.serve does, since a wrong one would make the
  //    client read the next response as part of this body
  if (stream === null) {
    const length = body == null
      ? "0"
      : `${typeof body === "string" ? Buffer.byteLength(body) : body.byteLength}`;
    if ((found & LENGTH) !== 0) removeLength(head);
    head.push("content-length", length);
    res.writeHead(status, head);
    // node:http sends the head of a string body in one piece with it, as UTF-8, where it sends
    // any other head as Latin-1, the bytes a Headers value stands for (as Deno does): a realm
    // "café" went out as "cafÃ©". Such a head goes with the body as bytes.
    if (body == null) res.end();
    else if (typeof body !== "string" || !/[\x80-\xff]/.test(head + "")) res.end(body);
    else res.end(Buffer.from(body));
    return;
  }
  // 4. a stream, by _node_pipe.ts, which loads on the first streamed body
  const length = (found & LENGTH) !== 0;
  const module = pipes.value;
  if (module !== undefined) {
    module.pipe(res, status, head, length, stream, fail, reporter).catch(() => fail(res));
    return;
  }
  let gone = false; // the client left while the module loaded
  const leave = () => gone = true;
  res.once("close", leave);
  pipes.load().then(({ pipe }) => {
    res.off("close", leave);
    if (gone) stream.cancel().catch(() => {});
    else pipe(res, status, head, length, stream, fail, reporter).catch(() => fail(res));
  }, () => {
    stream.cancel().catch(() => {});
    fail(res);
  });
}

const pipes = lazy("the body pipe", () => import("./_node_pipe.ts"));

function fail(res: Writer): void {
  try {
    if (res.headersSent) res.destroy();
    else {
      res.writeHead(500, ["content-length", "0"]);
      res.end();
    }
  } catch {
    res.destroy();
  }
}

function removeLength(head: Head): void {
  for (let i = head.length - 2; i >= 0; i -= 2) {
    if (head[i] === "content-length") head.splice(i, 2);
  }
}
