// Accept-Encoding negotiation for precompressed variants (RFC 9110 §12.5.3): q-values, `*`,
// `identity`. Browsers send the same few header values over and over, so parsed weights are
// memoized in a small table that is dropped wholesale when full. The list parser comes from
// the caller (ResolveConfig.parseList), so this lazily loaded engine shares no module with the
// core, which parses lists with it too.
import { parseCoding } from "../http/_codings.ts";

/** The content codings staticFiles() can serve from precompressed files, in preference order. */
export type Coding = "br" | "gzip";

/** The weights a client gave `br`, `gzip` and `identity` (0 means not acceptable). */
interface Weights {
  br: number;
  gzip: number;
  identity: number;
  /** Whether `identity` was weighted explicitly (by name or by `*`). */
  identityExplicit: boolean;
}

const MEMO_LIMIT = 256;
const memo = /* @__PURE__ */ new Map<string, Weights>();

function parseWeights(header: string, parseList: (value: string) => string[]): Weights {
  const weights: Weights = { br: 0, gzip: 0, identity: 1, identityExplicit: false };
  let star = -1;
  const seen = new Set<string>();
  for (const member of parseList(header)) {
    const parsed = parseCoding(member);
    if (parsed === null) continue;
    const [coding, q] = parsed;
    seen.add(coding);
    if (coding === "*") star = q;
    else if (coding === "br") weights.br = q;
    else if (coding === "gzip" || coding === "x-gzip") weights.gzip = Math.max(weights.gzip, q);
    else if (coding === "identity") {
      weights.identity = q;
      weights.identityExplicit = true;
    }
  }
  // `*` weighs every coding not listed by name, identity included
  if (star !== -1) {
    if (!seen.has("br")) weights.br = star;
    if (!seen.has("gzip") && !seen.has("x-gzip")) weights.gzip = star;
    if (!seen.has("identity")) {
      weights.identity = star;
      weights.identityExplicit = true;
    }
  }
  return weights;
}

/**
 * Picks the coding to send: the acceptable available coding with the highest weight (`br`
 * before `gzip` on a tie), unless the client weighs `identity` explicitly higher. `null` means
 * the file as it is, which is also the answer when the header is absent, and when nothing the
 * client accepts exists (identity is always available as a last resort).
 */
export function negotiateCoding(
  header: string | null,
  hasBr: boolean,
  hasGzip: boolean,
  parseList: (value: string) => string[],
): Coding | null {
  if (header === null) return null;
  let weights = memo.get(header);
  if (weights === undefined) {
    weights = parseWeights(header, parseList);
    if (memo.size >= MEMO_LIMIT) memo.clear();
    memo.set(header, weights);
  }
  const br = hasBr ? weights.br : 0;
  const gzip = hasGzip ? weights.gzip : 0;
  const best = Math.max(br, gzip);
  if (best === 0) return null;
  if (weights.identityExplicit && weights.identity > best) return null;
  return br === best ? "br" : "gzip";
}
