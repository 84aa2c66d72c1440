// The Node side of the conformance suite's Env: the npm build imported by its package name,
// curl through child_process, a TLS-trusting fetch (undici with the test CA, HTTP/2 via ALPN
// like Deno's fetch) and the `ws` client as env.WebSocket (Node 20 has no global WebSocket).
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { Agent, fetch as undiciFetch } from "undici";
import { WebSocket } from "ws";
import * as weft from "weft";
import * as wsgi from "weft/wsgi";
import * as compress from "weft/compress";
import * as multipart from "weft/multipart";
import * as openapi from "weft/openapi";
import * as client from "weft/client";
import {
  conformanceApp,
  CURL_FLAGS,
  type CurlResult,
  type Env,
  parseCurl,
} from "../conformance/suite.ts";
import { withDeadline } from "../_deadline.ts";
import { runChild } from "./_child.ts";

const fixtures = new URL("../fixtures/tls/", import.meta.url);
export const caFile = fileURLToPath(new URL("cert.pem", fixtures));
export const cert = readFileSync(caFile, "utf8");
export const key = readFileSync(new URL("key.pem", fixtures), "utf8");

/** Runs curl with the suite's output flags. */
export async function curl(args: string[]): Promise<CurlResult> {
  const { success, stdout, stderr } = await runChild("curl", {
    args: [...CURL_FLAGS, ...args],
    deadlineMs: 30_000, // curl's own --max-time is 20 s
  });
  if (!success) {
    throw new Error(`curl ${args.join(" ")} failed: ${new TextDecoder().decode(stderr)}`);
  }
  return parseCurl(new TextDecoder().decode(stdout));
}

const agent = new Agent({ connect: { ca: cert }, allowH2: true });

/** fetch() that trusts the test certificate and speaks HTTP/2 where ALPN offers it. */
export function fetchTls(url: string, init?: RequestInit): Promise<Response> {
  const response = undiciFetch(url, { ...init, dispatcher: agent } as never);
  return withDeadline(response as unknown as Promise<Response>, 20_000, `a response from ${url}`);
}

/** The Env plus what the Node runner adds (the ws client). */
export type NodeEnv = Env & { WebSocket: typeof globalThis.WebSocket };

/** What serve() is given. */
type Servable = Parameters<typeof weft.serve>[0];

/**
 * Starts the suite's plain and TLS servers and returns the Env with a stop function. Given
 * `served`, every serve() of the suite (its own servers and those its cases start) gets what
 * `served` makes of the app instead of the app.
 */
export function startEnv(
  served?: (app: Servable) => Servable,
): { env: NodeEnv; stop(): Promise<void> } {
  const serve: typeof weft.serve = served === undefined
    ? weft.serve
    : (app, options) => weft.serve(served(app), options);
  const app = conformanceApp(weft as unknown as Env["weft"]);
  const quiet = { hostname: "127.0.0.1", port: 0, onListen: () => {} };
  const plain = serve(app, quiet);
  const tls = serve(app, { ...quiet, cert, key });
  const env: NodeEnv = {
    weft: { ...weft, serve } as unknown as Env["weft"],
    wsgi: wsgi as unknown as Env["wsgi"],
    compress: compress as unknown as Env["compress"],
    multipart: multipart as unknown as Env["multipart"],
    openapi: openapi as unknown as Env["openapi"],
    client: client as unknown as Env["client"],
    http: `http://127.0.0.1:${plain.addr.port}`,
    https: `https://localhost:${tls.addr.port}`,
    caFile,
    cert,
    key,
    curl,
    fetchTls,
    WebSocket: WebSocket as unknown as typeof globalThis.WebSocket,
  };
  return {
    env,
    async stop() {
      await withDeadline(
        Promise.all([plain.shutdown(), tls.shutdown()]),
        10_000,
        "the conformance servers to shut down",
      );
    },
  };
}
