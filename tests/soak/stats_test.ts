// The soak's constant-memory latency statistics against the exact percentiles of the same values.
import assert from "node:assert/strict";
import { Histogram, Phases, Window } from "./stats.ts";

/** A deterministic spread of latencies from 2 µs to about 20 s, heavy at the low end. */
function latencies(n: number): number[] {
  let seed = 42;
  const values: number[] = [];
  for (let i = 0; i < n; i++) {
    seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
    values.push(0.002 * Math.exp((seed / 2 ** 31) * 16));
  }
  return values;
}

function exact(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * q))];
}

Deno.test("a histogram's quantiles are the exact ones, at most 1 % or 10 µs high", () => {
  const values = latencies(50_000);
  const histogram = new Histogram();
  for (const ms of values) histogram.add(ms);
  const sorted = [...values].sort((a, b) => a - b);
  for (const q of [0.01, 0.5, 0.9, 0.99, 0.999, 1]) {
    const want = exact(sorted, q);
    const got = histogram.quantile(q);
    assert.ok(got >= want && got <= want * 1.01 + 0.01, `q ${q}: got ${got}, exact ${want}`);
  }
  assert.deepEqual(histogram.max, sorted[sorted.length - 1]);
  assert.deepEqual(histogram.count, values.length);
});

Deno.test("an empty histogram reads 0, and a window counts errors apart from latencies", () => {
  assert.deepEqual(new Histogram().quantile(0.99), 0);
  const window = new Window();
  window.record(3, true);
  window.record(0, false);
  window.record(70_000, true); // past the last bucket: counted there, the maximum kept exactly
  assert.deepEqual([window.requests, window.errors, window.latency.count], [3, 1, 2]);
  assert.deepEqual(window.latency.quantile(1), 70_000);
});

Deno.test("windows merged from data read as one window that saw every value", () => {
  const values = latencies(20_000);
  const whole = new Window();
  const parts = [new Window(), new Window(), new Window()];
  values.forEach((ms, i) => {
    whole.record(ms, i % 97 !== 0);
    parts[i % 3].record(ms, i % 97 !== 0);
  });
  const merged = new Window();
  // through JSON, as the load processes send them
  for (const part of parts) merged.merge(JSON.parse(JSON.stringify(part.data())));
  assert.deepEqual([merged.requests, merged.errors], [whole.requests, whole.errors]);
  assert.deepEqual(merged.latency.max, whole.latency.max);
  for (const q of [0.5, 0.99, 0.999]) {
    assert.deepEqual(merged.latency.quantile(q), whole.latency.quantile(q));
  }
});

Deno.test("a run's phases count each request in the whole run and in its first or last window", () => {
  const run = new Phases(1_000, 5_000);
  for (const at of [0, 999, 1_000, 3_999, 4_000, 4_999]) run.record(at, at / 100, at !== 999);
  assert.deepEqual(
    [run.total.requests, run.first.requests, run.first.errors, run.last.requests],
    [6, 2, 1, 2],
  );
  assert.deepEqual(run.last.latency.max, 49.99);
});
