// The short fuzz run on Deno, part of `deno test`: the fuzz app served by serve() in a child
// process, 2,000 requests or 20 s. The seed changes every run unless WEFT_FUZZ_SEED is set; a
// failure prints it, and writes the bytes of each failing case to .ci/out/fuzz/ for replay
// (`deno task fuzz --replay <file>`). The Node side runs in tests/node/fuzz.test.ts.
import assert from "node:assert/strict";
import { formatReport, fuzz } from "./fuzz.ts";
import { findH2Python } from "./server_process.ts";
import { startFuzzServer } from "./servers.ts";

const seed = Number(Deno.env.get("WEFT_FUZZ_SEED") ?? Math.floor(Math.random() * 2 ** 31));

Deno.test("fuzzing serve() on Deno with raw HTTP/1.1 and HTTP/2 finds no malformed answer, no 5xx and no crash", async () => {
  const python = findH2Python();
  if (python === null && Deno.env.get("WEFT_REQUIRE_H2") === "1") {
    throw new Error(
      "Cannot fuzz HTTP/2: no python3 can import hpack and hyperframe (apt-get install python3-h2)",
    );
  }
  const { server, stop } = await startFuzzServer("deno", 120_000);
  try {
    const report = await fuzz({
      label: "deno",
      port: server.port,
      seed,
      requests: 2_000,
      seconds: 20,
      python,
      alive: () => server.alive(),
      failureDir: ".ci/out/fuzz",
    });
    console.log(formatReport(report));
    assert.ok(report.healthy, `${report.healthDetail} (seed ${seed})\n${server.output()}`);
    assert.deepEqual(
      report.findings.map((f) => `${f.protocol} ${f.index}: ${f.reasons.join("; ")}`),
      [],
      `seed ${seed}`,
    );
  } finally {
    await stop();
  }
});
