// HTTP/2 streams through node:http2's core API: the HTTP/2 half of lib/server/node.ts.
//
// node:http2's compatibility layer (the 'request' event) wraps every stream in a request and
// a response object, each a Node stream with its own listeners on the HTTP/2 stream, and
// copies every header through its own map; for a small response that is more work than the
// rest of Weft. Streams are served directly (_node_h2_stream.ts): the Request reads the stream,
// and the response head goes out in one respond() call. This module tracks the sessions.
import type * as http2 from "node:http2";
import type { Socket } from "node:net";
import { checked, connInfo, handle, type ServerState, settle } from "./_node_http.ts";
import { send } from "./_node_send.ts";

function ignore(): void {}

// The writer of a stream (_node_h2_stream.ts) loads on the first stream: apps served over
// HTTP/1.1 only never load it, and bundlers that split code keep it out of the entry chunk.
let Writer: typeof import("./_node_h2_stream.ts").StreamWriter | undefined;
let loading: Promise<unknown> | undefined;

/** The 'stream' listener of every HTTP/2 server (bound to its state). */
export function onStream(
  this: ServerState,
  stream: http2.ServerHttp2Stream,
  headers: http2.IncomingHttpHeaders,
  _flags: number,
  raw: string[],
): void {
  stream.on("error", ignore); // a reset stream must not crash the process
  if (Writer === undefined) {
    // The first stream waits for the writer's class, then is served as every later one is.
    loading ??= import("./_node_h2_stream.ts").then((module) => Writer = module.StreamWriter);
    loading.then(() => onStream.call(this, stream, headers, _flags, raw), () => stream.destroy());
    return;
  }
  const writer = new Writer(stream);
  const method = headers[":method"] ?? "GET";
  // RFC 9110 §10.1.1, as node:http2's compatibility layer answers Expect.
  const expect = headers.expect;
  if (expect !== undefined) {
    if (expect.toLowerCase() !== "100-continue") {
      stream.respond({ ":status": 417 }, { endStream: true });
      return;
    }
    stream.additionalHeaders({ ":status": 100 });
  }
  const done = (response: Response) => send(response, writer, method, false);
  const result = handle(
    this,
    { method, url: headers[":path"] ?? "/", target: undefined, raw, http2: true },
    headers[":authority"] ?? headers.host,
    stream.endAfterHeaders ? null : stream,
    writer,
    connInfo(stream.session?.socket as Socket | undefined, this),
    undefined,
    done,
  );
  if (result instanceof Promise) settle(this, result, done);
  else if (result) done(checked(result));
}

// The number of open streams of a session: node:http2 keeps them in a map on the session's
// internal state (found by probing once); elsewhere a listener per stream counts them. The map
// is one of Node's own `SafeMap`s, which are no `instanceof Map`: it is known by its `size`.
let streamsKey: symbol | null | undefined;
const counted = new WeakMap<http2.ServerHttp2Session, number>();

interface SessionState {
  streams?: { readonly size?: unknown };
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
 * Whether the session state's stream map was found (`undefined` before the first session). Read
 * by tests/node/internals.test.ts only (bundlers drop it).
 */
export function sessionStateLive(): boolean | undefined {
  return streamsKey === undefined ? undefined : streamsKey !== null;
}

/**
 * Serves HTTP/2 streams of `server` with {@linkcode onStream}, tracks its sessions for
 * shutdown, and closes idle ones.
 */
export function serveStreams(
  server: http2.Http2Server | http2.Http2SecureServer,
  state: ServerState,
): void {
  // A 'request' listener (HTTP/1.1 on the TLS port) made node:http2 add its compatibility
  // layer's 'stream' listener: streams are served here instead.
  server.removeAllListeners("stream");
  server.on("stream", onStream.bind(state));
  server.on("session", (session: http2.ServerHttp2Session) => {
    if (streamsKey === undefined) probeStreams(session);
    if (streamsKey === null) {
      session.on("stream", (stream: http2.ServerHttp2Stream) => {
        counted.set(session, (counted.get(session) ?? 0) + 1);
        stream.once("close", () => counted.set(session, (counted.get(session) ?? 1) - 1));
      });
    }
    state.sessions.add(session);
    session.once("close", () => state.sessions.delete(session));
    if (state.closing) session.close();
  });
  // Idle sessions: closed gracefully after keepAliveTimeout without a frame, unless a stream
  // is still open (a quiet event stream). The 'timeout' event also fires for HTTP/1.1 sockets
  // of the TLS server; with a listener, Node leaves those to keepAliveTimeout.
  server.setTimeout(state.keepAliveTimeout);
  server.on("timeout", (target: unknown) => {
    const session = target as http2.ServerHttp2Session;
    if (typeof session?.goaway !== "function" || session.closed || session.destroyed) return;
    if (openStreams(session) === 0) session.close();
  });
  server.on("sessionError", ignore);
}
