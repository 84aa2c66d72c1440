// vitest for the npm build: every *.test.ts here, a JUnit report for CI's closing summary
// (.ci/summarize.py counts it with Deno's), and timeouts sized for real sockets and npm.
import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["**/*.test.ts"],
    exclude: ["node_modules/**"],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // The suites start servers and spawn curl; run files one after another so that timings
    // (graceful shutdown, timeouts) are not starved by a parallel npm install.
    fileParallelism: false,
    reporters: ["default", "junit"],
    outputFile: { junit: "../../.ci/out/vitest.xml" },
  },
});
