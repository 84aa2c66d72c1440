// Type tests: type_cases.ts holds uses with errors, each under `// @ts-expect-error`; the
// mechanism is tests/_type_cases.ts's. Importing the cases makes `deno test` type-check them.
import assert from "node:assert/strict";
import { typeCases } from "./type_cases.ts";
import { typeCaseTests } from "../_type_cases.ts";

Deno.test("type_cases.ts exports its cases", () => assert.equal(typeof typeCases, "function"));
typeCaseTests(new URL("./type_cases.ts", import.meta.url), 19);
