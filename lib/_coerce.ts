// Query strings, path params and header values are text. These rules turn them into the
// values a Weft schema's field expects, once and the same way everywhere, before the schema's
// own check runs; JSON bodies never go through here (decision 11: JSON decoding never coerces).
//
//   integer   "42" → 42; "4.2", "42abc", "", "1e3", "+1", " 42" stay text and fail the check
//   number    JSON number syntax ("-1.5e3") → number; anything else stays text
//   boolean   "true" → true, "false" → false; nothing else ("1", "yes", "") is coerced
//   literal, enum   a value whose text is the input ("3" for 3, "true" for true)
//   array     every value of a repeated key (a header: its comma-separated members), each coerced;
//             absent → [] (a nullable array too: text cannot say null)
//   optional  absent → undefined; nullable: the inner rule ("null" is not coerced)
//   others    the text as it is (the first value of a repeated key)
import { formatPath, type PathKey } from "./json/json_error.ts";
import { isWeftSchema, schema, type SchemaNode } from "./json/schema.ts";
import { isToken, parseList } from "./middleware/_headers.ts";

const INTEGER = /^-?(?:0|[1-9][0-9]*)$/;
const NUMBER = /^-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?$/;

function scalar(node: SchemaNode, text: string): unknown {
  switch (node.kind) {
    case "integer":
      return INTEGER.test(text) ? Number(text) : text;
    case "number":
      return NUMBER.test(text) ? Number(text) : text;
    case "boolean":
      return text === "true" ? true : text === "false" ? false : text;
    case "literal":
      return String(node.value) === text ? node.value : text;
    case "enum":
      return node.values.find((value) => String(value) === text) ?? text;
    case "optional":
    case "nullable":
      return scalar(node.inner as SchemaNode, text);
    default:
      return text;
  }
}

/** The value of one field from its texts (none when absent). */
export function coerce(node: SchemaNode, texts: readonly string[]): unknown {
  if (node.kind === "optional") {
    return texts.length === 0 ? undefined : coerce(node.inner as SchemaNode, texts);
  }
  // text carries no null: a nullable field reads as its inner one (an array left out is [])
  if (node.kind === "nullable") return coerce(node.inner as SchemaNode, texts);
  if (node.kind === "array") return texts.map((text) => scalar(node.item as SchemaNode, text));
  return texts.length === 0 ? undefined : scalar(node, texts[0]);
}

/** One failing field of a request part, as the 400 problem lists it. */
export interface FieldError {
  /** The request part: `"params"`, `"query"` or `"headers"`. */
  in: string;
  /** The path of the field, like `$.limit` or `$.tags[1]`. */
  path: string;
  /** What is wrong with it. */
  message: string;
}

/**
 * Reads, coerces and checks one request part: the value, or every failing field. `read` gives
 * the texts of a key; `keys` lists the keys present, for a schema that rejects unknown keys.
 */
export type PartReader = (
  read: (key: string) => string[],
  keys?: Iterable<string>,
) => { value: Record<string, unknown> } | { errors: FieldError[] };

/**
 * Prepares the reader of one request part (`"query"`, `"params"`, `"headers"`) for an object
 * schema: each field is coerced by the rules above and checked by the JSON module's own check,
 * field by field, so that a failure names every failing field, not only the first. With
 * `lists`, an array field splits each text at commas (header lists, RFC 9110 §5.3), leaving
 * out empty elements (§5.6.1).
 */
export function partReader(part: string, target: unknown, lists = false): PartReader {
  if (!isWeftSchema(target) || target.kind !== "object") {
    throw new TypeError(`Cannot validate the ${part}: the schema must be a schema.object()`);
  }
  for (const [key, field] of Object.entries(target.shape)) {
    // a header is read by its name, which Headers refuses (throws) unless it is a token
    if (lists && !isToken(key)) {
      throw new TypeError(
        `Cannot validate the ${part}: "${key}" is not a header name (RFC 9110 §5.1: a token)`,
      );
    }
    const kind = untextual(field as SchemaNode, false);
    if (kind !== undefined) {
      throw new TypeError(
        `Cannot validate the ${part}: the field "${key}" is ${kind}, which text cannot hold ` +
          "(its check could never pass); give it a string, number, integer, boolean, literal, " +
          "enum or any schema, or an array of one",
      );
    }
  }
  const fields = Object.entries(target.shape).map(([key, field]) => ({
    key,
    field: field as SchemaNode,
    split: lists && unwrap(field as SchemaNode).kind === "array",
    // The field checked inside a one-field object, so that paths read `$.key…`.
    check: schema.object({ [key]: field })["~standard"].validate,
  }));
  const known = new Set(fields.map(({ key }) => key));
  const reject = target.unknownKeys === "reject";
  return function read(source, keys) {
    const value: Record<string, unknown> = {};
    const errors: FieldError[] = [];
    for (const { key, field, split, check } of fields) {
      let texts = source(key);
      // RFC 9110 §5.6.1: empty elements ("1,,2", "1, 2,") are ignored
      if (split) texts = texts.flatMap(parseList);
      const coerced = coerce(field, texts);
      const result = check(coerced === undefined ? {} : { [key]: coerced });
      if ("issues" in result && result.issues !== undefined) {
        for (const { message, path = [key] } of result.issues) {
          const at = path.map((step) => (typeof step === "object" ? step.key : step) as PathKey);
          errors.push({ in: part, path: formatPath(at), message });
        }
      } else if (coerced !== undefined) value[key] = coerced;
    }
    if (reject && keys !== undefined) {
      // a repeated unknown key is one unexpected field
      for (const key of new Set(keys)) {
        if (!known.has(key)) {
          errors.push({ in: part, path: formatPath([key]), message: "Unexpected field" });
        }
      }
    }
    return errors.length > 0 ? { errors } : { value };
  };
}

// What makes a field unreadable from text (an object, a record, a union, null, an array of
// arrays), or undefined when the rules above read it.
function untextual(node: SchemaNode, item: boolean): string | undefined {
  switch (node.kind) {
    case "optional":
    case "nullable":
      return untextual(node.inner as SchemaNode, item);
    case "array":
      return item ? "an array of arrays" : untextual(node.item as SchemaNode, true);
    case "object":
    case "record":
    case "union":
      return item
        ? `an array of ${node.kind}s`
        : node.kind === "object"
        ? "an object"
        : `a ${node.kind}`;
    case "null":
      return item ? "an array of nulls" : "null";
    default:
      return undefined;
  }
}

function unwrap(node: SchemaNode): SchemaNode {
  return node.kind === "optional" || node.kind === "nullable"
    ? unwrap(node.inner as SchemaNode)
    : node;
}
