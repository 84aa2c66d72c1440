// Header helpers shared by the built-in middleware and the App (lib/_app.ts): comma-list
// parsing in one linear pass, Vary merging, and access to the headers of responses whose
// headers may be immutable.

/** RFC 9110 §5.6.2 `tchar`, as a lookup table over ASCII. */
const TCHAR: Uint8Array = /* @__PURE__ */ (() => {
  const table = new Uint8Array(128);
  const chars = "!#$%&'*+-.^_`|~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
  for (let i = 0; i < chars.length; i++) table[chars.charCodeAt(i)] = 1;
  return table;
})();

/** Whether `value` is a non-empty RFC 9110 token (a method or a field name). */
export function isToken(value: string): boolean {
  if (value.length === 0) return false;
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if (c > 127 || TCHAR[c] === 0) return false;
  }
  return true;
}

function isOws(c: number): boolean {
  return c === 0x20 || c === 0x09;
}

/**
 * Splits an RFC 9110 §5.6.1 comma-separated list into its non-empty elements, trimmed of
 * optional whitespace. One pass over the string, no regular expression, so a value made of
 * whitespace and commas costs linear time.
 */
export function parseList(value: string): string[] {
  const out: string[] = [];
  const length = value.length;
  let i = 0;
  while (i < length) {
    // 1. skip separators and whitespace
    let c = value.charCodeAt(i);
    if (c === 0x2c || isOws(c)) {
      i++;
      continue;
    }
    // 2. the element runs to the next comma
    const start = i;
    let end = i;
    while (i < length) {
      c = value.charCodeAt(i);
      if (c === 0x2c) break;
      if (!isOws(c)) end = i + 1;
      i++;
    }
    out.push(value.slice(start, end));
  }
  return out;
}

/**
 * Adds each field of the comma-separated `value` to the response's `Vary` unless it is listed
 * already or `Vary` holds `*`, which names every field; existing values are kept as they are.
 * A `*` replaces the list (RFC 9110 §12.5.5).
 */
export function appendVary(headers: Headers, value: string): void {
  outer: for (const token of parseList(value)) {
    const current = headers.get("vary");
    const wanted = token.toLowerCase();
    if (current !== null) {
      for (const element of parseList(current)) {
        const lower = element.toLowerCase();
        if (lower === wanted || lower === "*") continue outer;
      }
    }
    if (current === null || wanted === "*") headers.set("vary", token);
    else headers.append("vary", token);
  }
}

/**
 * Applies `edit` to the response's headers. Responses from `fetch()` or `Response.redirect()`
 * have immutable headers: their first change throws a TypeError before anything changed, and
 * the edit is applied to a copy with the same body, status and headers instead.
 */
export function editHeaders(res: Response, edit: (headers: Headers) => void): Response {
  try {
    edit(res.headers);
    return res;
  } catch (error) {
    if (!(error instanceof TypeError)) throw error;
  }
  let copy: Response;
  try {
    copy = new Response(res.body, res);
  } catch {
    return res; // A status the constructor refuses (101): nothing can be added.
  }
  edit(copy.headers);
  return copy;
}
