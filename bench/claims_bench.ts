// The small figures that code comments used to quote, one group each, so that they can be
// checked again on any runtime version (docs/architecture.md, "Figures and how to re-check
// them"). Each group's baseline is the form the code avoids or the one it is compared with.
//
//   deno bench -A bench/claims_bench.ts
import { bench } from "./_groups.ts";

// 1. lib/json/decode.ts decodes with the lenient TextDecoder, not the fatal one.
const JSON_2K = new TextEncoder().encode(
  JSON.stringify({
    items: Array.from({ length: 24 }, (_, i) => ({ id: i, name: `item ${i}`, tags: ["a", "b"] })),
  }),
);
const lenient = new TextDecoder();
const fatal = new TextDecoder("utf-8", { fatal: true });
bench("TextDecoder on 2 KiB of JSON", "lenient (what decode uses)", () => {
  lenient.decode(JSON_2K);
}, true);
bench("TextDecoder on 2 KiB of JSON", "fatal", () => {
  fatal.decode(JSON_2K);
});

// 2. lib/middleware/_static_respond.ts appends prebuilt headers to a new response instead of
//    passing them as its `headers` init.
const HEADERS: [string, string][] = [
  ["content-type", "text/css; charset=utf-8"],
  ["etag", '"0123456789abcdef"'],
  ["last-modified", "Tue, 01 Jul 2025 10:00:00 GMT"],
  ["cache-control", "public, max-age=0"],
  ["accept-ranges", "bytes"],
  ["content-length", "1024"],
];
const INIT_200: ResponseInit = { status: 200 };
bench("a static hit's six headers", "as the headers init", () => {
  new Response("body", { status: 200, headers: HEADERS });
}, true);
bench("a static hit's six headers", "appended to a new response (what staticFiles() does)", () => {
  const headers = new Response("body", INIT_200).headers;
  headers.set(HEADERS[0][0], HEADERS[0][1]);
  for (let i = 1; i < HEADERS.length; i++) headers.append(HEADERS[i][0], HEADERS[i][1]);
});

// 3. _static_respond.ts builds a bodiless 304 once and clones it for each request.
const VALIDATORS = HEADERS.slice(1, 4);
const prebuilt = new Response(null, { status: 304, headers: VALIDATORS });
bench("a bodiless 304 with its validators", "built for each request", () => {
  new Response(null, { status: 304, headers: VALIDATORS });
}, true);
bench(
  "a bodiless 304 with its validators",
  "a prebuilt one cloned (what staticFiles() does)",
  () => {
    prebuilt.clone();
  },
);

// 4. lib/json/codegen.ts gives each object schema its own generated check, so its property
//    loads see one shape (monomorphic) instead of many (megamorphic).
const SHAPES = Array.from({ length: 16 }, (_, i) => ({ [`k${i}`]: i, name: "x" }));
const keys = SHAPES.map((_, i) => `k${i}`);
function loadOne(v: { name: string }): number {
  return v.name.length;
}
function loadKeyed(v: Record<string, unknown>, key: string): unknown {
  return v[key];
}
let sink = 0;
bench("property loads", "one name, one shape (monomorphic)", () => {
  for (let i = 0; i < 1_000; i++) sink += loadOne(SHAPES[0]);
}, true);
bench("property loads", "many names and shapes (megamorphic)", () => {
  for (let i = 0; i < 1_000; i++) {
    const at = i & 15;
    sink += loadKeyed(SHAPES[at], keys[at]) as number;
  }
});
if (sink === -1) console.log(sink); // keeps the loads from being dropped
