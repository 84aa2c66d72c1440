// ctx.decode() and the request's Content-Type: JSON media types and a missing one are decoded,
// anything else is answered 415 with a problem naming the accepted type; a body in a content
// coding is answered 415 with Accept-Encoding: identity.
import assert from "node:assert/strict";
import { chain, post, router } from "../../mod.ts";
import { jsonErrorResponse, schema as s } from "../../lib/json/mod.ts";
import { z } from "zod";

const Note = s.object({ title: s.string({ maxLength: 5 }) });

const app = chain(
  [],
  router([
    post("/notes", async (ctx) => {
      const result = await ctx.decode(Note);
      return result.ok ? ctx.json(result.value, { status: 201 }) : jsonErrorResponse(result.error);
    }),
    post("/zod", async (ctx) => {
      const result = await ctx.decode(s.standard(z.object({ n: z.number() })));
      return result.ok ? ctx.json(result.value, { status: 201 }) : jsonErrorResponse(result.error);
    }),
  ]),
);

function send(path: string, body: BodyInit, type?: string): Promise<Response> {
  const request = new Request(`http://localhost${path}`, { method: "POST", body });
  if (type === undefined) request.headers.delete("content-type");
  else request.headers.set("content-type", type);
  return app.fetch(request);
}

Deno.test("ctx.decode() decodes application/json, +json types and bodies without a Content-Type", async () => {
  for (
    const type of [
      "application/json",
      "application/json; charset=utf-8",
      "Application/JSON",
      "application/merge-patch+json",
      "application/vnd.api+json ; x=1",
      undefined,
    ]
  ) {
    const res = await send("/notes", '{"title":"hi"}', type);
    assert.equal(res.status, 201, String(type));
    assert.deepEqual(await res.json(), { title: "hi" });
  }
  const bad = await send("/notes", '{"title":"too long"}', "application/json");
  assert.equal(bad.status, 400);
  assert.equal((await bad.json()).constraint, "maxLength");
});

Deno.test("ctx.decode() answers 415 with the accepted type to a body that is not JSON", async () => {
  for (
    const [path, type] of [
      ["/notes", "text/plain;charset=UTF-8"],
      ["/notes", "application/x-www-form-urlencoded"],
      ["/notes", "multipart/form-data; boundary=x"],
      ["/notes", "application/jsonp"],
      ["/notes", ""],
      ["/zod", "text/plain"],
    ]
  ) {
    const res = await send(path, '{"title":"hi"}', type);
    assert.equal(res.status, 415, type);
    assert.equal(res.headers.get("content-type"), "application/problem+json");
    assert.equal(res.headers.get("accept-post"), "application/json");
    const body = await res.json();
    assert.equal(body.status, 415);
    assert.equal(body.accept, "application/json");
    assert.match(body.detail, /Content-Type application\/json/);
  }
});

Deno.test("ctx.decode() answers 415 with Accept-Encoding: identity to a body in a content coding", async () => {
  const json = '{"title":"hi"}';
  const gzip = await new Response(
    new Blob([json]).stream().pipeThrough(new CompressionStream("gzip")),
  ).bytes();
  for (
    const [encoding, body] of [["gzip", gzip], ["GZIP", gzip], ["identity, br", json]] as const
  ) {
    for (const path of ["/notes", "/zod"]) {
      const request = new Request(`http://localhost${path}`, {
        method: "POST",
        body,
        headers: { "content-type": "application/json", "content-encoding": encoding },
      });
      const res = await app.fetch(request);
      assert.equal(res.status, 415, `${path} ${encoding}`);
      // RFC 7694 §3: the header tells the client the coding is refused, not the media type.
      assert.equal(res.headers.get("accept-encoding"), "identity");
      assert.equal(res.headers.get("accept-post"), null);
      const problem = await res.json();
      assert.match(problem.detail, /content coding/);
    }
  }
  for (const encoding of ["identity", "", " Identity "]) {
    const request = new Request("http://localhost/notes", {
      method: "POST",
      body: json,
      headers: { "content-type": "application/json", "content-encoding": encoding },
    });
    const res = await app.fetch(request);
    assert.equal(res.status, 201, JSON.stringify(encoding));
    assert.deepEqual(await res.json(), { title: "hi" });
  }
  // The media type's 415 says nothing of codings (RFC 7694 §3: it must not).
  const typed = await send("/notes", json, "text/plain");
  assert.equal(typed.status, 415);
  assert.equal(typed.headers.get("accept-encoding"), null);
  await typed.body?.cancel();
});

Deno.test("ctx.decode(schema, { issues: 'all' }) reports every issue, for Weft schemas and Standard Schema", async () => {
  const Post = s.object({ title: s.string({ maxLength: 5 }), n: s.integer() });
  const ZodPost = s.standard(z.object({ title: z.string().max(5), n: z.number().int() }));
  const all = router([
    post("/weft", async (ctx) => {
      const result = await ctx.decode(Post, { issues: "all" });
      return result.ok ? ctx.json(result.value) : jsonErrorResponse(result.error, result.issues);
    }),
    post("/zod", async (ctx) => {
      const result = await ctx.decode(ZodPost, { issues: "all" });
      return result.ok ? ctx.json(result.value) : jsonErrorResponse(result.error, result.issues);
    }),
    post("/first", async (ctx) => {
      const result = await ctx.decode(Post);
      return result.ok ? ctx.json(result.value) : jsonErrorResponse(result.error, result.issues);
    }),
  ]);
  const body = JSON.stringify({ title: "far too long", n: 1.5 });
  const headers = { "content-type": "application/json" };
  for (const path of ["/weft", "/zod"]) {
    const res = await all.fetch(
      new Request(`http://localhost${path}`, { method: "POST", headers, body }),
    );
    assert.equal(res.status, 400, path);
    const problem = await res.json();
    assert.deepEqual(problem.issues.map((i: { path: string }) => i.path), ["$.title", "$.n"], path);
    assert.equal(problem.path, "$.title", path); // the first issue stays at the top level
  }
  const first = await all.fetch(
    new Request("http://localhost/first", { method: "POST", headers, body }),
  );
  const problem = await first.json();
  assert.equal(problem.path, "$.title");
  assert.equal(problem.issues, undefined);
  // a body that is not JSON is one issue, in `issues` too: the 400 had no `issues` member, so a
  // client that reads every issue from it found none
  const texts = ['{"title":', new Uint8Array([0x22, 0xff, 0x22])];
  for (const path of ["/weft", "/zod"]) {
    for (const text of texts) {
      const res = await all.fetch(
        new Request(`http://localhost${path}`, { method: "POST", headers, body: text }),
      );
      assert.equal(res.status, 400, path);
      const { kind, offset, detail, issues } = await res.json();
      assert.equal(kind, "syntax_error", path);
      assert.deepEqual(issues, [{ kind, offset, message: detail }], `${path} ${text}`);
    }
  }
});
