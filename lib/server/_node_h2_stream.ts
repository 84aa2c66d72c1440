// Serving an HTTP/2 stream, and the writer that send() answers it through. Loaded by
// _node_h2.ts on the first stream a server gets (or its first idle session), so that apps served
// over HTTP/1.1 only do not load it, and bundlers that split code put it in a chunk of its own
// (the Node core size budget, scripts/size_check.ts). It imports no value: a chunk that shared
// modules with the entry would split them out of it; what it needs of the eager modules comes
// as a `Serving`.
import type * as http2 from "node:http2";
import type { Socket } from "node:net";
import type { checked, connInfo, handle, ServerState, settle } from "./_node_http.ts";
import type { send } from "./_node_send.ts";
import type { Head, Writer } from "./_node_writer.ts";

/** What serving a stream uses of the eager modules (_node_http.ts and _node_send.ts). */
export interface Serving {
  readonly checked: typeof checked;
  readonly connInfo: typeof connInfo;
  readonly handle: typeof handle;
  readonly settle: typeof settle;
  readonly send: typeof send;
}

/** Serves one stream of a server of `state`: runs the app and writes its answer. */
export function serveStream(
  state: ServerState,
  serving: Serving,
  stream: http2.ServerHttp2Stream,
  headers: http2.IncomingHttpHeaders,
  raw: string[],
): void {
  // node:http2 emits 'stream' a tick after the HEADERS frame: a client that reset the stream in
  // the same packet has destroyed it by now (and the first stream waited for this module too).
  // Its close and end have fired, so its body would never end, and respond() would throw.
  if (stream.destroyed || stream.closed) return;
  count(stream);
  const writer = new StreamWriter(stream);
  const method = headers[":method"] ?? "GET";
  // RFC 9110 §10.1.1, as node:http2's compatibility layer answers Expect.
  const expect = headers.expect;
  if (expect !== undefined) {
    try {
      if (expect.toLowerCase() !== "100-continue") {
        stream.respond({ ":status": 417 }, { endStream: true });
        return;
      }
      stream.additionalHeaders({ ":status": 100 });
    } catch {
      stream.destroy(); // reset meanwhile: nothing can be written to it
      return;
    }
  }
  const { checked, send, settle } = serving;
  const done = (response: Response) => send(response, writer, method, false, state);
  const result = serving.handle(
    state,
    { method, url: headers[":path"] ?? "/", target: undefined, raw, http2: true },
    headers[":authority"] ?? headers.host,
    stream.endAfterHeaders ? null : stream,
    writer,
    serving.connInfo(stream.session?.socket as Socket | undefined, state),
    undefined,
    done,
  );
  if (result instanceof Promise) settle(state, result, done);
  else if (result) done(checked(result));
}

// The number of open streams of a session: node:http2 keeps them in a map on the session's
// internal state (found by probing once); elsewhere the streams served are counted. The map
// is one of Node's own `SafeMap`s, which are no `instanceof Map`: it is known by its `size`.
let streamsKey: symbol | null | undefined;
const counted = new WeakMap<http2.ServerHttp2Session, number>();

interface SessionState {
  streams?: { readonly size?: unknown };
}

function count(stream: http2.ServerHttp2Stream): void {
  const session = stream.session as http2.ServerHttp2Session | undefined;
  if (session === undefined) return;
  if (streamsKey === undefined) probeStreams(session);
  if (streamsKey !== null) return;
  counted.set(session, (counted.get(session) ?? 0) + 1);
  stream.once("close", () => counted.set(session, (counted.get(session) ?? 1) - 1));
}

function openStreams(session: http2.ServerHttp2Session): number {
  if (streamsKey) {
    const size = (session as unknown as Record<symbol, SessionState | undefined>)[streamsKey]
      ?.streams?.size;
    return typeof size === "number" ? size : 0;
  }
  return counted.get(session) ?? 0;
}

function probeStreams(session: http2.ServerHttp2Session): void {
  streamsKey = null;
  for (const key of Object.getOwnPropertySymbols(session)) {
    const state = (session as unknown as Record<symbol, SessionState | undefined>)[key];
    if (key.description === "state" && typeof state?.streams?.size === "number") {
      streamsKey = key;
    }
  }
}

/**
 * Whether the session state's stream map was found (`undefined` before the first stream). Read
 * by tests/node/internals.test.ts only (bundlers drop it).
 */
export function sessionStateLive(): boolean | undefined {
  return streamsKey === undefined ? undefined : streamsKey !== null;
}

/**
 * Destroys the streams of a session that node:http2 has closed but that never end: a response
 * that ends (an event stream at shutdown) as its client vanishes waits for ever for its last
 * write, and holds the session, and so the server's close and shutdown(), open (seen on Node
 * 20.20.2 with two such streams or more, node:http2 alone too). Such a stream can send nothing
 * more; destroying it loses nothing. Run by shutdown()'s sweep (lib/server/node.ts) on every
 * session of the server.
 */
export function dropClosedStreams(sessions: Iterable<http2.ServerHttp2Session>): void {
  for (const session of sessions) {
    if (streamsKey === undefined) probeStreams(session);
    if (!streamsKey) return;
    const streams = (session as unknown as Record<symbol, SessionState | undefined>)[streamsKey]
      ?.streams as { values?: () => Iterable<http2.ServerHttp2Stream> } | undefined;
    if (typeof streams?.values !== "function") continue;
    for (const stream of streams.values()) {
      if (stream.closed && !stream.destroyed) stream.destroy();
    }
  }
}

/** Closes a session that timed out, unless a stream is still open (a quiet event stream). */
export function closeIfIdle(session: http2.ServerHttp2Session): void {
  if (session.closed || session.destroyed) return;
  if (streamsKey === undefined) probeStreams(session);
  if (openStreams(session) === 0) session.close();
}

// RFC 9113 §8.2.2: connection-specific fields are malformed in HTTP/2 (and Node throws on them).
const FORBIDDEN = new Set([
  "connection",
  "keep-alive",
  "proxy-connection",
  "transfer-encoding",
  "upgrade",
]);

// An HTTP/2 stream as send() writes to it. The head is held until the first write or end(),
// so that a response without a body goes out as one HEADERS frame that ends the stream; the
// fields HTTP/2 forbids are left out of it.
export class StreamWriter implements Writer {
  readonly #stream: http2.ServerHttp2Stream;
  #head: http2.OutgoingHttpHeaders | undefined = undefined;

  constructor(stream: http2.ServerHttp2Stream) {
    this.#stream = stream;
  }

  get headersSent(): boolean {
    return this.#stream.headersSent;
  }

  // A stream the client reset has its writable side ended too: it is `aborted` then.
  get writableFinished(): boolean {
    return this.#stream.writableFinished && !this.#stream.aborted;
  }

  get destroyed(): boolean {
    return this.#stream.destroyed;
  }

  writeHead(status: number, head: Head): void {
    const headers: http2.OutgoingHttpHeaders = { ":status": status };
    for (let i = 0; i < head.length; i += 2) {
      const name = head[i] as string;
      if (FORBIDDEN.has(name)) continue;
      const value = head[i + 1];
      const seen = headers[name];
      headers[name] = seen === undefined
        ? value
        : Array.isArray(seen)
        ? [...seen, String(value)]
        : [String(seen), String(value)]; // Set-Cookie, one field each (RFC 9113 §8.2.3)
    }
    this.#head = headers;
  }

  #respond(endStream: boolean): boolean {
    const stream = this.#stream;
    if (stream.destroyed || stream.closed) return false; // the client reset it meanwhile
    const head = this.#head;
    if (head !== undefined) {
      this.#head = undefined;
      stream.respond(head, { endStream });
    }
    return true;
  }

  write(chunk: Uint8Array): boolean {
    return this.#respond(false) ? this.#stream.write(chunk) : true;
  }

  end(chunk?: string | Uint8Array): void {
    if (chunk === undefined) {
      if (this.#head !== undefined) this.#respond(true);
      else if (!this.#stream.destroyed) this.#stream.end();
    } else if (this.#respond(false)) this.#stream.end(chunk);
  }

  // RST_STREAM with INTERNAL_ERROR. Not close(): it ends the writable side first, and the
  // END_STREAM that goes out then would tell the client that a cut body was whole.
  destroy(): void {
    this.#stream.destroy(new Error("The response was cut"));
  }

  on(event: "drain" | "close", fn: () => void): void {
    this.#stream.on(event, fn);
  }

  once(event: "close", fn: () => void): void {
    this.#stream.once(event, fn);
  }

  off(event: "drain" | "close", fn: () => void): void {
    this.#stream.off(event, fn);
  }
}
