// The benchmark report's bar charts (bench/report/svg.ts): drawn from the data, escaped,
// scaled to a nice axis end, and refusing values they cannot draw.
import assert from "node:assert/strict";
import { barChart, escapeXml, niceMax } from "../../bench/report/svg.ts";

Deno.test("niceMax rounds up to 1, 2, 2.5 or 5 times a power of ten", () => {
  assert.deepEqual([0.7, 1, 1.3, 2.2, 4, 7, 12_300].map(niceMax), [1, 1, 2, 2.5, 5, 10, 20_000]);
  assert.equal(niceMax(0), 1);
});

Deno.test("a bar's width is its value on the shared axis, its whisker the range", () => {
  const svg = barChart({
    title: "req/s <ratio> & more",
    axis: "relative to raw",
    reference: 1,
    groups: [
      {
        label: "/user/42",
        bars: [{ label: "raw", value: 1 }, {
          label: "weft",
          value: 1.5,
          low: 1.25,
          high: 1.75,
          highlight: true,
        }],
      },
    ],
  });
  assert.match(svg, /^<svg xmlns="http:\/\/www.w3.org\/2000\/svg" width="760" height="\d+"/);
  assert.ok(svg.includes("req/s &lt;ratio&gt; &amp; more"));
  // axis end 2: the plot is 410 px wide from x = 260, so 1 → 205 px and 1.5 → 307.5 px
  const widths = [...svg.matchAll(/<rect x="260" y="\d+" width="([\d.]+)"/g)].map((m) => m[1]);
  assert.deepEqual(widths, ["205.0", "307.5"]);
  assert.ok(svg.includes('<path d="M516.3 '), "the whisker starts at 1.25");
  assert.ok(svg.includes('fill="#d9480f"'), "the highlighted bar has the accent colour");
  assert.ok(svg.includes(">1.50</text>"));
  assert.equal((svg.match(/<text /g) ?? []).length, 1 + 5 + 1 + 1 + 2 * 2);
});

Deno.test("barChart refuses negative and non-finite values", () => {
  for (const value of [-1, NaN, Infinity]) {
    assert.throws(
      () =>
        barChart({
          title: "t",
          axis: "a",
          groups: [{ label: "g", bars: [{ label: "b", value }] }],
        }),
      RangeError,
    );
  }
});

Deno.test("escapeXml escapes the five XML specials", () => {
  assert.equal(
    escapeXml(`<a href="x">'&'</a>`),
    "&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;",
  );
});
