// cors(): Weft against Hono's cors middleware (the anchor) in the same groups, including the
// hostile preflight of the issue: 64 KiB of whitespace and commas in
// Access-Control-Request-Headers. A regular-expression split such as /\s*,\s*/ is quadratic on
// such input (about 7 s for 64 KiB of spaces on V8), which is why Weft parses lists in one pass.
// The requests carry no body and are built once: building a Request with a 64 KiB header costs
// about 3 ms in Deno's Headers by itself and would hide what the middleware costs.
//
//   deno bench -A bench/cors_bench.ts
import { Hono } from "hono";
import { cors as honoCors } from "hono/cors";
import { chain, put, router } from "../mod.ts";
import { cors } from "../lib/middleware/cors.ts";
import { parseList } from "../lib/middleware/_headers.ts";

const ORIGIN = "https://app.example";
const HOSTILE = " ,\t".repeat(Math.floor(65_536 / 3)) + " ".repeat(65_536 % 3 + 1) + "x-last";
const SPACES = "x-first" + " ".repeat(65_536) + "x-last";
const TYPICAL = "content-type, x-api-version, authorization";

const weft = chain(
  [cors({ origin: [ORIGIN], credentials: true, maxAge: 600 })],
  router([put("/items", () => new Response("saved"))]),
);
const hono = new Hono()
  .use(honoCors({ origin: [ORIGIN], credentials: true, maxAge: 600 }))
  .put("/items", () => new Response("saved"));

function preflight(requestHeaders: string): Request {
  return new Request("http://api.test/items", {
    method: "OPTIONS",
    headers: {
      origin: ORIGIN,
      "access-control-request-method": "PUT",
      "access-control-request-headers": requestHeaders,
    },
  });
}

function simple(): Request {
  return new Request("http://api.test/items", { method: "PUT", headers: { origin: ORIGIN } });
}

const HOSTILE_REQUEST = preflight(HOSTILE);
const SPACES_REQUEST = preflight(SPACES);
const TYPICAL_REQUEST = preflight(TYPICAL);
const SIMPLE_REQUEST = simple();

// Sanity: both answer the hostile preflight, and Weft reflects only the valid name.
{
  const res = await weft.fetch(HOSTILE_REQUEST);
  if (res.headers.get("access-control-allow-headers") !== "x-last") {
    throw new Error("cors_bench: unexpected Access-Control-Allow-Headers from Weft");
  }
  if ((await hono.fetch(HOSTILE_REQUEST)).status !== 204) {
    throw new Error("cors_bench: unexpected status from Hono");
  }
}

const hostileGroup = "preflight, 64 KiB of whitespace and commas in Access-Control-Request-Headers";
Deno.bench({
  group: hostileGroup,
  name: "hono cors",
  baseline: true,
  async fn() {
    await hono.fetch(HOSTILE_REQUEST);
  },
});
Deno.bench({
  group: hostileGroup,
  name: "weft cors",
  async fn() {
    await weft.fetch(HOSTILE_REQUEST);
  },
});

const spacesGroup = "preflight, 64 KiB of spaces inside Access-Control-Request-Headers";
Deno.bench({
  group: spacesGroup,
  name: "hono cors",
  baseline: true,
  async fn() {
    await hono.fetch(SPACES_REQUEST);
  },
});
Deno.bench({
  group: spacesGroup,
  name: "weft cors",
  async fn() {
    await weft.fetch(SPACES_REQUEST);
  },
});

Deno.bench({
  group: "preflight, typical Access-Control-Request-Headers",
  name: "hono cors",
  baseline: true,
  async fn() {
    await hono.fetch(TYPICAL_REQUEST);
  },
});
Deno.bench({
  group: "preflight, typical Access-Control-Request-Headers",
  name: "weft cors",
  async fn() {
    await weft.fetch(TYPICAL_REQUEST);
  },
});

Deno.bench({
  group: "simple cross-origin PUT",
  name: "hono cors",
  baseline: true,
  async fn() {
    await (await hono.fetch(SIMPLE_REQUEST)).body?.cancel();
  },
});
Deno.bench({
  group: "simple cross-origin PUT",
  name: "weft cors",
  async fn() {
    await (await weft.fetch(SIMPLE_REQUEST)).body?.cancel();
  },
});

Deno.bench({
  group: "list parsing, 64 KiB of whitespace and commas",
  name: "String.prototype.split(',') + trim",
  baseline: true,
  fn() {
    HOSTILE.split(",").map((part) => part.trim()).filter((part) => part !== "");
  },
});
Deno.bench({
  group: "list parsing, 64 KiB of whitespace and commas",
  name: "weft parseList",
  fn() {
    parseList(HOSTILE);
  },
});
