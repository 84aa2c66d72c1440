// Deadlines for tests: no wait may outlive its bound. A promise awaited with withDeadline()
// fails with what it was waiting for; a child process past its bound gets SIGTERM, then
// SIGKILL after a grace period. Timers only, no runtime API, so Deno's tests,
// tests/conformance and tests/node (vitest) share this file.

/** The error of a wait that outlived its deadline; the message names what was awaited. */
export class DeadlineError extends Error {
  override name = "DeadlineError";
}

/** Options of {@linkcode withDeadline}. */
export interface WithDeadlineOptions {
  /** Called once when the deadline passes, to close what the wait was reading from. */
  onTimeout?: () => void;
}

/**
 * Settles as `promise` does, or rejects with a {@linkcode DeadlineError} once `ms` have passed:
 * `await withDeadline(ready, 10_000, "the server to print its address")`.
 */
export function withDeadline<T>(
  promise: Promise<T>,
  ms: number,
  what: string,
  options: WithDeadlineOptions = {},
): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      try {
        options.onTimeout?.();
      } finally {
        reject(new DeadlineError(`Timed out after ${ms} ms waiting for ${what}`));
      }
    }, ms);
  });
  // The loser must not surface as an unhandled rejection once the race is decided.
  promise.catch(() => {});
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/**
 * Resolves once `check()` holds, re-checking on every macrotask turn; for state that another
 * party changes without an event to wait on (a server-side handler running after the client's
 * event). Rejects with a {@linkcode DeadlineError} naming `what` after `ms`.
 */
export async function eventually(what: string, check: () => boolean, ms = 5_000): Promise<void> {
  let expired = false;
  await withDeadline(
    (async () => {
      while (!check() && !expired) await new Promise((resolve) => setTimeout(resolve, 1));
    })(),
    ms,
    what,
    { onTimeout: () => expired = true },
  );
}

/** A child process as {@linkcode terminate} sees it, whatever the runtime. */
export interface Killable {
  kill(signal: "SIGTERM" | "SIGKILL"): void;
  /** Settles when the process has exited. */
  exited: Promise<unknown>;
}

/** How {@linkcode terminate} ended a child. */
export type Termination = "exited" | "SIGTERM" | "SIGKILL";

/** Options of {@linkcode terminate}. */
export interface TerminateOptions {
  /** How long the child has after SIGTERM before SIGKILL. @default 5000 */
  graceMs?: number;
  /** Send no SIGTERM: only wait `graceMs` for the child to exit on its own, then SIGKILL. */
  waitOnly?: boolean;
}

/**
 * Ends `child`: SIGTERM, then SIGKILL if it is still running `graceMs` later. Resolves with the
 * last step that was needed; rejects with a {@linkcode DeadlineError} naming `what` if even
 * SIGKILL does not end it within another `graceMs`.
 */
export async function terminate(
  child: Killable,
  what: string,
  options: TerminateOptions = {},
): Promise<Termination> {
  const graceMs = options.graceMs ?? 5_000;
  let done = false;
  const exited = child.exited.then(() => done = true, () => done = true);
  const exitsWithin = (ms: number) => withDeadline(exited, ms, what).catch(() => done);
  let step: Termination = "exited";
  if (!options.waitOnly) {
    if (await exitsWithin(0)) return step;
    step = "SIGTERM";
    signal(child, "SIGTERM");
  }
  if (await exitsWithin(graceMs)) return step;
  signal(child, "SIGKILL");
  if (await exitsWithin(graceMs)) return "SIGKILL";
  throw new DeadlineError(`${what} was still running ${graceMs} ms after SIGKILL`);
}

function signal(child: Killable, name: "SIGTERM" | "SIGKILL"): void {
  try {
    child.kill(name);
  } catch {
    // already exited
  }
}
