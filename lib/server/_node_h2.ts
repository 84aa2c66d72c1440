// HTTP/2 streams through node:http2's core API: the HTTP/2 half of lib/server/node.ts.
//
// node:http2's compatibility layer (the 'request' event) wraps every stream in a request and
// a response object, each a Node stream with its own listeners on the HTTP/2 stream, and
// copies every header through its own map; for a small response that is more work than the
// rest of Weft. Streams are served directly: the Request reads the stream, and the response
// head goes out in one respond() call. This module tracks the sessions; the streams are served
// by _node_h2_stream.ts, which loads on the first stream a server gets, so that apps served
// over HTTP/1.1 only never load it, and bundlers that split code keep it out of the entry chunk.
import type * as http2 from "node:http2";
import { checked, connInfo, handle, problemBody, type ServerState, settle } from "./_node_http.ts";
import { send } from "./_node_send.ts";
import { lazy } from "./_node_lazy.ts";
import type { Serving } from "./_node_h2_stream.ts";

function ignore(): void {}

// What the stream module uses of the eager ones, handed over rather than imported: a lazy
// module that imported them would make a splitting bundler move them into a chunk of their own.
const SERVING: Serving = { checked, connInfo, handle, settle, send };

/** The stream module, loaded with the first stream a server gets. */
export const streams = lazy("the HTTP/2 stream server", () => import("./_node_h2_stream.ts"));

/**
 * Serves HTTP/2 streams of `server` (_node_h2_stream.ts), tracks its sessions for shutdown,
 * and closes idle ones.
 */
export function serveStreams(
  server: http2.Http2Server | http2.Http2SecureServer,
  state: ServerState,
): void {
  // A 'request' listener (HTTP/1.1 on the TLS port) made node:http2 add its compatibility
  // layer's 'stream' listener: streams are served here instead.
  server.removeAllListeners("stream");
  server.on("stream", (stream: http2.ServerHttp2Stream, headers, _flags, raw: string[]) => {
    stream.on("error", ignore); // a reset stream must not crash the process
    const module = streams.value;
    if (module !== undefined) module.serveStream(state, SERVING, stream, headers, raw);
    else {
      // The first stream waits for the module, then is served as every later one is.
      streams.load().then(
        (module) => module.serveStream(state, SERVING, stream, headers, raw),
        () => {
          try {
            if (stream.destroyed || stream.closed || stream.headersSent) stream.destroy();
            else {
              stream.respond({ ":status": 500, "content-type": "application/problem+json" });
              stream.end(problemBody(500)); // problem() needs the writer that failed to load
            }
          } catch {
            stream.destroy(); // the stream went away in between
          }
        },
      );
    }
  });
  server.on("session", (session: http2.ServerHttp2Session) => {
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
    streams.load().then((module) => module.closeIfIdle(session), ignore);
  });
  server.on("sessionError", ignore);
}
