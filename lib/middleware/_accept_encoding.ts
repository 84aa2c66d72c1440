// Accept-Encoding negotiation for compress() (RFC 9110 §12.5.3): q-values, `*` and
// `identity`, with the server's order breaking ties. Browsers send the same few header values
// over and over, so parsed weights are memoized in a small table dropped wholesale when full.
import type { ContentCoding } from "../server/types.ts";
import { parseList } from "./_headers.ts";
import { parseCoding } from "../http/_codings.ts";

/** The weights a client gave each coding by name (`x-gzip` counts as `gzip`), and `*`. */
type Weights = Map<string, number>;

const MEMO_LIMIT = 256;
const memo = /* @__PURE__ */ new Map<string, Weights>();

function parseWeights(header: string): Weights {
  const weights: Weights = new Map();
  for (const member of parseList(header)) {
    const parsed = parseCoding(member);
    if (parsed === null) continue;
    const [named, q] = parsed;
    const coding = named === "x-gzip" ? "gzip" : named;
    weights.set(coding, Math.max(q, weights.get(coding) ?? 0));
  }
  return weights;
}

/**
 * Picks the coding to send among `available` (in the server's order of preference): the one
 * with the highest weight, the earlier one on a tie, named or weighed by `*`. `null` means no
 * coding: the header is absent or empty, nothing available is acceptable, or the client weighs
 * `identity` explicitly higher than the best coding. A response is then sent as it is, also
 * when the client refused `identity` (`identity;q=0`): a 406 would help no one.
 *
 * @param header The request's `Accept-Encoding`.
 * @param available The codings the server may use, preferred first.
 */
export function negotiateEncoding(
  header: string | null,
  available: readonly ContentCoding[],
): ContentCoding | null {
  if (header === null || header === "") return null;
  let weights = memo.get(header);
  if (weights === undefined) {
    weights = parseWeights(header);
    if (memo.size >= MEMO_LIMIT) memo.clear();
    memo.set(header, weights);
  }
  const star = weights.get("*");
  let best: ContentCoding | null = null;
  let bestQ = 0;
  for (const coding of available) {
    const q = weights.get(coding) ?? star ?? 0;
    if (q > bestQ) {
      best = coding;
      bestQ = q;
    }
  }
  const identity = weights.get("identity") ?? star;
  if (best !== null && identity !== undefined && identity > bestQ) return null;
  return best;
}
