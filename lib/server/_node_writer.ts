// What send() (_node_send.ts) writes a response to, in a module of its own: the lazily loaded
// parts that write too (_node_pipe.ts, _node_h2_stream.ts) import it without reaching back
// into the module that loads them.

/**
 * What send() writes to: node:http's ServerResponse as it is, or an HTTP/2 stream through the
 * writer of _node_h2_stream.ts.
 */
export interface Writer {
  readonly headersSent: boolean;
  readonly writableFinished: boolean;
  writeHead(status: number, headers: Head): unknown;
  write(chunk: Uint8Array): boolean;
  end(chunk?: string | Uint8Array): unknown;
  destroy(): unknown;
  on(event: "drain" | "close", fn: () => void): unknown;
  once(event: "close", fn: () => void): unknown;
  off(event: "drain" | "close", fn: () => void): unknown;
}

/** A response head: names and values, alternating; Content-Length too is written as a string. */
export type Head = string[];

/**
 * Where a body that fails once its head was written is reported: the server's state, whose
 * `onError` is serve()'s (it logs the failure, or leaves out a body cut on purpose).
 */
export interface Reporter {
  readonly onError?: (error: unknown) => unknown;
}
