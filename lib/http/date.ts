/**
 * HTTP dates (RFC 9110 §5.6.7): IMF-fixdate out, all three historical forms in.
 *
 * @module
 */

const MONTHS: Readonly<Record<string, number>> = {
  Jan: 0,
  Feb: 1,
  Mar: 2,
  Apr: 3,
  May: 4,
  Jun: 5,
  Jul: 6,
  Aug: 7,
  Sep: 8,
  Oct: 9,
  Nov: 10,
  Dec: 11,
};

// Regular expression literals (not `new RegExp` from shared parts) keep this module free of
// top-level side effects, so bundlers drop it from apps that never parse a date.
const IMF_FIXDATE =
  /^(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun), (\d\d) (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) (\d{4}) (\d\d):(\d\d):(\d\d) GMT$/;
const RFC850_DATE =
  /^(?:Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday), (\d\d)-(Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)-(\d\d) (\d\d):(\d\d):(\d\d) GMT$/;
const ASCTIME_DATE =
  /^(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun) (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) ([ \d]\d) (\d\d):(\d\d):(\d\d) (\d{4})$/;

/**
 * Formats a time as an IMF-fixdate (RFC 9110 §5.6.7), the form `Last-Modified` and `Date`
 * use. Fractions of a second are truncated, as Python's `email.utils.formatdate` does.
 *
 * @param ms Milliseconds since the epoch.
 * @returns For example `"Sun, 06 Nov 1994 08:49:37 GMT"`.
 *
 * @example
 * ```ts
 * import { formatHttpDate } from "./date.ts";
 * import assert from "node:assert/strict";
 *
 * assert.equal(formatHttpDate(784111777999), "Sun, 06 Nov 1994 08:49:37 GMT");
 * ```
 */
export function formatHttpDate(ms: number): string {
  if (!Number.isFinite(ms)) throw new RangeError(`Cannot format HTTP date: ${ms} is not finite`);
  // ECMA-262 fixes Date.prototype.toUTCString to exactly the IMF-fixdate layout.
  return new Date(Math.floor(ms / 1000) * 1000).toUTCString();
}

/**
 * Parses an HTTP date in any of the forms RFC 9110 §5.6.7 requires recipients to accept:
 * IMF-fixdate, the obsolete RFC 850 form and ANSI C's asctime form.
 *
 * @param value The header value.
 * @returns Milliseconds since the epoch (a whole second), or `null` when the value is not a
 * valid HTTP date.
 *
 * @example
 * ```ts
 * import { parseHttpDate } from "./date.ts";
 * import assert from "node:assert/strict";
 *
 * assert.equal(parseHttpDate("Sun, 06 Nov 1994 08:49:37 GMT"), 784111777000);
 * assert.equal(parseHttpDate("Sunday, 06-Nov-94 08:49:37 GMT"), 784111777000);
 * assert.equal(parseHttpDate("Sun Nov  6 08:49:37 1994"), 784111777000);
 * assert.equal(parseHttpDate("yesterday"), null);
 * ```
 */
export function parseHttpDate(value: string): number | null {
  value = value.trim();
  let m = IMF_FIXDATE.exec(value);
  if (m !== null) return toMs(+m[3], m[2], +m[1], m[4], m[5], m[6]);
  m = RFC850_DATE.exec(value);
  if (m !== null) return toMs(fullYear(+m[3]), m[2], +m[1], m[4], m[5], m[6]);
  m = ASCTIME_DATE.exec(value);
  if (m !== null) return toMs(+m[6], m[1], +m[2], m[3], m[4], m[5]);
  return null;
}

// RFC 9110 §5.6.7: a two-digit year more than 50 years in the future is in the past century.
function fullYear(yy: number): number {
  const now = new Date().getUTCFullYear();
  let year = now - (now % 100) + yy;
  if (year > now + 50) year -= 100;
  return year;
}

function toMs(
  year: number,
  month: string,
  day: number,
  hh: string,
  mm: string,
  ss: string,
): number | null {
  const h = +hh, m = +mm, s = +ss;
  if (h > 23 || m > 59 || s > 60 || day < 1) return null;
  const mon = MONTHS[month];
  const date = new Date(0);
  date.setUTCFullYear(year, mon, day); // unlike Date.UTC, keeps years 0-99 as they are
  const ms = date.setUTCHours(h, m, Math.min(s, 59), 0);
  // rejects 31 Feb and friends, which Date.UTC would roll over into the next month
  if (date.getUTCDate() !== day || date.getUTCMonth() !== mon) return null;
  return ms;
}
