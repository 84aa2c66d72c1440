// Another library's Standard Schema validator (zod, valibot, arktype) as the target of
// json.decode: run it, and map every issue, with its message and path, to a JsonError: the
// kind that fits (missing_field, unexpected_field, type_mismatch, constraint), else `invalid`.
import type { StandardSchemaV1, StandardSchemaV1Issue } from "./standard_schema.ts";
import {
  constraintViolation,
  formatPath,
  type JsonError,
  missingField,
  type PathKey,
  unexpectedField,
} from "./json_error.ts";

/** The outcome of a foreign validator: its output, or its issues as JsonErrors. */
export type ForeignResult =
  | { ok: true; value: unknown }
  | { ok: false; errors: JsonError[] };

/**
 * Runs `target` on `value`, mapping at most `max` issues.
 *
 * @throws {Error} when the validator throws (the error is its `cause`), and a `TypeError` when
 * it is asynchronous: faults of the validator, not of the input, which a request must not be
 * blamed for (a 400 that carried the validator's message to the client).
 */
export function foreignIssues(
  target: StandardSchemaV1,
  value: unknown,
  max: number,
): ForeignResult {
  const standard = target?.["~standard"];
  if (typeof standard?.validate !== "function") {
    throw new TypeError("Cannot decode: the target is not a schema or a Standard Schema validator");
  }
  let result;
  try {
    result = standard.validate(value);
  } catch (error) {
    throw new Error(`Cannot decode: the ${vendorOf(standard)} validator threw`, { cause: error });
  }
  if (result instanceof Promise) {
    result.catch(() => {}); // its outcome is not awaited
    throw new TypeError(
      `Cannot decode: the ${
        vendorOf(standard)
      } validator is asynchronous; json.decode needs a synchronous one`,
    );
  }
  if (result.issues === undefined) return { ok: true, value: result.value };
  const errors: JsonError[] = [];
  for (const issue of result.issues) {
    errors.push(...mapIssue(issue, value));
    if (errors.length >= max) return { ok: false, errors: errors.slice(0, max) };
  }
  if (errors.length === 0) errors.push(invalid([], "The validator failed"));
  return { ok: false, errors };
}

function vendorOf(standard: { vendor?: unknown }): string {
  return typeof standard.vendor === "string" ? JSON.stringify(standard.vendor) : "Standard Schema";
}

function invalid(path: PathKey[], message: string): JsonError {
  const at = formatPath(path);
  return { kind: "invalid", path: at, message: `${at}: ${message}` };
}

// The issue members that zod 4 and valibot add to Standard Schema's message and path.
interface Detail {
  code?: unknown; // zod
  kind?: unknown; // valibot: "schema" | "validation" | "transformation"
  type?: unknown; // valibot: "string", "min_length" …
  expected?: unknown;
  values?: unknown;
  keys?: unknown;
  origin?: unknown;
  minimum?: unknown;
  maximum?: unknown;
  inclusive?: unknown;
  format?: unknown;
  pattern?: unknown;
  divisor?: unknown;
  requirement?: unknown;
}

// valibot's validation actions that are JSON Schema constraints, by their JSON Schema name.
const VALIBOT: Readonly<Record<string, string>> = {
  min_length: "minLength",
  max_length: "maxLength",
  length: "length",
  min_value: "minimum",
  max_value: "maximum",
  gt_value: "exclusiveMinimum",
  lt_value: "exclusiveMaximum",
  multiple_of: "multipleOf",
  regex: "pattern",
  email: "format",
  url: "format",
  uuid: "format",
  iso_date: "format",
  iso_timestamp: "format",
  min_entries: "minProperties",
  max_entries: "maxProperties",
};
const VALIBOT_FORMAT: Readonly<Record<string, string>> = {
  email: "email",
  url: "uri",
  uuid: "uuid",
  iso_date: "date",
  iso_timestamp: "date-time",
};

function limitOf(value: unknown): number | string | boolean | null {
  if (value instanceof RegExp) return value.source;
  if (typeof value === "bigint") return Number(value);
  return typeof value === "number" || typeof value === "string" || typeof value === "boolean"
    ? value
    : null;
}

function mapIssue(issue: StandardSchemaV1Issue, root: unknown): JsonError[] {
  const path: PathKey[] = (issue.path ?? []).map((segment) => {
    const key = typeof segment === "object" && segment !== null ? segment.key : segment;
    return typeof key === "number" ? key : String(key);
  });
  const at = formatPath(path);
  const d = issue as Detail;
  // 1. zod's unknown-key issue names the keys instead of pointing at them
  if (Array.isArray(d.keys) && d.keys.length > 0) {
    return d.keys.map((key) => unexpectedField([...path, String(key)]));
  }
  // 2. a member absent from an object that exists: missing_field
  let parent = root;
  for (let i = 0; i < path.length - 1 && parent !== undefined; i++) {
    parent = typeof parent === "object" && parent !== null
      ? (parent as Record<PathKey, unknown>)[path[i]]
      : undefined;
  }
  const last = path[path.length - 1];
  if (
    typeof last === "string" && typeof parent === "object" && parent !== null &&
    !Array.isArray(parent) && !Object.hasOwn(parent, last)
  ) {
    const error = missingField(last, path.slice(0, -1));
    return [{ ...error, message: `${error.message} (${issue.message})` }];
  }
  // 3. a constraint: zod's size, format and multiple issues, valibot's validation actions
  const constraint = constraintOf(d);
  if (constraint !== undefined) {
    return [constraintViolation(constraint[0], constraint[1], path, issue.message)];
  }
  // 4. a wrong type or value, when the library names what it expected
  let expected: string | undefined;
  if (Array.isArray(d.values)) {
    expected = d.values.map((v) => typeof v === "bigint" ? `${v}` : JSON.stringify(v)).join(" | ");
  } else if (typeof d.expected === "string" && (d.code === "invalid_type" || d.kind === "schema")) {
    expected = d.expected;
  }
  if (expected !== undefined) {
    return [{ kind: "type_mismatch", expected, path: at, message: `${issue.message} at ${at}` }];
  }
  // 5. anything else
  return [invalid(path, issue.message)];
}

function constraintOf(d: Detail): [string, number | string | boolean | null] | undefined {
  switch (d.code) {
    case "too_small":
    case "too_big": {
      const small = d.code === "too_small";
      const limit = limitOf(small ? d.minimum : d.maximum);
      const bound = small ? "min" : "max";
      if (d.origin === "string") return [`${bound}Length`, limit];
      if (d.origin === "array" || d.origin === "set") return [`${bound}Items`, limit];
      if (d.inclusive === false) return [small ? "exclusiveMinimum" : "exclusiveMaximum", limit];
      return [small ? "minimum" : "maximum", limit];
    }
    case "invalid_format":
      return d.format === "regex" ? ["pattern", limitOf(d.pattern)] : [
        "format",
        limitOf(d.format === "url" ? "uri" : d.format === "datetime" ? "date-time" : d.format),
      ];
    case "not_multiple_of":
      return ["multipleOf", limitOf(d.divisor)];
  }
  if (d.kind === "validation" && typeof d.type === "string") {
    const name = VALIBOT[d.type] ?? d.type;
    return [name, name === "format" ? VALIBOT_FORMAT[d.type] : limitOf(d.requirement)];
  }
  return undefined;
}
