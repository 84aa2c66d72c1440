// The slow pass of validation: after the fast pass (_check.ts) answered false, walk the
// schema again to find the first failure and its path, then turn it into a JsonError or a
// Standard Schema issue.
import type { SchemaNode as Schema, Shape } from "./schema.ts";
import type { StandardSchemaV1Result } from "./standard_schema.ts";
import {
  formatPath,
  type JsonError,
  missingField,
  type PathKey,
  typeMismatch,
} from "./json_error.ts";
import { compile, inherited, isObject, MAX_DEPTH, member, tagOf } from "./_check.ts";

/** The first failure of a value, found by the slow pass. */
export type Failure =
  | { kind: "type_mismatch"; path: PathKey[]; expected: string; received: unknown }
  | { kind: "missing_field"; path: PathKey[]; field: string }
  | { kind: "too_deep"; path: PathKey[] };

/** The expected-type name used in errors for values that fail `s` at its own level. */
function expectedName(s: Schema): string {
  switch (s.kind) {
    case "literal":
      return JSON.stringify(s.value);
    case "enum":
      return s.values.map((v) => JSON.stringify(v)).join(" | ");
    case "record":
    case "union":
      return "object";
    case "any":
      return "JSON value";
    case "optional":
      return expectedName(s.inner as Schema);
    case "nullable":
      return `${expectedName(s.inner as Schema)} | null`;
    default:
      return s.kind;
  }
}

function mismatch(s: Schema, path: PathKey[], received: unknown): Failure {
  return { kind: "type_mismatch", path: [...path], expected: expectedName(s), received };
}

/**
 * The slow pass: the first failure of `v` against `s`, or `undefined` when it passes.
 * `path` is the path of `v`; it is restored before returning.
 */
export function explain(
  s: Schema,
  v: unknown,
  path: PathKey[],
  depth: number,
  strictKeys = true,
): Failure | undefined {
  switch (s.kind) {
    case "any":
      return explainJson(v, path, depth);
    case "optional":
      return v === undefined ? undefined : explain(s.inner as Schema, v, path, depth, strictKeys);
    case "nullable": {
      if (v === null) return undefined;
      const failure = explain(s.inner as Schema, v, path, depth, strictKeys);
      // a wrong type at this very level: say both types were allowed
      if (failure?.kind === "type_mismatch" && failure.path.length === path.length) {
        return mismatch(s, path, v);
      }
      return failure;
    }
    case "array": {
      if (!Array.isArray(v)) return mismatch(s, path, v);
      if (depth > MAX_DEPTH) return { kind: "too_deep", path: [...path] };
      for (let i = 0; i < v.length; i++) {
        path.push(i);
        const failure = explain(s.item as Schema, v[i], path, depth + 1, strictKeys);
        path.pop();
        if (failure) return failure;
      }
      return undefined;
    }
    case "record": {
      if (!isObject(v)) return mismatch(s, path, v);
      if (depth > MAX_DEPTH) return { kind: "too_deep", path: [...path] };
      for (const key in v) {
        if (!Object.hasOwn(v, key)) continue;
        path.push(key);
        const failure = explain(s.value as Schema, v[key], path, depth + 1, strictKeys);
        path.pop();
        if (failure) return failure;
      }
      return undefined;
    }
    case "object":
      return explainObject(
        s.shape,
        strictKeys && s.unknownKeys === "reject",
        v,
        path,
        depth,
        strictKeys,
      );
    case "union": {
      if (!isObject(v)) return mismatch(s, path, v);
      const key = s.discriminator;
      const tag = member(v, key, inherited(key));
      if (tag === undefined) return { kind: "missing_field", path: [...path, key], field: key };
      const variant = s.variants.find((variant) => tagOf(variant.shape, key) === tag);
      if (variant === undefined) {
        const expected = s.variants.map((variant) => JSON.stringify(tagOf(variant.shape, key)))
          .join(" | ");
        return { kind: "type_mismatch", path: [...path, key], expected, received: tag };
      }
      return explain(variant as Schema, v, path, depth, strictKeys);
    }
    default:
      return compile(s).check(v, depth) ? undefined : mismatch(s, path, v);
  }
}

function explainObject(
  shape: Shape,
  reject: boolean,
  v: unknown,
  path: PathKey[],
  depth: number,
  strictKeys: boolean,
): Failure | undefined {
  if (!isObject(v)) {
    return { kind: "type_mismatch", path: [...path], expected: "object", received: v };
  }
  if (depth > MAX_DEPTH) return { kind: "too_deep", path: [...path] };
  for (const key of Object.keys(shape)) {
    const field = shape[key] as Schema;
    const x = member(v, key, inherited(key));
    if (x === undefined) {
      if (field.kind !== "optional") {
        return { kind: "missing_field", path: [...path, key], field: key };
      }
      continue;
    }
    path.push(key);
    const failure = explain(
      field.kind === "optional" ? field.inner as Schema : field,
      x,
      path,
      depth + 1,
      strictKeys,
    );
    path.pop();
    if (failure) return failure;
  }
  if (reject) {
    for (const key in v) {
      if (Object.hasOwn(v, key) && !Object.hasOwn(shape, key)) {
        return { kind: "type_mismatch", path: [...path, key], expected: "never", received: v[key] };
      }
    }
  }
  return undefined;
}

function explainJson(v: unknown, path: PathKey[], depth: number): Failure | undefined {
  switch (typeof v) {
    case "string":
    case "boolean":
      return undefined;
    case "number":
      return v - v === 0
        ? undefined
        : { kind: "type_mismatch", path: [...path], expected: "finite number", received: v };
    case "object": {
      if (v === null) return undefined;
      if (depth > MAX_DEPTH) return { kind: "too_deep", path: [...path] };
      if (Array.isArray(v)) {
        for (let i = 0; i < v.length; i++) {
          path.push(i);
          const failure = explainJson(v[i], path, depth + 1);
          path.pop();
          if (failure) return failure;
        }
        return undefined;
      }
      const o = v as Record<string, unknown>;
      for (const key in o) {
        if (!Object.hasOwn(o, key)) continue;
        path.push(key);
        const failure = explainJson(o[key], path, depth + 1);
        path.pop();
        if (failure) return failure;
      }
      return undefined;
    }
    default:
      return { kind: "type_mismatch", path: [...path], expected: "JSON value", received: v };
  }
}

/** Turns a failure other than `too_deep` into the error `json.decode` returns. */
export function toJsonError(failure: Failure): JsonError {
  switch (failure.kind) {
    case "type_mismatch":
      return typeMismatch(failure.expected, failure.path, failure.received);
    case "missing_field":
      return missingField(failure.field, failure.path.slice(0, -1));
    case "too_deep":
      return typeMismatch(`at most ${MAX_DEPTH} levels of nesting`, failure.path, undefined);
  }
}

/** The `~standard.validate` of every Weft schema. */
export function standardValidate(s: Schema, value: unknown): StandardSchemaV1Result<unknown> {
  if (compile(s).check(value, 1)) return { value };
  const failure = explain(s, value, [], 1) ??
    { kind: "type_mismatch", path: [], expected: expectedName(s), received: value };
  const message = failure.kind === "too_deep"
    ? `Nesting deeper than ${MAX_DEPTH} levels at ${formatPath(failure.path)}`
    : toJsonError(failure).message;
  return { issues: [{ message, path: failure.path }] };
}
