import assert from "node:assert/strict";
import { evaluateRange, parseRange } from "../../lib/http/range.ts";

const partial = (start: number, end: number, size: number) => ({
  kind: "partial",
  start,
  end,
  contentRange: `bytes ${start}-${end}/${size}`,
});
const unsatisfiable = (size: number) => ({
  kind: "unsatisfiable",
  contentRange: `bytes */${size}`,
});
const full = { kind: "full" };

Deno.test("parseRange() reads single byte ranges, including 0-0, -1 and 500-", () => {
  assert.deepEqual(parseRange("bytes=0-0", 1000), partial(0, 0, 1000));
  assert.deepEqual(parseRange("bytes=0-499", 1000), partial(0, 499, 1000));
  assert.deepEqual(parseRange("bytes=500-999", 1000), partial(500, 999, 1000));
  assert.deepEqual(parseRange("bytes=500-", 1000), partial(500, 999, 1000));
  assert.deepEqual(parseRange("bytes=-1", 1000), partial(999, 999, 1000));
  assert.deepEqual(parseRange("bytes=-500", 1000), partial(500, 999, 1000));
  assert.deepEqual(parseRange("bytes=0-", 1), partial(0, 0, 1));
});

Deno.test("parseRange() clamps a last position or suffix beyond the end", () => {
  assert.deepEqual(parseRange("bytes=990-2000", 1000), partial(990, 999, 1000));
  assert.deepEqual(parseRange("bytes=-5000", 1000), partial(0, 999, 1000));
  assert.deepEqual(parseRange("bytes=0-99999999999999999999", 10), partial(0, 9, 10));
});

Deno.test("parseRange() tolerates case and whitespace as RFC 9110 allows", () => {
  assert.deepEqual(parseRange("Bytes=1-2", 10), partial(1, 2, 10));
  assert.deepEqual(parseRange("bytes= 1 - 2 ", 10), partial(1, 2, 10));
  assert.deepEqual(parseRange("bytes=1-2, ", 10), partial(1, 2, 10));
});

Deno.test("parseRange() reports unsatisfiable ranges with bytes */size", () => {
  assert.deepEqual(parseRange("bytes=1000-", 1000), unsatisfiable(1000));
  assert.deepEqual(parseRange("bytes=1000-2000", 1000), unsatisfiable(1000));
  assert.deepEqual(parseRange("bytes=-0", 1000), unsatisfiable(1000));
  assert.deepEqual(parseRange("bytes=0-0", 0), unsatisfiable(0));
  assert.deepEqual(parseRange("bytes=-1", 0), unsatisfiable(0));
});

Deno.test("parseRange() answers in full for several ranges, other units and malformed values", () => {
  for (
    const value of [
      "bytes=0-1,5-9",
      "bytes=0-0,-1",
      "bytes=5-1",
      "bytes=-",
      "bytes=",
      "bytes=a-b",
      "bytes=1.5-2",
      "bytes=+1-2",
      "bytes=0x1-2",
      "bytes 0-1",
      "items=0-1",
      "",
      "bytes=--1",
    ]
  ) {
    assert.deepEqual(parseRange(value, 1000), full, value);
  }
});

Deno.test("evaluateRange() applies Range to GET only", () => {
  const base = { size: 100, etag: '"e"', lastModifiedMs: 0 };
  const headers = new Headers({ range: "bytes=0-9" });
  assert.deepEqual(evaluateRange({ ...base, method: "GET", headers }), partial(0, 9, 100));
  for (const method of ["HEAD", "POST", "PUT"]) {
    assert.deepEqual(evaluateRange({ ...base, method, headers }), full, method);
  }
  assert.deepEqual(evaluateRange({ ...base, method: "GET", headers: new Headers() }), full);
});

Deno.test("evaluateRange() honours If-Range with a strong ETag or the exact date", () => {
  const lastModifiedMs = Date.UTC(2024, 0, 15, 12, 0, 0) + 250;
  const base = { method: "GET", size: 100, etag: '"e1"', lastModifiedMs };
  const check = (ifRange: string) =>
    evaluateRange({ ...base, headers: new Headers({ range: "bytes=10-19", "if-range": ifRange }) });
  assert.deepEqual(check('"e1"'), partial(10, 19, 100));
  assert.deepEqual(check('"e0"'), full);
  assert.deepEqual(check('W/"e1"'), full); // a weak tag never matches
  assert.deepEqual(check("Mon, 15 Jan 2024 12:00:00 GMT"), partial(10, 19, 100));
  assert.deepEqual(check("Mon, 15 Jan 2024 12:00:01 GMT"), full); // must be equal, not later
  assert.deepEqual(check("Mon, 15 Jan 2024 11:59:59 GMT"), full);
  assert.deepEqual(check("not a validator"), full);
  // a failed If-Range sends the full body even for an unsatisfiable range
  assert.deepEqual(
    evaluateRange({ ...base, headers: new Headers({ range: "bytes=500-", "if-range": '"e0"' }) }),
    full,
  );
  assert.deepEqual(
    evaluateRange({ ...base, headers: new Headers({ range: "bytes=500-", "if-range": '"e1"' }) }),
    unsatisfiable(100),
  );
});
