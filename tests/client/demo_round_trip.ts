// One round trip of the typed client against the demo app (examples/app.ts), written once and
// run on Deno (tests/client/demo_test.ts), under Node against the npm build
// (tests/node/client.test.ts) and in Chromium from a bundle (tests/client/browser_test.ts). It
// uses only fetch and the client, no assertion library, so that a browser page can run it: a
// mismatch throws an Error naming the step.
import type { app } from "../../examples/app.ts";
import type { client as makeClient } from "../../lib/client/mod.ts";

function same(actual: unknown, expected: unknown, step: string): void {
  const [a, e] = [JSON.stringify(actual), JSON.stringify(expected)];
  if (a !== e) throw new Error(`${step}: expected ${e}, got ${a}`);
}

/** Calls the demo at `baseUrl` through `client` and checks each answer; returns the steps run. */
export async function demoRoundTrip(client: typeof makeClient, baseUrl: string): Promise<string[]> {
  const api = client<typeof app>(baseUrl);
  const steps: string[] = [];

  const hello = await api.get("/hello/:name", { params: { name: "wörld & co" } });
  same([hello.status, hello.data], [200, { hello: "wörld & co" }], "GET /hello/:name");
  steps.push("hello");

  const list = await api.get("/api/notes", { query: { limit: 1 } });
  if (list.problem || list.status !== 200) throw new Error(`GET /api/notes: ${list.status}`);
  const first: { id: number; author: string; text: string } = list.data[0];
  same([list.data.length, Object.keys(first)], [1, ["id", "author", "text"]], "GET /api/notes");
  steps.push("list");

  const one = await api.get("/api/notes/:id", { params: { id: 1 } });
  same([one.status, one.data?.text], [200, "Welcome to the demo"], "GET /api/notes/:id");
  steps.push("one");

  // What validate() refuses is a typed problem with every failing field.
  const bad = await api.get("/api/notes", { query: { limit: 4.2 } });
  same(
    [bad.ok, bad.problem?.status, bad.problem?.errors?.[0].path],
    [false, 400, "$.limit"],
    "400",
  );
  steps.push("400");

  const anonymous = await api.get("/api/me");
  same([anonymous.problem?.status, anonymous.data], [401, undefined], "GET /api/me without token");
  steps.push("401");

  const headers = { authorization: "Bearer demo-token" };
  const created = await api.post("/api/me/notes", { body: "buy milk", init: { headers } });
  if (created.problem || created.status !== 201) {
    throw new Error(`POST /api/me/notes: ${created.status} ${JSON.stringify(created.problem)}`);
  }
  same([created.data.author, created.data.text], ["demo", "buy milk"], "POST /api/me/notes");
  steps.push("201");

  const doc = await api.get("/openapi.json");
  same((doc.data as { openapi?: string }).openapi, "3.1.1", "GET /openapi.json");
  steps.push("openapi");
  return steps;
}

/** The steps a full round trip runs. */
export const DEMO_STEPS: readonly string[] = [
  "hello",
  "list",
  "one",
  "400",
  "401",
  "201",
  "openapi",
];
