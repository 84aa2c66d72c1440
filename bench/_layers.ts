// The cost of one middleware layer, from kinds written "family:N" (N layers in front of the same
// routes, bench/load/servers.ts and bench/node/servers.mjs): for each family run with two or more
// layer counts, its fewest and most layers, whose difference divided by the layers between them
// is what one layer costs a request.

/** A family's fewest-layers and most-layers kinds. */
export interface LayerPair {
  family: string;
  few: string;
  many: string;
  /** The layers between them. */
  layers: number;
}

/** The families among `kinds` that ran with at least two layer counts. */
export function layerPairs(kinds: readonly string[]): LayerPair[] {
  const counts = new Map<string, number[]>();
  for (const kind of kinds) {
    const match = /^(.+):(\d+)$/.exec(kind);
    if (match === null) continue;
    const [, family, n] = match;
    counts.set(family, [...counts.get(family) ?? [], Number(n)]);
  }
  const pairs: LayerPair[] = [];
  for (const [family, ns] of counts) {
    const few = Math.min(...ns), many = Math.max(...ns);
    if (few === many) continue;
    pairs.push({ family, few: `${family}:${few}`, many: `${family}:${many}`, layers: many - few });
  }
  return pairs;
}
