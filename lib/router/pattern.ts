/**
 * Route patterns: parsing `"/users/:id/files/*path"` into segments, and the type that turns a
 * pattern into its params record.
 *
 * @module
 */

/** One parsed segment of a route pattern. */
export type Segment =
  | { readonly kind: "static"; readonly value: string }
  | { readonly kind: "param"; readonly name: string }
  | { readonly kind: "wildcard"; readonly name: string };

/** The param or wildcard name of one pattern segment, or `never`. */
export type SegmentName<S extends string> = S extends `:${infer Name}` ? Name
  : S extends `*${infer Name}` ? Name
  : never;

/** The union of param and wildcard names of a pattern. */
export type ParamNames<P extends string> = P extends `${infer Head}/${infer Rest}`
  ? SegmentName<Head> | ParamNames<Rest>
  : SegmentName<P>;

/**
 * The params record of a route pattern: `"/users/:id/files/*path"` gives
 * `{ id: string; path: string }`.
 *
 * @example
 * ```ts
 * import type { PathParams } from "./pattern.ts";
 * const params: PathParams<"/users/:id/files/*path"> = { id: "7", path: "a/b.txt" };
 * ```
 */
export type PathParams<P extends string> = string extends P ? Record<string, string>
  : { [K in ParamNames<P>]: string };

/**
 * Parses a route pattern into segments; throws a `TypeError` naming the pattern when it is
 * malformed (no leading `/`, an empty param or wildcard name, a wildcard that is not last).
 *
 * @param pattern The route pattern, e.g. `"/users/:id"`.
 * @returns The segments after the leading slash (`"/"` gives one empty static segment).
 *
 * @example
 * ```ts
 * import { parsePattern } from "./pattern.ts";
 * import assert from "node:assert/strict";
 * assert.deepEqual(parsePattern("/users/:id"), [
 *   { kind: "static", value: "users" },
 *   { kind: "param", name: "id" },
 * ]);
 * ```
 */
export function parsePattern(pattern: string): Segment[] {
  const fail = (why: string): never => {
    throw new TypeError(`Cannot parse route pattern "${pattern}": ${why}`);
  };
  if (typeof pattern !== "string" || pattern[0] !== "/") fail(`it must start with "/"`);
  const parts = pattern.slice(1).split("/");
  const segments: Segment[] = [];
  const names = new Set<string>();
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i];
    const sigil = part[0];
    if (sigil !== ":" && sigil !== "*") {
      // Requests are matched decoded, a "/" or "%" inside a segment kept as %2F or %25: any
      // other escape in a pattern would match no request.
      if (/%(?!2F|25)/.test(part)) fail("write it decoded (only %2F and %25 stay escaped)");
      segments.push({ kind: "static", value: part });
      continue;
    }
    const name = part.slice(1);
    const kind = sigil === ":" ? "param" : "wildcard";
    if (!/^[A-Za-z_$][\w$]*$/.test(name)) fail(`${kind} name "${name}" must be an identifier`);
    if (names.has(name)) fail(`"${name}" appears twice`);
    // ctx.params is a plain object: this name would set its prototype, not a param
    if (name === "__proto__") fail(`"__proto__" cannot name a ${kind}`);
    if (kind === "wildcard" && i !== parts.length - 1) {
      fail(`the wildcard "*${name}" must be the last segment`);
    }
    names.add(name);
    segments.push({ kind, name });
  }
  return segments;
}
