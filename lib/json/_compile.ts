// The one policy: a schema's check is generated (codegen.ts) on its first use where code
// generation is allowed, installed from a module generated ahead of time (precompiled.ts), or
// else is the reference checker (_check.ts). Failures are always explained by the reference
// checker, which states the rules.
import { isWeftSchema, type SchemaNode as Schema } from "./_node.ts";
import type { StandardSchemaV1Result } from "./standard_schema.ts";
import { formatPath, MAX_ISSUES } from "./json_error.ts";
import { type Check, checker, explain, MAX_DEPTH } from "./_check.ts";
import { type Project, project } from "./_project.ts";
import { generateCheck, generateProjection } from "./codegen.ts";

/** Which path checks a schema: its generated check, one generated ahead of time, or the walk. */
export type CheckPath = "generated" | "ahead" | "reference";

interface Root {
  check: Check;
  path: CheckPath;
  project?: Project;
}

let roots = new WeakMap<object, Root>();
let generate: boolean | undefined;

// Whether `new Function` works here (not under a CSP or --disallow-code-generation-from-strings).
function canGenerate(): boolean {
  if (generate === undefined) {
    try {
      generate = new Function("return true")() === true;
    } catch {
      generate = false;
    }
  }
  return generate;
}

// What `generate` makes, or undefined where code generation is forbidden or a schema nested
// past the stack's depth (about a thousand levels) cannot be written as code; the reference
// checker walks such a schema.
function generated<T>(generate: () => T): T | undefined {
  if (!canGenerate()) return undefined;
  try {
    return generate();
  } catch (error) {
    if (error instanceof RangeError) return undefined;
    throw error;
  }
}

/** The root of a schema: its check, made on first use. */
export function rootOf(schema: Schema): Root {
  let root = roots.get(schema);
  if (root === undefined) {
    const check = generated(() => generateCheck(schema));
    root = check !== undefined
      ? { check, path: "generated" }
      : { check: checker(schema), path: "reference" };
    roots.set(schema, root);
  }
  return root;
}

// The last schema json.decode and json.encode used, and its root: a server decodes and encodes
// most bodies with a few schemas, and this spares their lookups.
let lastSchema: object | undefined;
let lastRoot: Root | undefined;

// The root of `target` when it is a Weft schema.
function found(target: object): Root | undefined {
  if (target === lastSchema) return lastRoot;
  if (!isWeftSchema(target)) return undefined;
  lastSchema = target;
  return lastRoot = rootOf(target);
}

/** The check of `target` when it is a Weft schema (made on first use), else `undefined`. */
export function checkOf(target: object): Check | undefined {
  return found(target)?.check;
}

/** The projection of `target` for json.encode when it is a Weft schema, else `undefined`. */
export function projectionOf(target: object): Project | undefined {
  const root = found(target);
  if (root === undefined) return undefined;
  const schema = target as Schema;
  return root.project ??= generated(() => generateProjection(schema)) ??
    ((v: unknown) => project(schema, v));
}

/** Makes `check`, generated ahead of time for a value at the root, the schema's check. */
export function install(schema: Schema, check: Check): void {
  roots.set(schema, { check, path: "ahead", project: roots.get(schema)?.project });
  lastSchema = lastRoot = undefined;
}

/** Which path checks `schema` (for tests), or `undefined` before its first use. */
export function checkPath(schema: object): CheckPath | undefined {
  return roots.get(schema)?.path;
}

/**
 * Tests only: forget every schema's check and use code generation or not from now on
 * (`undefined`: as the runtime allows).
 */
export function useCodeGeneration(enabled: boolean | undefined): void {
  roots = new WeakMap();
  lastSchema = lastRoot = undefined;
  generate = enabled;
}

/** The `~standard.validate` of every Weft schema: every issue, up to MAX_ISSUES. */
export function standardValidate(s: Schema, value: unknown): StandardSchemaV1Result<unknown> {
  if (rootOf(s).check(value, 1)) return { value };
  const issues = explain(s, value, MAX_ISSUES).map(({ error, path }) => ({
    message: error?.message ?? `Nesting deeper than ${MAX_DEPTH} levels at ${formatPath(path)}`,
    path,
  }));
  return { issues };
}
