import assert from "node:assert/strict";
import {
  formatPath,
  json,
  type JsonError,
  jsonErrorResponse,
  schema as s,
} from "../../lib/json/mod.ts";

async function body(error: JsonError): Promise<Record<string, unknown>> {
  const res = jsonErrorResponse(error);
  assert.equal(res.status, 400);
  assert.equal(res.headers.get("content-type"), "application/problem+json");
  return await res.json();
}

function fail(text: string, schema = s.any()): JsonError {
  const result = json.decode(text, schema as ReturnType<typeof s.any>);
  assert.ok(!result.ok);
  return result.error;
}

Deno.test("jsonErrorResponse() answers a syntax_error with kind and offset", async () => {
  assert.deepEqual(await body(fail('{"a": tru}')), {
    type: "about:blank",
    title: "Bad Request",
    status: 400,
    detail: 'Unexpected "}": expected "true" at byte 9',
    kind: "syntax_error",
    offset: 9,
  });
});

Deno.test("jsonErrorResponse() answers a type_mismatch with kind, path and expected", async () => {
  const error = fail('{"a":[1,"2"]}', s.object({ a: s.array(s.integer()) }) as never);
  assert.deepEqual(await body(error), {
    type: "about:blank",
    title: "Bad Request",
    status: 400,
    detail: 'Expected integer at $.a[1], got the string "2"',
    kind: "type_mismatch",
    path: "$.a[1]",
    expected: "integer",
  });
});

Deno.test("jsonErrorResponse() answers a missing_field with kind, path and field", async () => {
  const error = fail("{}", s.object({ id: s.string() }) as never);
  assert.deepEqual(await body(error), {
    type: "about:blank",
    title: "Bad Request",
    status: 400,
    detail: 'Missing required field "id" at $.id',
    kind: "missing_field",
    path: "$.id",
    field: "id",
  });
});

Deno.test("formatPath() writes identifiers with dots and other keys in brackets", () => {
  assert.equal(formatPath([]), "$");
  assert.equal(formatPath(["a", 0, "b_c$"]), "$.a[0].b_c$");
  assert.equal(formatPath(["", "1a", 'q"uote', "é"]), '$[""]["1a"]["q\\"uote"]["é"]');
});
