// Loaded with `node --import` by bench/node/alloc.ts: V8's sampling heap profiler, started by the
// first SIGUSR2 and stopped by the second, which writes the profile to $WEFT_ALLOC_OUT. Objects
// the garbage collector took meanwhile stay in the profile, so it counts every byte allocated,
// not only what is still alive.
import inspector from "node:inspector";
import { writeFileSync } from "node:fs";

const session = new inspector.Session();
session.connect();
const post = (method, params) =>
  new Promise((resolve, reject) =>
    session.post(
      method,
      params,
      (error, result) => error ? reject(error) : resolve(result),
    )
  );
let sampling = false;
process.on("SIGUSR2", async () => {
  if (!sampling) {
    sampling = true;
    await post("HeapProfiler.enable");
    await post("HeapProfiler.startSampling", {
      samplingInterval: 128,
      includeObjectsCollectedByMajorGC: true,
      includeObjectsCollectedByMinorGC: true,
    });
    console.log("sampling");
  } else {
    const { profile } = await post("HeapProfiler.stopSampling");
    writeFileSync(process.env.WEFT_ALLOC_OUT, JSON.stringify(profile));
    console.log("written");
  }
});
