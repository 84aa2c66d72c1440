import assert from "node:assert/strict";
import { chain, get, logger, router } from "../../mod.ts";
import { getRequestId, requestId, type RequestIdOptions } from "../../lib/security/request_id.ts";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

function app(options?: RequestIdOptions) {
  const lines: string[] = [];
  const a = chain(
    [logger({ sink: (line) => lines.push(line) }), requestId(options)],
    router([get("/", (ctx) => ctx.json({ id: getRequestId(ctx) }))]),
  );
  return { app: a, lines };
}

async function call(a: ReturnType<typeof app>["app"], incoming?: string) {
  const headers = new Headers();
  if (incoming !== undefined) headers.set("x-request-id", incoming);
  const res = await a.fetch(new Request("http://localhost/", { headers }));
  return { header: res.headers.get("x-request-id"), id: (await res.json()).id };
}

Deno.test("requestId() keeps a valid incoming id and echoes it", async () => {
  const { app: a, lines } = app();
  for (const id of ["abc-123", "0f8fad5b-d9cb-469f-a165-70867728950e", "a.b:c+d/e=", "x"]) {
    assert.deepEqual(await call(a, id), { header: id, id });
  }
  assert.match(lines[0], / 200 [\d.]+ms id=abc-123$/);
});

Deno.test("requestId() replaces a missing, too long or unsafe id with a new UUID", async () => {
  const { app: a } = app();
  const seen = new Set<string>();
  for (
    const incoming of [
      undefined,
      "",
      "a".repeat(129),
      "has space",
      "semi;colon",
      'quote"',
      "é",
      "<script>",
    ]
  ) {
    const { header, id } = await call(a, incoming);
    assert.match(id, UUID, String(incoming));
    assert.equal(header, id);
    seen.add(id);
  }
  assert.equal(seen.size, 8);
  assert.deepEqual(await call(a, "a".repeat(128)), {
    header: "a".repeat(128),
    id: "a".repeat(128),
  });
});

Deno.test("requestId() options: header, maxLength, generator, distrust", async () => {
  const { app: a } = app({ maxLength: 4, generate: () => "gen", trustIncoming: true });
  assert.equal((await call(a, "abcd")).id, "abcd");
  assert.equal((await call(a, "abcde")).id, "gen");
  const distrust = app({ trustIncoming: false }).app;
  assert.match((await call(distrust, "abcd")).id, UUID);
  const custom = chain(
    [requestId({ header: "x-trace" })],
    router([get("/", () => new Response())]),
  );
  const res = await custom.fetch(new Request("http://l/", { headers: { "x-trace": "t-1" } }));
  assert.equal(res.headers.get("x-trace"), "t-1");
  assert.throws(() => requestId({ header: "x trace" }), /not a header name/);
  assert.throws(() => requestId({ maxLength: 0 }), /maxLength/);
});

Deno.test("logger() writes no id when requestId() is not used; a generated id is held to the rule of incoming ones", async () => {
  const lines: string[] = [];
  const records: unknown[] = [];
  const plain = chain(
    [logger({ format: "json", sink: (l, r) => (lines.push(l), records.push(r)) })],
    router([
      get("/", () => new Response()),
    ]),
  );
  await plain.fetch(new Request("http://localhost/"));
  assert.deepEqual(Object.keys(JSON.parse(lines[0])), ["time", "method", "path", "status", "ms"]);
  const reported: unknown[] = [];
  for (const generated of ["a\nb", "a b", "", 42]) {
    const odd = chain(
      [
        logger({ sink: (l) => lines.push(l) }),
        requestId({ generate: () => generated as string }),
      ],
      router([get("/", () => new Response())], { onError: (e) => void reported.push(e) }),
    );
    const res = await odd.fetch(new Request("http://localhost/"));
    assert.equal(res.status, 500, String(generated));
    await res.body?.cancel();
    assert.match(String(reported.at(-1)), /TypeError: requestId\(\): generate\(\) returned/);
    assert.doesNotMatch(lines.at(-1)!, /\n|id=/);
  }
  assert.equal(reported.length, 4);
});
