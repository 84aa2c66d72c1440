// Runs the conformance suite against serve() of this repository on Deno, over real sockets.
import * as weft from "../../mod.ts";
import * as wsgi from "../../wsgi/mod.ts";
import * as compress from "../../lib/middleware/compress.ts";
import * as multipart from "../../lib/multipart/mod.ts";
import * as openapi from "../../lib/openapi/mod.ts";
import * as weftClient from "../../lib/client/mod.ts";
import { runChild } from "../_child.ts";
import { withDeadline } from "../_deadline.ts";
import { cases, conformanceApp, CURL_FLAGS, type Env, parseCurl } from "./suite.ts";

type Case = (env: Env) => Promise<void>;

// Every exported case table of every *_cases.ts, as the Node runner globs them, so that a new
// case file runs on both runtimes.
async function caseTables(): Promise<Record<string, Case>> {
  const all: Record<string, Case> = { ...cases };
  const names = [];
  for await (const entry of Deno.readDir(new URL(".", import.meta.url))) {
    if (entry.isFile && entry.name.endsWith("_cases.ts")) names.push(entry.name);
  }
  for (const name of names.sort()) {
    const module = await import(new URL(name, import.meta.url).href);
    for (const value of Object.values(module)) {
      if (typeof value !== "object" || value === null || Array.isArray(value)) continue;
      const table = value as Record<string, unknown>;
      const entries = Object.values(table);
      if (entries.length > 0 && entries.every((entry) => typeof entry === "function")) {
        Object.assign(all, table as Record<string, Case>);
      }
    }
  }
  return all;
}

const fixtures = new URL("../fixtures/tls/", import.meta.url);
const caFile = new URL("cert.pem", fixtures).pathname;
const cert = await Deno.readTextFile(new URL("cert.pem", fixtures));
const key = await Deno.readTextFile(new URL("key.pem", fixtures));

Deno.test("conformance on Deno", async (t) => {
  const app = conformanceApp(weft);
  const quiet = { hostname: "127.0.0.1", port: 0, onListen: () => {} };
  const plain = weft.serve(app, quiet);
  const tls = weft.serve(app, { ...quiet, cert, key });
  const client = Deno.createHttpClient({ caCerts: [cert] });
  const env: Env = {
    weft,
    wsgi,
    compress,
    multipart,
    openapi,
    client: weftClient,
    http: `http://127.0.0.1:${plain.addr.port}`,
    https: `https://localhost:${tls.addr.port}`,
    caFile,
    cert,
    key,
    async curl(args) {
      const { stdout, stderr, success } = await runChild("curl", {
        args: [...CURL_FLAGS, ...args],
        deadlineMs: 30_000, // curl's own --max-time is 20 s
      });
      if (!success) {
        throw new Error(`curl ${args.join(" ")} failed: ${new TextDecoder().decode(stderr)}`);
      }
      return parseCurl(new TextDecoder().decode(stdout));
    },
    fetchTls: (url, init) =>
      withDeadline(fetch(url, { ...init, client }), 20_000, `a response from ${url}`),
  };
  try {
    for (const [name, run] of Object.entries(await caseTables())) {
      await t.step(name, () => run(env));
    }
  } finally {
    client.close();
    await withDeadline(
      Promise.all([plain.shutdown(), tls.shutdown()]),
      10_000,
      "the conformance servers to shut down",
    );
  }
});
