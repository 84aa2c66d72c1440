// The soak's mix: the schedule gives every kind of request its weight, whatever the start.
import assert from "node:assert/strict";
import { schedule } from "./load.ts";

Deno.test("the soak's schedule picks each shot as often as its weight, from any offset", () => {
  const shot = () => Promise.resolve(null);
  const shots: [string, number, typeof shot][] = [
    ["a", 4, shot],
    ["b", 2, shot],
    ["c", 3, shot],
    ["d", 1, shot],
    ["e", 1, shot],
  ]; // 11 slots, 7 divides none of them; the real mix has 21, which 7 divides
  for (const withReal of [false, true]) {
    const mix = withReal ? [...shots, ["f", 10, shot] as [string, number, typeof shot]] : shots;
    const slots = mix.reduce((n, [, weight]) => n + weight, 0);
    for (const offset of [0, 1, 5]) {
      const next = schedule(mix, offset);
      const seen: Record<string, number> = {};
      for (let i = 0; i < slots * 3; i++) {
        const [name] = next();
        seen[name] = (seen[name] ?? 0) + 1;
      }
      assert.deepEqual(seen, Object.fromEntries(mix.map(([name, weight]) => [name, weight * 3])));
    }
  }
});
