import assert from "node:assert/strict";
import { formatHttpDate, parseHttpDate } from "../../lib/http/date.ts";

// RFC 9110 §5.6.7's example instant in its three forms
const EXAMPLE = Date.UTC(1994, 10, 6, 8, 49, 37);

Deno.test("formatHttpDate() writes an IMF-fixdate", () => {
  assert.equal(formatHttpDate(EXAMPLE), "Sun, 06 Nov 1994 08:49:37 GMT");
  assert.equal(formatHttpDate(0), "Thu, 01 Jan 1970 00:00:00 GMT");
  assert.equal(formatHttpDate(Date.UTC(2000, 1, 29, 23, 59, 59)), "Tue, 29 Feb 2000 23:59:59 GMT");
});

Deno.test("formatHttpDate() truncates fractions of a second like Python's formatdate", () => {
  assert.equal(formatHttpDate(EXAMPLE + 999), "Sun, 06 Nov 1994 08:49:37 GMT");
  assert.equal(formatHttpDate(EXAMPLE + 0.5), "Sun, 06 Nov 1994 08:49:37 GMT");
});

Deno.test("formatHttpDate() refuses a time that is not finite", () => {
  assert.throws(() => formatHttpDate(NaN), RangeError);
  assert.throws(() => formatHttpDate(Infinity), RangeError);
});

Deno.test("parseHttpDate() reads IMF-fixdate, RFC 850 and asctime forms", () => {
  assert.equal(parseHttpDate("Sun, 06 Nov 1994 08:49:37 GMT"), EXAMPLE);
  assert.equal(parseHttpDate("Sunday, 06-Nov-94 08:49:37 GMT"), EXAMPLE);
  assert.equal(parseHttpDate("Sun Nov  6 08:49:37 1994"), EXAMPLE);
  assert.equal(parseHttpDate("Sun Nov 16 08:49:37 1994"), EXAMPLE + 10 * 86_400_000);
  assert.equal(parseHttpDate("  Sun, 06 Nov 1994 08:49:37 GMT "), EXAMPLE);
});

Deno.test("parseHttpDate() round-trips formatHttpDate()", () => {
  for (
    const ms of [0, EXAMPLE, Date.UTC(2038, 0, 19, 3, 14, 8), Date.UTC(2100, 11, 31, 23, 59, 59)]
  ) {
    assert.equal(parseHttpDate(formatHttpDate(ms)), ms);
  }
});

Deno.test("parseHttpDate() puts two-digit years more than 50 years ahead in the past century", () => {
  const thisYear = new Date().getUTCFullYear();
  const soon = (thisYear + 10) % 100;
  const far = (thisYear + 60) % 100;
  const pad = (n: number) => String(n).padStart(2, "0");
  const year = (value: string) => new Date(parseHttpDate(value)!).getUTCFullYear();
  assert.equal(year(`Monday, 01-Jan-${pad(soon)} 00:00:00 GMT`), thisYear + 10);
  assert.equal(year(`Monday, 01-Jan-${pad(far)} 00:00:00 GMT`), thisYear + 60 - 100);
});

Deno.test("parseHttpDate() keeps years below 100 as written", () => {
  assert.equal(new Date(parseHttpDate("Mon, 01 Jan 0050 00:00:00 GMT")!).getUTCFullYear(), 50);
});

Deno.test("parseHttpDate() returns null for anything that is not an HTTP date", () => {
  for (
    const value of [
      "",
      "yesterday",
      "1994-11-06T08:49:37Z",
      "Sun, 06 Nov 1994 08:49:37 UTC",
      "Sun, 06 Nov 1994 08:49:37 +0000",
      "sun, 06 nov 1994 08:49:37 gmt",
      "Sun, 6 Nov 1994 08:49:37 GMT",
      "Sun, 06 Nov 94 08:49:37 GMT",
      "Sun, 31 Feb 1994 08:49:37 GMT",
      "Sun, 00 Nov 1994 08:49:37 GMT",
      "Sun, 06 Nov 1994 24:00:00 GMT",
      "Sun, 06 Nov 1994 08:60:00 GMT",
      "Sun, 06 Foo 1994 08:49:37 GMT",
      "Sun, 06 Nov 1994 08:49:37 GMT, Mon, 07 Nov 1994 08:49:37 GMT",
      "784111777",
    ]
  ) {
    assert.equal(parseHttpDate(value), null, value);
  }
});
