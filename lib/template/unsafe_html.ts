/**
 * The explicit way to mark a string as HTML for `{{{path}}}`.
 *
 * @module
 */
import type { SafeHtml } from "./types.ts";

/**
 * Marks `html` as safe to insert without escaping. Only pass HTML you wrote or sanitized:
 * nothing is checked.
 *
 * @param html Trusted HTML.
 * @returns The same string, typed `SafeHtml`.
 *
 * @example Feed raw output
 * ```ts
 * import { unsafeHtml } from "./mod.ts";
 * import assert from "node:assert/strict";
 *
 * const icon = unsafeHtml("<svg></svg>");
 * assert.equal(icon, "<svg></svg>");
 * ```
 */
export function unsafeHtml(html: string): SafeHtml {
  return html as SafeHtml;
}
