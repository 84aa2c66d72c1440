// Every behaviour in which Weft on Node differs from Weft on Deno, by name. Each flag says what
// each runtime does and which test pins Node's side (node_adapter.test.ts checks them one by
// one under the flag's name); a shared conformance case that cannot hold on Node is listed in
// CASE_FLAGS and runs as an expected failure. Nothing is skipped silently.

/** One difference: what Deno does, what Node does, and why it is not made equal. */
export interface RuntimeDifference {
  deno: string;
  node: string;
  why: string;
}

export const RUNTIME_DIFFERENCES = {
  headerBlockLimitHttp1: {
    deno: "HTTP/1.1 header blocks up to 64 KiB are accepted; larger ones get 400 (hyper), " +
      "no body, connection closed",
    node: "HTTP/1.1 header blocks over 16 KiB get 431 (node:http maxHeaderSize) with a " +
      "problem+json body, connection closed",
    why: "Deno.serve has no header-size option; 16 KiB and 431 are what the issue asks for",
  },
  headerListLimitHttp2: {
    deno: "HTTP/2 header lists over 16 KiB (RFC 9113 §6.5.2 sizes) get 431; over ~64 KiB the " +
      "stream is refused",
    node: "the same thresholds and codes (the adapter counts the list like hyper and sets " +
      "nghttp2's limit to 64 KiB); the 431 carries a problem+json body",
    why: "not a difference in status, listed for the body and because it is enforced by Weft",
  },
  timeouts: {
    deno: "none: a connection that sends nothing, half a head, a byte every 2 s or a stalled " +
      "body stays open (still open after 80–150 s on Deno 2.9.6), as does a TLS connection " +
      "that never sends a ClientHello; the timeout options of serve() are not applied",
    node: "headersTimeout 30 s and requestTimeout 300 s (408), keepAliveTimeout 65 s (idle " +
      "HTTP/1.1 connections, and HTTP/2 sessions without open streams), TLS handshakeTimeout " +
      "10 s; each set by the serve() option of the same name",
    why: "Deno.serve has no timeout settings; node:http needs explicit limits, chosen in " +
      "lib/server/node.ts and documented there and in docs/deploying.md",
  },
  mtimePrecision: {
    deno: "file mtimes in milliseconds (mtimeNs = ms × 10⁶), so ETags hash whole milliseconds",
    node: "true nanosecond mtimes (fs.stat with bigint), identical to Python's st_mtime_ns",
    why: "docs/architecture.md, decision 5; tests that compare runtimes pin mtimes to whole " +
      "milliseconds",
  },
  webSocketPingPong: {
    deno: "pings are answered by Deno and never reach onMessage; ping() returns false",
    node: "ws answers pings and reports both: ping and pong frames reach onMessage; ping() sends",
    why: "Deno exposes no ping API (docs/architecture.md, decision 9)",
  },
  webSocketOversize: {
    deno: "a message is measured once Deno has reassembled it (frames up to 64 MiB), then 1009 " +
      'with the reason "Message too big"',
    node: "ws refuses it while receiving, once the fragments exceed maxMessageBytes: 1009 with " +
      "an empty reason",
    why: "ws's maxPayload is the only hook, and it sends its own close frame",
  },
  webSocketInvalidUtf8: {
    deno: "the connection is dropped without a close frame (the peer sees 1006)",
    node: "ws sends a 1007 close frame (RFC 6455 §8.1)",
    why: "decided by each runtime's WebSocket implementation",
  },
  webSocketProtocolErrors: {
    deno: "an unmasked frame from the client is taken as a message (RFC 6455 §5.1 says to fail " +
      "the connection); a malformed frame (a close payload of one byte, a reserved opcode, a " +
      "continuation with nothing to continue, a close reason that is not UTF-8) drops the " +
      "connection without a close frame (the peer sees 1006, onClose 1006); a close frame with " +
      "a code no endpoint may send (1005, 1006, 1015, 999, 5000) is answered with 1002, but " +
      "onClose reports 1006",
    node: "ws fails the connection with a 1002 close frame (1007 for a close reason that is not " +
      "UTF-8), unmasked frames and forbidden close codes included; onClose reports that code",
    why: "decided by Deno's WebSocket implementation, which hands Weft whole messages only",
  },
  upgradeRequestBody: {
    deno:
      "Deno.serve answers a WebSocket handshake that declares a body framing (Content-Length, " +
      "0 included, or Transfer-Encoding) with its own 400, without a body, before Weft sees it",
    node:
      "Content-Length: 0 is no body, so the handshake proceeds (101); a body (a Content-Length " +
      "over 0, or Transfer-Encoding) gets a 400 problem+json and the connection closes",
    why: "node:http hands such a request over with its body unread; refusing Content-Length: 0 " +
      "too would refuse a handshake that carries nothing",
  },
  webSocketCloseWhileReceiving: {
    deno: "once the server has started to close, the next data frame from the peer makes Deno " +
      "drop the connection, often before the close frame went out (the peer sees 1006)",
    node: "ws discards the peer's data frames after its close frame and completes the closing " +
      "handshake (e.g. 1008 for a client that floods a slow handler)",
    why: "decided by Deno's WebSocket event loop, which Weft cannot reach",
  },
  listenAddress: {
    deno: "serve() binds before it returns, for any host",
    node: "serve() binds before it returns for an IP literal host; for a host name (e.g. " +
      '"localhost") the bound port is known from onListen on',
    why: "node:net looks host names up asynchronously",
  },
  globalResponse: {
    deno: "Response is Deno's own class",
    node: "serve() makes globalThis.Response a lightweight class (as @hono/node-server does) " +
      "that builds Node's own Response only when something reads the body; instanceof " +
      "Response holds for both, and Response.json(), clone() and the body methods behave alike",
    why: "on Node 20 every Response builds a ReadableStream, which costs more than node:http's " +
      "own work for a small response; see lib/server/_node_response.ts",
  },
  unknownMethods: {
    deno: "any token is accepted as a method",
    node: "llhttp answers methods it does not know (e.g. FOO) with 400 before Weft sees them",
    why: "node:http's parser has a fixed method table",
  },
  rawUtf8Target: {
    deno: "a request target sent with raw UTF-8 bytes (GET /caf\\xc3\\xa9.txt) is served as its " +
      "percent-encoded form, as nginx serves it",
    node: "node:http's parser refuses it: the adapter answers 400 (the request target or Host " +
      "is malformed)",
    why: "RFC 9112 §3.2 allows either (a target is ASCII; a server may refuse other bytes), and " +
      "node:http gives the adapter no raw target to encode; every client encodes its targets",
  },
  asteriskTarget: {
    deno: "OPTIONS * (RFC 9112 §3.2.4's asterisk-form, a question about the server as a whole) " +
      "reaches the app as the path /*, as OPTIONS /* does: with a wildcard route it gets the " +
      "router's 204 and Allow; * with any other method gets Deno.serve's own 400, no body",
    node: "the adapter answers 400 to any request with the target *, OPTIONS included, with a " +
      "problem+json body (the request target or Host is malformed), before the app",
    why: "Deno.serve gives OPTIONS * and OPTIONS /* the same URL (http://host/*), so the app " +
      "cannot tell them apart; RFC 9110 §9.3.7 leaves OPTIONS * optional, and answering it on " +
      "Node as the path /* would route a question about the server to a resource",
  },
  status205: {
    deno: "a 205 goes out over HTTP/1.1 with neither Content-Length nor chunked framing (an " +
      "app's Content-Length: 0 or Connection: close is dropped) and the connection stays " +
      "open, so a keep-alive client waits for a body that never comes, until it times out",
    node: "a 205 goes out with Content-Length: 0 (RFC 9110 §15.3.6), and the next request on " +
      "the connection is answered",
    why: "Deno.serve frames the response itself and gives an app no way to set the length of " +
      "a response without a body; a Response with a body and status 205 cannot be built",
  },
  streamFailsBeforeFirstByte: {
    deno: "a response body stream that fails before its first chunk goes out as the head with " +
      "the response's status, then the connection is cut (the client sees a broken body)",
    node: "the adapter, which waits for the first chunk before it writes the head, answers 500 " +
      "with no body (content-length: 0) and keeps the connection",
    why: "Deno.serve writes the head as soon as the handler answers; Node's answer is the more " +
      "useful one, and neither lets a client take the broken body for a whole one",
  },
  bodyFailsAfterClientLeft: {
    deno: "a response body that fails because its client went away (a proxied body that fails " +
      "with the request's aborted signal) is reported by Deno.serve to onError, twice, and " +
      "serve() logs each as a failure of the server",
    node: "the adapter, which saw the client go and cancelled the body, reports nothing; a body " +
      "that fails while its client is still there is logged on both",
    why: "Deno.serve's onError gets the error alone, without the request or a sign that its " +
      "client left, and the app's AbortError cannot be told from the runtime's by its type",
  },
  hostlessHttp11: {
    deno: "an HTTP/1.1 request without Host is served, its URL naming localhost and the port",
    node: "node:http answers it 400 before Weft sees it (RFC 9112 §3.2); HTTP/1.0 without Host " +
      "is served on both",
    why: "Deno.serve does not tell the app a request's HTTP version, and HTTP/1.0 may omit Host: " +
      "refusing every request without Host would refuse HTTP/1.0 clients",
  },
  stalledStreamShutdown: {
    deno: "shutdown() ends an event stream whose client stopped reading (its signal aborts), " +
      "but Deno.serve, blocked writing to that client, finishes the response only once the " +
      "client leaves; the app's grace period bounds it",
    node: "the adapter drops such a response at once, so shutdown() does not wait for the " +
      "client (tests/node/realtime.test.ts)",
    why: "Deno.serve has no way to end a response or a connection it is writing to",
  },
  transferEncoding: {
    deno: "a Transfer-Encoding: chunked that the response carries (one copied from a proxied " +
      "response) is kept, and Deno.serve frames the body with it",
    node: "the adapter leaves it out and frames the body itself: a string, bytes or a stream " +
      "of one chunk with a Content-Length, a longer stream chunked",
    why: "node:http given the field and a Content-Length sends both (RFC 9112 §6.2: never " +
      "both); either framing is valid, and the conformance case checks each runtime's",
  },
  requestCopyBody: {
    deno: "new Request(ctx.req) and new Request(ctx.req, init) take the runtime's own body, " +
      "which the body limit does not see: the copy of a 2 MiB upload reads whole under the " +
      "1 MiB default (docs/app.md's example checks it)",
    node: "under serve(), ctx.req is the adapter's request, whose copy is built from its bounded " +
      "body: reading the copy fails with 413. A Request of Node's own given to app.fetch() is " +
      "copied unbounded, as on Deno",
    why: "the limit sits in the body getter of ctx.req's prototype (lib/_bounded_request.ts), " +
      "which Deno's and undici's Request constructors bypass for a Request of their own; " +
      "assigning the copy to ctx.req bounds it again on both",
  },
  requestFormDataMultipart: {
    deno: "ctx.req.formData() reads multipart/form-data with Deno's parser, which accepts a " +
      "preamble, an unquoted name (name=a) and a part named by filename* alone (as a field), " +
      "reads a body whose close delimiter is missing as an empty form, keeps %22 in a name, " +
      "and types a file part without Content-Type application/octet-stream",
    node: "with undici's, the Fetch standard's parser: each of those four is a 400 (the request " +
      "body could not be read by formData()), %22, %0D and %0A in a name are decoded, and a " +
      "file part without Content-Type is text/plain (RFC 7578 §4.4)",
    why: "ctx.req.formData() is the runtime's own, only bounded by ctx.bodyLimit; weft/multipart " +
      "reads the same on both (preambles and transport padding per RFC 2046, unquoted names, " +
      "filename*, the HTML form encoding's %22), and docs/bodies.md points uploads to it",
  },
  requestSignalAfterResponse: {
    deno: "ctx.req.signal, once the app has read it, aborts (AbortError) after a successful " +
      "response too, and Deno 2.9.6 warns about it once per process; timeout() reads it only " +
      "when the app does",
    node: "ctx.req.signal aborts only when the client goes away (or at timeout()'s deadline)",
    why: "Deno.serve's legacy abort (denoland/deno#28850), off with --unstable-no-legacy-abort " +
      "and due to change in Deno itself; Weft does not wrap every request's signal to hide it",
  },
} as const satisfies Record<string, RuntimeDifference>;

/** A flag name. */
export type RuntimeDifferenceName = keyof typeof RUNTIME_DIFFERENCES;

/** Shared conformance cases that cannot hold on Node, with the difference that explains each. */
export const CASE_FLAGS: Record<string, RuntimeDifferenceName> = {};
