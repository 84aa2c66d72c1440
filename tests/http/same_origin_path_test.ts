import assert from "node:assert/strict";
import fc from "fast-check";
import { sameOriginPath } from "../../lib/http/same_origin_path.ts";

function assertSameOrigin(location: string, input: string): void {
  let decoded = location;
  try {
    decoded = decodeURIComponent(location);
  } catch {
    // not decodable: a proxy could not decode it either
  }
  for (const candidate of [location, decoded]) {
    const url = new URL(candidate, "http://localhost/");
    assert.equal(url.origin, "http://localhost", JSON.stringify({ input, location }));
  }
}

Deno.test("sameOriginPath() collapses a leading run of slashes, backslashes and their escapes", () => {
  const cases: [string, string][] = [
    ["/", "/"],
    ["", "/"],
    ["/a/b/", "/a/b/"],
    ["//evil.example", "/evil.example"],
    ["/\\evil.example", "/evil.example"],
    ["\\\\evil.example", "/evil.example"],
    ["/%5Cevil.example", "/evil.example"],
    ["/%5c%2f%2F/evil.example", "/evil.example"],
    ["/%09/evil.example", "/evil.example"],
    ["/\t/\n\r/evil.example", "/evil.example"],
    ["/%0a%0D//evil.example/x//y", "/evil.example/x//y"],
    ["evil.example", "/evil.example"],
    ["/%2e%2e/a", "/%2e%2e/a"],
    ["/%2", "/%2"],
  ];
  for (const [input, expected] of cases) assert.equal(sameOriginPath(input), expected, input);
});

Deno.test("sameOriginPath() gives a same-origin Location for any path, even decoded once", () => {
  const piece = fc.constantFrom(
    "/",
    "\\",
    "\t",
    "\n",
    "\r",
    "%2F",
    "%2f",
    "%5C",
    "%5c",
    "%09",
    "%0A",
    "%0d",
    "%",
    "%2",
    "evil.example",
    ":",
    "@",
    ".",
    "a",
  );
  fc.assert(
    fc.property(fc.array(piece, { maxLength: 10 }), (parts) => {
      const input = parts.join("");
      assertSameOrigin(sameOriginPath(input), input);
    }),
    { numRuns: 5_000 },
  );
});
