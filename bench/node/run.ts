// Load benchmark of Weft's npm build on Node, in one run with its anchors, in paired rounds
// (see ../_load.ts): raw node:http (the anchor), Fastify, Hono on @hono/node-server and Weft
// over HTTP/1.1; with --h2, raw node:http2 and Weft over TLS. Each kind is reported with its
// requests/s, the server's CPU time per request, and its ratios to raw.
//
//   deno task build:npm && (cd bench/node && npm ci)
//   deno run -A bench/node/run.ts [--h2] [--seconds 5] [--warmup 2] [--rounds 6]
//                                 [--kinds raw,weft] [--together] [--baseline <checkout>]
//
// --baseline names another checkout of this repository, with its own `deno task build:npm` and
// `npm ci` in its bench/node: a kind written "base:weft" runs that checkout's servers.mjs (and
// so its npm build) with kind "weft", in the same rounds as this checkout's kinds.
import { runLoad } from "../_load.ts";

const args = Deno.args;
const h2 = args.includes("--h2");
const kindsAt = args.indexOf("--kinds");
const node = new TextDecoder().decode(
  (await new Deno.Command("node", { args: ["--version"], stdout: "piped" }).output()).stdout,
).trim();
const servers = new URL("servers.mjs", import.meta.url).pathname;
const baselineAt = args.indexOf("--baseline");
const serversOf = (kind: string): [string, string] => {
  if (!kind.startsWith("base:")) return [servers, kind];
  if (baselineAt === -1) throw new Error(`kind ${kind} needs --baseline <checkout>`);
  return [`${args[baselineAt + 1].replace(/\/$/, "")}/bench/node/servers.mjs`, kind.slice(5)];
};
await runLoad({
  title: `Node ${node}, ${h2 ? "HTTP/2 over TLS (h2load)" : "HTTP/1.1 (wrk)"}`,
  kinds: kindsAt !== -1
    ? args[kindsAt + 1].split(",")
    : h2
    ? ["raw", "weft"]
    : ["raw", "fastify", "hono", "weft"],
  paths: ["/", "/user/42"],
  h2,
  command: (kind, port) => ["node", ...serversOf(kind), String(port), ...(h2 ? ["--tls"] : [])],
}, args);
