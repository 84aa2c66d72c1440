// `deno task fuzz`: fuzzes the fuzz app on Deno and on Node (the npm build) and prints, per
// runtime, the seed, the requests sent, the responses by status class and the worst latency.
//
//   deno task fuzz                     short: 2,000 requests or 20 s per runtime
//   deno task fuzz --long              long: 50,000 requests or 300 s per runtime (or WEFT_FUZZ_LONG=1)
//   deno task fuzz --seed 42 --runtime node --requests 10000 --seconds 60
//   deno task fuzz --replay .ci/out/fuzz/deno-http1-seed42-case17.json
//
// Failing cases are written to .ci/out/fuzz/ (or --out DIR) with the seed and the exact bytes.
// Exits 1 when a finding was made or a server died.
import { Buffer } from "node:buffer";
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import process from "node:process";
import { formatReport, fuzz, H2Peer, judgeH2, judgeHttp1, sendHttp1 } from "./fuzz.ts";
import { findH2Python } from "./server_process.ts";
import { ensureNodeBuild, type RuntimeName, startFuzzServer } from "./servers.ts";
import { http1Case } from "./http1_cases.ts";
import { h2Case } from "./h2_cases.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: {
    long: { type: "boolean", default: Deno.env.get("WEFT_FUZZ_LONG") === "1" },
    seed: { type: "string" },
    requests: { type: "string" },
    seconds: { type: "string" },
    runtime: { type: "string", default: "both" },
    replay: { type: "string" },
    out: { type: "string", default: ".ci/out/fuzz" },
    build: { type: "boolean", default: false },
  },
});

const runtimes: RuntimeName[] = values.runtime === "both"
  ? ["deno", "node"]
  : [values.runtime as RuntimeName];
const python = findH2Python();
if (python === null) {
  console.warn(
    "no python3 can import hpack and hyperframe: HTTP/2 is left out (apt-get install python3-h2)",
  );
}
if (runtimes.includes("node")) ensureNodeBuild(values.build);

if (values.replay !== undefined) {
  const failure = JSON.parse(readFileSync(values.replay, "utf8"));
  const bytes = new Uint8Array(Buffer.from(failure.bytes, "base64"));
  const runtime = (values.runtime === "both" ? failure.runtime : values.runtime) as RuntimeName;
  const { server, stop } = await startFuzzServer(runtime, 60_000);
  try {
    console.log(`replaying ${values.replay} on ${runtime}: ${bytes.length} bytes`);
    console.log(JSON.stringify(Buffer.from(bytes).toString("latin1").slice(0, 2000)));
    const byClass = {};
    if (failure.protocol === "h2") {
      const c = h2Case(failure.caseSeed);
      const peer = new H2Peer(python ?? "python3", 30_000);
      const r = await peer.run(server.port, bytes, Object.keys(c.streams).map(Number));
      await peer.close();
      console.log(JSON.stringify(r, null, 2));
      if (r) console.log("reasons:", judgeH2(c, r, byClass));
    } else {
      const c = { ...http1Case(failure.caseSeed, { validators: {} }), chunks: [bytes] };
      const r = await sendHttp1(server.port, c);
      console.log(Buffer.from(r.bytes).toString("latin1").slice(0, 4000));
      console.log("reasons:", judgeHttp1(c, r, byClass));
    }
    console.log(`server: ${server.alive() ? "alive" : `died (${server.exit()})`}`);
  } finally {
    await stop();
  }
  process.exit(0);
}

const seed = values.seed !== undefined ? Number(values.seed) : Math.floor(Math.random() * 2 ** 31);
const requests = Number(values.requests ?? (values.long ? 50_000 : 2_000));
const seconds = Number(values.seconds ?? (values.long ? 300 : 20));
let failed = false;
for (const runtime of runtimes) {
  const { server, stop } = await startFuzzServer(runtime, seconds * 1000 + 180_000);
  try {
    const report = await fuzz({
      label: runtime,
      port: server.port,
      seed,
      requests,
      seconds,
      python,
      alive: () => server.alive(),
      failureDir: values.out,
    });
    console.log(formatReport(report));
    if (!report.healthy) console.log(server.output());
    failed ||= !report.healthy || report.findings.length > 0;
  } finally {
    await stop();
  }
}
process.exit(failed ? 1 : 0);
