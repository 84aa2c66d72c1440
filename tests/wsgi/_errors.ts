// A `wsgi.errors` for tests, shared by the gateway's unit tests and its conformance cases (which
// the Node runner loads too, so this module needs nothing of Deno's).
import type { WsgiErrors } from "../../wsgi/mod.ts";

/** A `wsgi.errors` that keeps what it is given. */
export function recordingErrors(): WsgiErrors & { text(): string } {
  let text = "";
  return {
    write: (s) => void (text += s),
    writelines: (lines) => void (text += [...lines].join("")),
    flush() {},
    text: () => text,
  };
}
