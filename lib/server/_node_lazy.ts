// Parts of the Node adapter that load on first use, with import(): the HTTP/2 stream server,
// the body pipe, the upgrade handler and the WebSocket handshake. One load runs at a time and
// the module is kept once it is there. A load can fail: a bundle deployed without the chunk
// files that code splitting wrote, or a CommonJS package bundled into an ES module without a
// `require` (docs/deploying.md, "Bundling for Node"). Such a failure is written to standard
// error (again only when its message changes, so that requests cannot flood the log), and the
// next use loads again, instead of failing every later request without a word. (Node keeps a
// module that failed to link or to run: loading again helps when the missing file was the
// chunk imported here, not one that chunk imports.)
import { describeError } from "../http/_log_escape.ts";

/** A module loaded on first use. */
export interface Lazy<T> {
  /** The module, once a load has succeeded. */
  value: T | undefined;
  /** Resolves with the module; when loading fails, reports the error and rejects with it. */
  load(): Promise<T>;
}

/** A `Lazy` of what `load` imports, named `what` in the error it reports. */
export function lazy<T>(what: string, load: () => Promise<T>): Lazy<T> {
  let pending: Promise<T> | undefined;
  let reported: string | undefined;
  const module: Lazy<T> = {
    value: undefined,
    load: () =>
      pending ??= load().then((value) => module.value = value, (error: unknown) => {
        pending = undefined; // the next use tries again
        const message = error instanceof Error ? error.message : String(error);
        if (message !== reported) {
          reported = message;
          console.error(`weft: cannot load ${what}: ${describeError(error)}`);
        }
        throw error;
      }),
  };
  return module;
}
