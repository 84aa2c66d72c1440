// parseCookies() and findCookie() (what getCookie() runs) on the hostile inputs of issue 27, with the `cookie` package's parse (what
// Express and Fastify use) as the anchor in each group: a 64 KiB Cookie header of one value,
// of 5,000 small cookies, of pairs without "=", of one name repeated, of percent-encoded values
// and of malformed escapes.
//
//   deno bench -A bench/cookie_bench.ts
import * as cookie from "cookie";
import { findCookie, parseCookies } from "../lib/security/cookie.ts";
import { bench } from "./_groups.ts";

const SIZE = 65_536;
const INPUTS: Record<string, string> = {
  "one 64 KiB value": "big=" + "x".repeat(SIZE - 4),
  "5,000 cookies (64 KiB)": fill((i) => `c${i}=v${i}; `),
  'pairs without "=" (64 KiB)': fill(() => "novalue; "),
  "one name repeated (64 KiB)": fill(() => "dup=1; "),
  "percent-encoded values (64 KiB)": fill((i) => `p${i}=caf%C3%A9%20%E2%9C%93; `),
  // escapes that decodeURIComponent() refuses: a lone "%", and bytes that are not UTF-8
  "malformed escapes (64 KiB)": fill((i) => `m${i}=%zz%FF%C3; `),
};

function fill(piece: (i: number) => string): string {
  let text = "";
  for (let i = 0; text.length < SIZE; i++) text += piece(i);
  return text.slice(0, SIZE);
}

// Sanity: both parsers agree on every input (Weft ignores empty names, none occur here).
for (const [name, header] of Object.entries(INPUTS)) {
  const ours = JSON.stringify({ ...parseCookies(header) });
  const theirs = JSON.stringify({ ...cookie.parse(header) });
  if (ours !== theirs) throw new Error(`cookie_bench: the parsers disagree on "${name}"`);
}

for (const [name, header] of Object.entries(INPUTS)) {
  const group = `Cookie header: ${name}`;
  bench(group, "cookie package parse (anchor)", () => {
    cookie.parse(header);
  }, true);
  bench(group, "weft parseCookies", () => {
    parseCookies(header);
  });
  // what getCookie(ctx, name) does: one name, looked up in place (here, one that is absent)
  bench(group, "weft findCookie (getCookie)", () => {
    findCookie(header, "session");
  });
}
