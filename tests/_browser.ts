// The browser tests' one way to find Chromium. Debian's package at /usr/bin/chromium, or the
// binary WEFT_CHROMIUM names, never a downloaded browser. Where it is missing, browserTest()
// reports its test as ignored and prints why once, unless WEFT_REQUIRE_BROWSER=1 (as CI sets):
// then the test fails with the same reason.
import { withDeadline } from "./_deadline.ts";

/** The Chromium binary the browser tests drive. */
export const CHROMIUM: string = Deno.env.get("WEFT_CHROMIUM") ?? "/usr/bin/chromium";

/** The flags every browser test starts Chromium with: headless, no sandbox (root in CI), quiet. */
export const CHROMIUM_ARGS: readonly string[] = [
  "--no-sandbox",
  "--headless",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

const REQUIRED = Deno.env.get("WEFT_REQUIRE_BROWSER") === "1";

// Every test module runs in its own isolate, but they share the process environment: the
// notice is printed by the first module that finds Chromium missing.
const NOTICE_PRINTED = "WEFT_BROWSER_NOTICE_PRINTED";

/** Why the browser tests cannot run here, or undefined when Chromium is there. */
export function chromiumMissing(): string | undefined {
  try {
    if (Deno.statSync(CHROMIUM).isFile) return undefined;
  } catch {
    // missing, or unreadable: the same advice applies
  }
  return `Chromium is missing at ${CHROMIUM}: install it with "apt-get install chromium" ` +
    "(or point WEFT_CHROMIUM at a binary)";
}

/** A browser test: Deno.test's definition whose `fn` gets the Chromium binary to launch. */
export interface BrowserTestDefinition extends Omit<Deno.TestDefinition, "fn" | "ignore"> {
  fn(chromium: string): Promise<void>;
}

/**
 * Registers `definition` with Deno.test when Chromium is there. Without it the test is reported
 * as ignored, with the reason printed once, or fails with the reason when WEFT_REQUIRE_BROWSER=1.
 */
export function browserTest(definition: BrowserTestDefinition): void {
  const missing = chromiumMissing();
  if (missing === undefined) {
    Deno.test({ ...definition, fn: () => definition.fn(CHROMIUM) });
  } else if (REQUIRED) {
    Deno.test({
      ...definition,
      fn() {
        throw new Error(`${missing}; WEFT_REQUIRE_BROWSER=1 makes that a failure`);
      },
    });
  } else {
    if (Deno.env.get(NOTICE_PRINTED) !== "1") {
      Deno.env.set(NOTICE_PRINTED, "1");
      notice(`Browser tests ignored: ${missing}; WEFT_REQUIRE_BROWSER=1 fails them\n`);
    }
    Deno.test({ ...definition, ignore: true, fn: () => {} });
  }
}

// Straight to the process's stderr: `deno test --reporter=dot` swallows what tests print.
function notice(line: string): void {
  try {
    using stderr = Deno.openSync("/dev/stderr", { write: true });
    stderr.writeSync(new TextEncoder().encode(line));
  } catch {
    console.error(line.trimEnd());
  }
}

/**
 * Closes a launched browser (or nothing, when the launch failed), bounded: playwright-core
 * kills the browser process it launched when close() cannot end it cleanly.
 */
export function closeBrowser(browser: { close(): Promise<void> } | undefined): Promise<unknown> {
  return withDeadline(
    browser?.close().catch(() => {}) ?? Promise.resolve(),
    30_000,
    "Chromium to close",
  );
}
