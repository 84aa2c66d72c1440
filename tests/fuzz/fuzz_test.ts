// The short fuzz run on Deno, part of `deno test`: the fuzz app served by serve() in a child
// process, 2,000 requests or 20 s. The seed changes every run unless WEFT_FUZZ_SEED is set; a
// failure prints it, and writes the bytes of each failing case to .ci/out/fuzz/ for replay
// (`deno task fuzz --replay <file>`). The Node side runs in tests/node/fuzz.test.ts.
import { shortFuzz } from "./servers.ts";

const seed = Number(Deno.env.get("WEFT_FUZZ_SEED") ?? Math.floor(Math.random() * 2 ** 31));

Deno.test("fuzzing serve() on Deno with raw HTTP/1.1 and HTTP/2 finds no malformed answer, no 5xx and no crash", () =>
  shortFuzz("deno", seed, ".ci/out/fuzz", (name) => Deno.env.get(name)));
