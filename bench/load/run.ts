// Load benchmark on Deno: raw Deno.serve (the anchor), Hono on Deno.serve and Weft, in one run,
// in paired rounds (see ../_load.ts): hello-world `/` and `/user/:id` JSON behind two no-op
// middlewares, requests/s and the server's CPU time per request, each kind's ratios to raw.
//
//   deno run -A bench/load/run.ts [--h2] [--seconds 5] [--warmup 2] [--rounds 6]
//                                 [--kinds raw,weft] [--together]
import { runLoad } from "../_load.ts";

const h2 = Deno.args.includes("--h2");
const kindsAt = Deno.args.indexOf("--kinds");
const servers = new URL("servers.ts", import.meta.url).pathname;
await runLoad({
  title: `Deno ${Deno.version.deno}, ${h2 ? "HTTP/2 over TLS (h2load)" : "HTTP/1.1 (wrk)"}`,
  kinds: kindsAt === -1 ? ["raw", "hono", "weft"] : Deno.args[kindsAt + 1].split(","),
  paths: ["/", "/user/42"],
  h2,
  command: (kind, port) => [
    Deno.execPath(),
    "run",
    "-A",
    servers,
    kind,
    String(port),
    ...(h2 ? ["--tls"] : []),
  ],
}, Deno.args);
