// The HTTP conformance suite (tests/conformance/) on Node, against the npm build installed by
// its package name: the same case functions Deno.test runs in deno_test.ts, one vitest test
// each. suite.ts's `cases` and every exported case table of every *_cases.ts are picked up,
// so a case file added for Deno runs here too. A case that cannot hold on Node is listed in
// CASE_FLAGS with the runtime difference that explains it and runs as an expected failure;
// none is skipped. The whole suite runs twice: with Weft apps answering the Node server through
// a callback (as serve() has them do), then with the promise every other app gives, so that the
// callback path is shown to change no answer.
import { afterAll, beforeAll, describe, test } from "vitest";
import { useCallbacks } from "./node_modules/weft/lib/server/_node_http.js";
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

let env: NodeEnv;
let stop: () => Promise<void>;
beforeAll(() => {
  ({ env, stop } = startEnv());
});
afterAll(async () => {
  await stop();
});

for (const callbacks of [true, false]) {
  describe(callbacks ? "apps answer through a callback" : "apps answer with a promise", () => {
    beforeAll(() => useCallbacks(callbacks));
    afterAll(() => useCallbacks(true));
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
