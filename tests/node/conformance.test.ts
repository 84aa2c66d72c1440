// The HTTP conformance suite (tests/conformance/) on Node, against the npm build installed by
// its package name: the same case functions Deno.test runs in deno_test.ts, one vitest test
// each. suite.ts's `cases` and every exported case table of every *_cases.ts are picked up,
// so a case file added for Deno runs here too. A case that cannot hold on Node is listed in
// CASE_FLAGS with the runtime difference that explains it and runs as an expected failure;
// none is skipped. The whole suite runs twice: with the Node adapter's shortcuts for async apps
// (Weft apps answer the server through a callback; responses carry a `then` that is undefined),
// then without them, so that they are shown to change no answer.
import { afterAll, beforeAll, describe, test } from "vitest";
import { RESPOND } from "./node_modules/weft/lib/_app.js";
import { useThenShortcut } from "./node_modules/weft/lib/server/_node_response.js";
import { cases, type Env } from "../conformance/suite.ts";
import { type NodeEnv, startEnv } from "./env.ts";
import { CASE_FLAGS, RUNTIME_DIFFERENCES } from "./runtime_differences.ts";

type Case = (env: Env) => Promise<void>;

function isCaseTable(value: unknown): value is Record<string, Case> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return false;
  }
  const entries = Object.values(value);
  return entries.length > 0 &&
    entries.every((entry) => typeof entry === "function");
}

const tables: [string, Record<string, Case>][] = [["suite.ts", cases]];
const modules = import.meta.glob("../conformance/*_cases.ts", { eager: true });
for (
  const [path, module] of Object.entries(modules).sort(([a], [b]) => a.localeCompare(b))
) {
  for (
    const [name, value] of Object.entries(module as Record<string, unknown>)
  ) {
    if (isCaseTable(value)) {
      tables.push([`${path.split("/").pop()} ${name}`, value]);
    }
  }
}

for (const shortcuts of [true, false]) {
  describe(shortcuts ? "with the shortcuts for async apps" : "without them", () => {
    let env: NodeEnv;
    let stop: () => Promise<void>;
    beforeAll(() => {
      useThenShortcut(shortcuts);
      // Without the callback, every serve() of the suite gets the app's entry point as a plain
      // fetch(), whose promise the adapter awaits as it does any other app's (a case's own plain
      // fetch app is served as it is).
      ({ env, stop } = startEnv(
        shortcuts
          ? undefined
          : (app) => RESPOND in app ? { fetch: (app as { [RESPOND]: never })[RESPOND] } : app,
      ));
    });
    afterAll(async () => {
      await stop();
      useThenShortcut(true);
    });
    for (const [file, table] of tables) {
      describe(file, () => {
        for (const [name, run] of Object.entries(table)) {
          const flag = CASE_FLAGS[name];
          if (flag === undefined) {
            test(name, () => run(env));
          } else {
            // Documented in RUNTIME_DIFFERENCES; fails loudly once Node starts to agree with Deno.
            test.fails(`${name} [runtime difference: ${flag}]`, () => run(env));
            void RUNTIME_DIFFERENCES[flag];
          }
        }
      });
    }
  });
}
