// The docs import Weft as users do ("weft", "weft/jwt", …), resolved by deno.json's import map
// to the files the package exports; every export must have its entry, so that a new entry point
// is never documented with an import that `deno test --doc` cannot resolve.
import assert from "node:assert/strict";

Deno.test('deno.json maps "weft" and every "weft/…" entry point to the file it exports', async () => {
  const config = JSON.parse(
    await Deno.readTextFile(new URL("../../deno.json", import.meta.url)),
  ) as { exports: Record<string, string>; imports: Record<string, string> };
  const expected = Object.fromEntries(
    Object.entries(config.exports).map((
      [key, file],
    ) => [key === "." ? "weft" : `weft/${key.slice(2)}`, file]),
  );
  const mapped = Object.fromEntries(
    Object.entries(config.imports).filter(([name]) => name === "weft" || name.startsWith("weft/")),
  );
  assert.deepEqual(mapped, expected);
});
