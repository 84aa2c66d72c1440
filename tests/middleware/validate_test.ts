// validate(): path params, query and headers coerced by one set of rules, checked by the JSON
// module, typed for the handler; every failing field listed in one 400.
import assert from "node:assert/strict";
import { chain, get, group, options, post, router, schema, validate } from "../../mod.ts";
import { coerce } from "../../lib/_coerce.ts";
import { preflight } from "../_preflight.ts";
import type { SchemaNode } from "../../lib/json/schema.ts";

const node = (s: unknown) => s as SchemaNode;

Deno.test("coerce() turns query text into integers, numbers and booleans, and nothing else", () => {
  const cases: [unknown, string[], unknown][] = [
    [schema.integer(), ["42"], 42],
    [schema.integer(), ["-7"], -7],
    [schema.integer(), ["0"], 0],
    [schema.integer(), ["4.2"], "4.2"],
    [schema.integer(), ["42abc"], "42abc"],
    [schema.integer(), [""], ""],
    [schema.integer(), [" 42"], " 42"],
    [schema.integer(), ["+1"], "+1"],
    [schema.integer(), ["1e3"], "1e3"],
    [schema.integer(), ["007"], "007"],
    [schema.number(), ["-1.5e3"], -1500],
    [schema.number(), ["Infinity"], "Infinity"],
    [schema.number(), ["0x10"], "0x10"],
    [schema.boolean(), ["true"], true],
    [schema.boolean(), ["false"], false],
    [schema.boolean(), ["1"], "1"],
    [schema.boolean(), [""], ""],
    [schema.string(), ["42"], "42"],
    [schema.literal(3), ["3"], 3],
    [schema.enum(["a", 2]), ["2"], 2],
    [schema.optional(schema.integer()), [], undefined],
    [schema.optional(schema.integer()), ["5"], 5],
    [schema.integer(), [], undefined],
    [schema.integer(), ["1", "2"], 1],
    [schema.array(schema.integer()), ["1", "2", "x"], [1, 2, "x"]],
    [schema.array(schema.integer()), [], []],
    // text cannot say null: a nullable field reads as its inner one, an absent array as []
    [schema.nullable(schema.array(schema.integer())), [], []],
    [schema.nullable(schema.array(schema.integer())), ["1"], [1]],
    [schema.nullable(schema.integer()), [], undefined],
    [schema.nullable(schema.integer()), ["null"], "null"],
  ];
  for (const [target, texts, expected] of cases) {
    assert.deepEqual(coerce(node(target), texts), expected, `${JSON.stringify(texts)}`);
  }
});

const Params = schema.object({ id: schema.integer() });
const Query = schema.object({
  limit: schema.optional(schema.integer()),
  done: schema.optional(schema.boolean()),
  tag: schema.array(schema.string()),
});
const Headers_ = schema.object({
  "x-version": schema.integer(),
  accept: schema.optional(schema.array(schema.string())),
});

const app = router([
  get(
    "/notes/:id",
    [validate({ params: Params, query: Query, headers: Headers_ })],
    (ctx) =>
      ctx.json({
        id: ctx.var.params.id,
        query: ctx.var.query,
        version: ctx.var.headers["x-version"],
        accept: ctx.var.headers.accept,
        raw: ctx.params.id,
      }),
  ),
  post("/strict", [
    validate({ query: schema.object({ a: schema.string() }, { unknownKeys: "reject" }) }),
  ], (ctx) => ctx.json(ctx.var.query)),
]);

Deno.test("validate() gives the handler typed params, query and headers", async () => {
  const res = await app.fetch(
    new Request("http://localhost/notes/7?limit=5&done=true&tag=a&tag=b", {
      headers: { "x-version": "2", accept: "text/html, application/json" },
    }),
  );
  assert.equal(res.status, 200);
  assert.deepEqual(await res.json(), {
    id: 7,
    query: { limit: 5, done: true, tag: ["a", "b"] },
    version: 2,
    accept: ["text/html", "application/json"],
    raw: "7",
  });
});

Deno.test("validate() ignores empty elements of a header list (RFC 9110 §5.6.1)", async () => {
  for (const accept of ["text/html,,application/json", " text/html , application/json, ,"]) {
    const res = await app.fetch(
      new Request("http://localhost/notes/7?tag=a", { headers: { "x-version": "2", accept } }),
    );
    assert.equal(res.status, 200, accept);
    assert.deepEqual((await res.json()).accept, ["text/html", "application/json"], accept);
  }
});

Deno.test("validate() answers 400 listing every failing field of every part", async () => {
  let ran = false;
  const guarded = router([
    get("/notes/:id", [validate({ params: Params, query: Query, headers: Headers_ })], () => {
      ran = true;
      return new Response("no");
    }),
  ]);
  const res = await guarded.fetch(
    new Request("http://localhost/notes/4.2?limit=42abc&done=yes&limit=1", {
      headers: { "x-version": "" },
    }),
  );
  assert.equal(res.status, 400);
  assert.equal(res.headers.get("content-type"), "application/problem+json");
  const body = await res.json();
  assert.deepEqual(
    body.errors.map((e: { in: string; path: string }) => `${e.in} ${e.path}`),
    ["params $.id", "query $.limit", "query $.done", "headers $.x-version"].map((s) =>
      s.replace("$.x-version", '$["x-version"]')
    ),
  );
  for (const error of body.errors) assert.equal(typeof error.message, "string");
  assert.equal(ran, false);
});

Deno.test("validate() reports a missing required field and unknown keys a schema rejects", async () => {
  const missing = await app.fetch(new Request("http://localhost/notes/1"));
  assert.equal(missing.status, 400);
  const { errors } = await missing.json();
  assert.deepEqual(errors.map((e: { path: string }) => e.path), ['$["x-version"]']);
  assert.match(errors[0].message, /Missing required field/);

  const strict = await app.fetch(
    new Request("http://localhost/strict?a=1&b=2&b=3", { method: "POST" }),
  );
  assert.equal(strict.status, 400);
  assert.deepEqual((await strict.json()).errors, [
    { in: "query", path: "$.b", message: "Unexpected field" },
  ]);
  const ok = await app.fetch(new Request("http://localhost/strict?a=1", { method: "POST" }));
  assert.deepEqual(await ok.json(), { a: "1" });
});

Deno.test("validate() refuses a schema that is not a schema.object()", () => {
  assert.throws(() => validate({ query: schema.string() as never }), TypeError);
  assert.throws(() => validate({ query: {} as never }), TypeError);
});

Deno.test("validate() in a group and on its route: the handler gets the fields of both", async () => {
  const app = router([
    group("/teams/:team", [validate({
      params: schema.object({ team: schema.integer() }),
      query: schema.object({ tenant: schema.string() }),
    })], [
      get("/members/:member", [validate({
        params: schema.object({ member: schema.integer() }),
        query: schema.object({ limit: schema.optional(schema.integer()) }),
      })], (ctx) => {
        // typed as both: a later check of a part must not drop the fields of an earlier one
        const { team, member }: { team: number; member: number } = ctx.var.params;
        const { tenant, limit }: { tenant: string; limit?: number } = ctx.var.query;
        return ctx.json({ team, member, tenant, limit });
      }),
    ]),
  ]);
  const res = await app.fetch(new Request("http://localhost/teams/7/members/3?tenant=a&limit=2"));
  assert.deepEqual(await res.json(), { team: 7, member: 3, tenant: "a", limit: 2 });
});

Deno.test("validate() refuses a field text cannot hold, whose check could never pass", async () => {
  const refused: [string, unknown][] = [
    ["an object", schema.object({ x: schema.string() })],
    ["a record", schema.optional(schema.record(schema.string()))],
    ["a union", schema.union("k", [schema.object({ k: schema.literal("a") })])],
    ["null", schema.nullable(schema.null())],
    ["an array of arrays", schema.array(schema.array(schema.integer()))],
    ["an array of objects", schema.optional(schema.array(schema.object({})))],
  ];
  for (const [kind, field] of refused) {
    for (const part of ["params", "query", "headers"] as const) {
      assert.throws(() => validate({ [part]: schema.object({ f: field as never }) }), {
        name: "TypeError",
        message: `Cannot validate the ${part}: the field "f" is ${kind}, which text cannot hold ` +
          "(its check could never pass); give it a string, number, integer, boolean, literal, " +
          "enum or any schema, or an array of one",
      }, kind);
    }
  }
  // a header is read by its name: one that is not a token would throw on every request (a 500)
  for (const name of ["x tenant", "", "x-é", "a:b"]) {
    assert.throws(() => validate({ headers: schema.object({ [name]: schema.string() }) }), {
      name: "TypeError",
      message:
        `Cannot validate the headers: "${name}" is not a header name (RFC 9110 §5.1: a token)`,
    });
  }
  // what text can hold: scalars, any, and arrays of them, optional or nullable
  const app = router([
    get("/t", [validate({
      query: schema.object({
        any: schema.optional(schema.any()),
        ids: schema.nullable(schema.array(schema.nullable(schema.integer()))),
        mode: schema.optional(schema.enum(["a", "b"])),
        on: schema.optional(schema.literal(true)),
      }),
    })], (ctx) => ctx.json(ctx.var.query)),
  ]);
  const res = await app.fetch(new Request("http://localhost/t?any=x&on=true"));
  assert.deepEqual(await res.json(), { any: "x", ids: [], on: true }); // no ids: []
});

Deno.test("validate() in a group lets a CORS preflight through to the router's automatic answer only", async () => {
  // A preflight carries none of the headers the real request will: refusing it would make every
  // cross-origin call fail. What answers it without the checked values must not leave.
  const check = validate({ headers: schema.object({ "x-api-version": schema.integer() }) });
  let ran = 0;
  const app = router([
    group("/api", [check], [
      get("/items", (ctx) => ctx.json({ version: ctx.var.headers["x-api-version"] })),
      options("/reports", () => {
        ran++;
        return new Response(null, { status: 204 }); // the app's own answer: checked as any
      }),
    ]),
  ]);
  const send = (path: string, headers: Record<string, string> = {}) =>
    app.fetch(preflight(path, "GET", headers));
  const res = await send("/api/items");
  assert.equal(res.status, 204);
  assert.equal(res.headers.get("allow"), "GET, HEAD, OPTIONS");
  const own = await send("/api/reports");
  assert.equal(own.status, 400, "the check's refusal: the route never runs without its headers");
  assert.equal(ran, 0);
  // a preflight that passes the check, and a plain OPTIONS, are what they were
  assert.equal((await send("/api/reports", { "x-api-version": "2" })).status, 204);
  assert.equal(ran, 1);
  // in a chain in front of the router, the check cannot know what will answer: 400
  const chained = chain([check], router([get("/items", () => new Response("items"))]));
  const res2 = await chained.fetch(preflight("/items"));
  assert.equal(res2.status, 400);
  const plain = await app.fetch(new Request("http://localhost/api/items", { method: "OPTIONS" }));
  assert.equal(plain.status, 400);
  const real = await app.fetch(new Request("http://localhost/api/items"));
  assert.equal(real.status, 400);
});
