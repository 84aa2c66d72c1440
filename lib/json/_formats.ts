// The string formats of schema.string({ format }), written as scanners (no regular expression
// runs on request data here). The grammars are stated in schema.ts (StringFormat) and
// docs/json.md; each function answers whether the whole string has the format.

function isDigit(c: number): boolean {
  return c >= 0x30 && c <= 0x39;
}

function isAlpha(c: number): boolean {
  return (c | 0x20) >= 0x61 && (c | 0x20) <= 0x7a;
}

function isHex(c: number): boolean {
  return isDigit(c) || ((c | 0x20) >= 0x61 && (c | 0x20) <= 0x66);
}

// The value of `n` decimal digits at `i`, or -1.
function digits(s: string, i: number, n: number): number {
  if (i + n > s.length) return -1;
  let value = 0;
  for (let k = i; k < i + n; k++) {
    const c = s.charCodeAt(k);
    if (!isDigit(c)) return -1;
    value = value * 10 + c - 0x30;
  }
  return value;
}

const DAYS = [0, 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

// RFC 3339 §5.6 full-date at the start of `s`: YYYY-MM-DD, the day valid for its month.
function fullDate(s: string): boolean {
  const year = digits(s, 0, 4), month = digits(s, 5, 2), day = digits(s, 8, 2);
  if (year < 0 || month < 1 || month > 12 || day < 1) return false;
  if (s.charCodeAt(4) !== 0x2d || s.charCodeAt(7) !== 0x2d) return false;
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0); // RFC 3339 Appendix C
  return day <= (month === 2 && leap ? 29 : DAYS[month]);
}

/** RFC 3339 §5.6 `full-date`. */
export function isDate(s: string): boolean {
  return s.length === 10 && fullDate(s);
}

/** RFC 3339 §5.6 `date-time`, with second 60 only at 23:59 UTC. */
export function isDateTime(s: string): boolean {
  if (s.length < 20 || !fullDate(s) || (s.charCodeAt(10) | 0x20) !== 0x74) return false; // T
  const hour = digits(s, 11, 2), minute = digits(s, 14, 2), second = digits(s, 17, 2);
  if (s.charCodeAt(13) !== 0x3a || s.charCodeAt(16) !== 0x3a) return false;
  if (hour < 0 || hour > 23 || minute < 0 || minute > 59 || second < 0 || second > 60) {
    return false;
  }
  // 1. time-secfrac
  let i = 19;
  if (s.charCodeAt(i) === 0x2e) {
    const start = ++i;
    while (isDigit(s.charCodeAt(i))) i++;
    if (i === start) return false;
  }
  // 2. time-offset: Z or ±hh:mm
  let offset = 0;
  const c = s.charCodeAt(i);
  if ((c | 0x20) === 0x7a) {
    i++;
  } else if (c === 0x2b || c === 0x2d) {
    const h = digits(s, i + 1, 2), m = digits(s, i + 4, 2);
    if (h < 0 || h > 23 || m < 0 || m > 59 || s.charCodeAt(i + 3) !== 0x3a) return false;
    offset = (c === 0x2b ? 1 : -1) * (h * 60 + m);
    i += 6;
  } else {
    return false;
  }
  if (i !== s.length) return false;
  if (second < 60) return true;
  // 3. a leap second is 23:59:60 in UTC
  const utc = (((hour * 60 + minute - offset) % 1440) + 1440) % 1440;
  return utc === 23 * 60 + 59;
}

/** RFC 9562 §4: 8-4-4-4-12 hexadecimal digits. */
export function isUuid(s: string): boolean {
  if (s.length !== 36) return false;
  for (let i = 0; i < 36; i++) {
    const c = s.charCodeAt(i);
    if (i === 8 || i === 13 || i === 18 || i === 23 ? c !== 0x2d : !isHex(c)) return false;
  }
  return true;
}

// RFC 5322 atext: letters, digits and !#$%&'*+-/=?^_`{|}~
const ATEXT = "!#$%&'*+-/=?^_`{|}~";

function isAtext(c: number): boolean {
  return isAlpha(c) || isDigit(c) || (c < 0x80 && ATEXT.includes(String.fromCharCode(c)));
}

/** `local@domain`: dot-separated atoms, then two or more labels of letters, digits, hyphens. */
export function isEmail(s: string): boolean {
  const at = s.indexOf("@");
  if (at < 1) return false;
  // 1. local part: atoms separated by single dots
  for (let i = 0; i < at; i++) {
    const c = s.charCodeAt(i);
    if (c === 0x2e) {
      if (i === 0 || i === at - 1 || s.charCodeAt(i - 1) === 0x2e) return false;
    } else if (!isAtext(c)) return false;
  }
  // 2. domain: labels that start and end with a letter or digit, at least two
  let labels = 0;
  let start = at + 1;
  for (let i = start; i <= s.length; i++) {
    const c = i === s.length ? 0x2e : s.charCodeAt(i);
    if (c === 0x2e) {
      if (i === start) return false;
      if (s.charCodeAt(i - 1) === 0x2d) return false;
      labels++;
      start = i + 1;
    } else if (c === 0x2d) {
      if (i === start) return false;
    } else if (!isAlpha(c) && !isDigit(c)) return false;
  }
  return labels >= 2;
}

// RFC 3986 §2: unreserved and sub-delims characters.
const UNRESERVED_SUB = "-._~!$&'()*+,;=";

// Characters of a URI part: unreserved, sub-delims and `extra`, or a percent escape; the index
// after the part (which ends at the first other character), or -1 for a bad escape.
function part(s: string, i: number, extra: string): number {
  for (; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (isAlpha(c) || isDigit(c)) continue;
    if (c === 0x25) {
      if (!isHex(s.charCodeAt(i + 1)) || !isHex(s.charCodeAt(i + 2))) return -1;
      i += 2;
      continue;
    }
    const ch = String.fromCharCode(c);
    if (c < 0x80 && (UNRESERVED_SUB.includes(ch) || extra.includes(ch))) continue;
    return i;
  }
  return i;
}

/** RFC 3986 §3 `URI`: an absolute URI, ASCII, with well-formed percent escapes. */
export function isUri(s: string): boolean {
  // 1. scheme ":"
  if (!isAlpha(s.charCodeAt(0))) return false;
  let i = 1;
  while (i < s.length) {
    const c = s.charCodeAt(i);
    if (!(isAlpha(c) || isDigit(c) || c === 0x2b || c === 0x2d || c === 0x2e)) break;
    i++;
  }
  if (s.charCodeAt(i++) !== 0x3a) return false;
  // 2. "//" authority: [userinfo "@"] host [":" port]
  if (s.charCodeAt(i) === 0x2f && s.charCodeAt(i + 1) === 0x2f) {
    i += 2;
    const end = part(s, i, ":@[]");
    if (end < 0) return false;
    const authority = s.slice(i, end);
    const at = authority.indexOf("@");
    let host = authority.slice(at + 1);
    if (at >= 0 && /[@[\]]/.test(authority.slice(0, at))) return false;
    if (host.startsWith("[")) {
      const close = host.indexOf("]");
      if (
        close < 0 ||
        !/^\[[0-9A-Fa-f:.]+\]$|^\[[vV][0-9A-Fa-f]+\.[^\]]+\]$/.test(host.slice(0, close + 1))
      ) {
        return false;
      }
      host = host.slice(close + 1);
      if (host !== "" && host.charCodeAt(0) !== 0x3a) return false;
    }
    const colon = host.indexOf(":");
    const name = colon < 0 ? host : host.slice(0, colon);
    if (/[@[\]]/.test(name)) return false;
    if (colon >= 0) {
      for (let k = colon + 1; k < host.length; k++) if (!isDigit(host.charCodeAt(k))) return false;
    }
    i = end;
  }
  // 3. path: pchar and "/" (after an authority it is empty or starts with "/")
  i = part(s, i, ":@/");
  if (i < 0) return false;
  // 4. "?" query, "#" fragment
  if (s.charCodeAt(i) === 0x3f) i = part(s, i + 1, ":@/?");
  if (i >= 0 && s.charCodeAt(i) === 0x23) i = part(s, i + 1, ":@/?");
  return i === s.length;
}

/** The format checks by name. */
export const FORMAT_CHECKS: Readonly<Record<string, (s: string) => boolean>> = {
  email: isEmail,
  uri: isUri,
  uuid: isUuid,
  date: isDate,
  "date-time": isDateTime,
};

/** The readable name of a format in messages. */
export const FORMAT_NAMES: Readonly<Record<string, string>> = {
  email: "an email address",
  uri: "an absolute URI (RFC 3986)",
  uuid: "a UUID",
  date: "an RFC 3339 date",
  "date-time": "an RFC 3339 date-time",
};
