/**
 * Checks generated ahead of time. `deno run -A lib/json/cli.ts schemas.ts` writes
 * `schemas.checks.ts`: for every schema `schemas.ts` exports, a check written out as code for
 * that schema, as one would write it by hand (see codegen.ts), and the same export, with that
 * check installed by {@linkcode precompiled}. Importing the schemas from the generated module
 * makes `json.decode` and `~standard.validate` use those checks; everything else (errors,
 * paths, encoding) is unchanged. No code is evaluated at run time.
 *
 * Each generated check carries the fingerprint of the schema it was generated from. When the
 * schema changed since, the check is not used (the schema is checked as if it had none) and one
 * warning says to generate the checks again; `cli.ts --check` fails on a stale module in CI.
 *
 * @module
 */
import { isWeftSchema, type Schema, type SchemaNode } from "./_node.ts";
import { install } from "./_compile.ts";

// What generated checks call.
export { CHECK_HELPERS, type CheckHelpers } from "./codegen.ts";

// Part of every fingerprint: a generator that writes other code must change it, so that the
// checks it wrote before count as stale.
const GENERATOR = "weft/json checks 2";

const prints = new WeakMap<SchemaNode, string>();

/**
 * The fingerprint of a schema: a hash of everything its check depends on (computed once per
 * schema; shared parts are hashed once).
 *
 * @param schema A Weft schema.
 * @returns 14 hexadecimal digits.
 */
export function fingerprint(schema: Schema): string {
  const s = schema as SchemaNode;
  let print = prints.get(s);
  if (print === undefined) {
    const of = (inner: unknown) => fingerprint(inner as Schema);
    let text: string;
    switch (s.kind) {
      case "literal":
        text = `literal ${typeof s.value} ${Object.is(s.value, -0) ? "-0" : String(s.value)}`;
        break;
      case "enum":
        text = `enum ${JSON.stringify(s.values)}`;
        break;
      case "optional":
      case "nullable":
        text = `${s.kind} ${of(s.inner)}`;
        break;
      case "array":
        text = `array ${of(s.item)} ${constraints(s)}`;
        break;
      case "record":
        text = `record ${of(s.value)} ${constraints(s)}`;
        break;
      case "object":
        text = `object ${s.unknownKeys} ${
          JSON.stringify(Object.entries(s.shape).map(([key, member]) => [key, of(member)]))
        } ${constraints(s)}`;
        break;
      case "union":
        text = `union ${JSON.stringify(s.discriminator)} ${s.variants.map(of).join(" ")}`;
        break;
      default:
        text = `${s.kind} ${constraints(s)}`;
    }
    prints.set(s, print = hash(`${GENERATOR} ${text}`));
  }
  return print;
}

const KEYS = [
  "minLength",
  "maxLength",
  "pattern",
  "format",
  "minimum",
  "maximum",
  "exclusiveMinimum",
  "exclusiveMaximum",
  "multipleOf",
  "minItems",
  "maxItems",
  "uniqueItems",
  "maxProperties",
];

// The constraints of a node, as text (a pattern as /source/flags).
function constraints(s: SchemaNode): string {
  const node = s as unknown as Record<string, unknown>;
  return JSON.stringify(
    KEYS.filter((key) => node[key] !== undefined).map((key) => [
      key,
      node[key] instanceof RegExp ? String(node[key]) : node[key],
    ]),
  );
}

// cyrb53: a 53-bit string hash, enough to tell a changed schema from the one a check was
// generated for (not meant to withstand an adversary: the generated module is the app's code).
function hash(text: string): string {
  let h1 = 0xdeadbeef, h2 = 0x41c6ce57;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ c, 2654435761);
    h2 = Math.imul(h2 ^ c, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return (4294967296 * (2097151 & h2) + (h1 >>> 0)).toString(16).padStart(14, "0");
}

let warned = false;

/**
 * Installs a check generated ahead of time for a schema (the generated module calls this; see
 * the module documentation), unless the schema changed since the check was generated.
 *
 * @param schema The schema the check was generated for.
 * @param print The schema's {@linkcode fingerprint} when the check was generated.
 * @param check Whether a value at the root matches the schema.
 * @returns `schema` itself.
 */
export function precompiled<S extends Schema>(
  schema: S,
  print: string,
  check: (value: unknown, depth: number) => boolean,
): S {
  if (!isWeftSchema(schema)) throw new TypeError("precompiled() takes a Weft schema");
  if (fingerprint(schema) === print) install(schema, check);
  else if (!warned) {
    warned = true;
    console.warn(
      "weft/json: a generated check no longer matches its schema and is not used; generate the checks again (lib/json/cli.ts)",
    );
  }
  return schema;
}
