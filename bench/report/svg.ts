// A small horizontal bar-chart generator for docs/benchmarks.md: every figure is drawn from
// the measured data (no hand-drawn numbers). Groups of bars share one linear axis that starts
// at 0; a bar may carry a whisker (the spread of its rounds) and is labelled with its value.
// The output is a standalone SVG document (width and height set, text in a system font).

/** One bar: its label, its value and optionally the range of the rounds it summarises. */
export interface Bar {
  label: string;
  value: number;
  low?: number;
  high?: number;
  /** Drawn in the accent colour (the subject of the comparison). */
  highlight?: boolean;
}

/** A group of bars under a heading (a path, a test type, a benchmark group). */
export interface BarGroup {
  label: string;
  bars: Bar[];
}

/** What barChart() draws. */
export interface BarChart {
  title: string;
  /** The axis caption, e.g. "requests/s relative to Hono (higher is better)". */
  axis: string;
  groups: BarGroup[];
  /** A vertical reference line, e.g. at 1 for ratios. */
  reference?: number;
  /** Digits after the point in the value labels. */
  digits?: number;
}

const WIDTH = 760;
const LABEL_WIDTH = 260;
const PLOT_WIDTH = WIDTH - LABEL_WIDTH - 90;
const BAR = 16;
const GAP = 4;
const GROUP_GAP = 14;
const TOP = 46;

/** Escapes text for SVG character data and attribute values. */
export function escapeXml(text: string): string {
  return text.replace(
    /[&<>"']/g,
    (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!,
  );
}

/** A "nice" axis end at or above `max`: 1, 2, 2.5 or 5 times a power of ten. */
export function niceMax(max: number): number {
  if (!(max > 0) || !Number.isFinite(max)) return 1;
  const power = 10 ** Math.floor(Math.log10(max));
  for (const step of [1, 2, 2.5, 5, 10]) if (step * power >= max) return step * power;
  return 10 * power;
}

/** Renders `chart` as an SVG document. Throws on a negative or non-finite value. */
export function barChart(chart: BarChart): string {
  const digits = chart.digits ?? 2;
  let max = chart.reference ?? 0;
  for (const group of chart.groups) {
    for (const bar of group.bars) {
      for (const v of [bar.value, bar.low, bar.high]) {
        if (v === undefined) continue;
        if (!Number.isFinite(v) || v < 0) {
          throw new RangeError(`${group.label} / ${bar.label}: ${v} is not a finite value ≥ 0`);
        }
        max = Math.max(max, v);
      }
    }
  }
  const end = niceMax(max);
  const x = (v: number) => LABEL_WIDTH + (v / end) * PLOT_WIDTH;
  const parts: string[] = [];
  let y = TOP;
  for (const group of chart.groups) {
    parts.push(
      `<text x="8" y="${y + 12}" font-weight="bold">${escapeXml(group.label)}</text>`,
    );
    y += 18;
    for (const bar of group.bars) {
      const fill = bar.highlight ? "#d9480f" : "#4c6ef5";
      parts.push(
        `<text x="${LABEL_WIDTH - 8}" y="${y + 12}" text-anchor="end">${
          escapeXml(bar.label)
        }</text>`,
        `<rect x="${LABEL_WIDTH}" y="${y}" width="${(x(bar.value) - LABEL_WIDTH).toFixed(1)}" ` +
          `height="${BAR}" fill="${fill}"><title>${
            escapeXml(`${bar.label}: ${bar.value}`)
          }</title></rect>`,
      );
      if (bar.low !== undefined && bar.high !== undefined) {
        const mid = y + BAR / 2;
        parts.push(
          `<path d="M${x(bar.low).toFixed(1)} ${mid}H${x(bar.high).toFixed(1)}` +
            `M${x(bar.low).toFixed(1)} ${mid - 4}v8M${x(bar.high).toFixed(1)} ${mid - 4}v8" ` +
            `stroke="#212529" stroke-width="1.2" fill="none"/>`,
        );
      }
      const labelAt = Math.max(x(bar.value), bar.high === undefined ? 0 : x(bar.high));
      parts.push(
        `<text x="${(labelAt + 6).toFixed(1)}" y="${y + 12}">${bar.value.toFixed(digits)}</text>`,
      );
      y += BAR + GAP;
    }
    y += GROUP_GAP;
  }
  const plotBottom = y;
  const axis: string[] = [];
  for (let i = 0; i <= 4; i++) {
    const v = (end * i) / 4;
    axis.push(
      `<line x1="${x(v).toFixed(1)}" y1="${TOP - 6}" x2="${x(v).toFixed(1)}" y2="${plotBottom}" ` +
        `stroke="#dee2e6"/>`,
      `<text x="${x(v).toFixed(1)}" y="${plotBottom + 14}" text-anchor="middle">${
        Number(v.toPrecision(4))
      }</text>`,
    );
  }
  if (chart.reference !== undefined) {
    axis.push(
      `<line x1="${x(chart.reference).toFixed(1)}" y1="${TOP - 6}" ` +
        `x2="${x(chart.reference).toFixed(1)}" y2="${plotBottom}" stroke="#212529" ` +
        `stroke-dasharray="4 3"/>`,
    );
  }
  const height = plotBottom + 40;
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${height}" ` +
    `viewBox="0 0 ${WIDTH} ${height}" font-family="system-ui, sans-serif" font-size="12">`,
    `<rect width="${WIDTH}" height="${height}" fill="#fff"/>`,
    `<text x="8" y="20" font-size="15" font-weight="bold">${escapeXml(chart.title)}</text>`,
    ...axis,
    ...parts,
    `<text x="${LABEL_WIDTH + PLOT_WIDTH / 2}" y="${plotBottom + 32}" text-anchor="middle">${
      escapeXml(chart.axis)
    }</text>`,
    "</svg>",
    "",
  ].join("\n");
}
