// Load benchmark on Deno: raw Deno.serve (the anchor), Hono on Deno.serve and Weft, in one run,
// in paired rounds (see ../_load.ts): hello-world `/` and `/user/:id` JSON behind two no-op
// middlewares, requests/s and the server's CPU time per request, each kind's ratios to raw.
//
//   deno run -A bench/load/run.ts [--h2] [--seconds 5] [--warmup 2] [--rounds 6]
//                                 [--kinds raw,weft] [--paths /,/user/42] [--together]
//                                 [--baseline <checkout>]
//
// --baseline names another checkout of this repository (e.g. a `git worktree` of an older
// commit): a kind written "base:weft" runs that checkout's servers.ts with kind "weft", in the
// same rounds as this checkout's kinds, so a before/after comparison shares one machine state.
import { runLoad } from "../_load.ts";

const h2 = Deno.args.includes("--h2");
const option = (name: string) => {
  const at = Deno.args.indexOf(name);
  return at === -1 ? undefined : Deno.args[at + 1];
};
const servers = new URL("servers.ts", import.meta.url).pathname;
const baseline = option("--baseline");
const serversOf = (kind: string): [string, string] => {
  if (!kind.startsWith("base:")) return [servers, kind];
  if (baseline === undefined) throw new Error(`kind ${kind} needs --baseline <checkout>`);
  return [`${baseline.replace(/\/$/, "")}/bench/load/servers.ts`, kind.slice(5)];
};
await runLoad({
  title: `Deno ${Deno.version.deno}, ${h2 ? "HTTP/2 over TLS (h2load)" : "HTTP/1.1 (wrk)"}`,
  kinds: option("--kinds")?.split(",") ?? ["raw", "hono", "weft"],
  paths: option("--paths")?.split(",") ?? ["/", "/user/42"],
  h2,
  command: (kind, port) => [
    Deno.execPath(),
    "run",
    "-A",
    ...serversOf(kind),
    String(port),
    ...(h2 ? ["--tls"] : []),
  ],
}, Deno.args);
