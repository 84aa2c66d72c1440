// The constraints of the schema builder, checked once, where a schema is built (a TypeError
// for one that cannot hold); a schema holds only the constraints given.
import type { NumberConstraints, StringConstraints } from "./_node.ts";

export function defined<T extends Record<string, unknown>>(fields: T): Partial<T> {
  const out: Partial<T> = {};
  for (const key in fields) if (fields[key] !== undefined) out[key] = fields[key];
  return out;
}

export function count(where: string, name: string, value: unknown): number | undefined {
  if (value !== undefined && !(Number.isSafeInteger(value) && (value as number) >= 0)) {
    throw new TypeError(`Cannot build ${where}: ${name} is a non-negative integer`);
  }
  return value as number | undefined;
}

function limit(where: string, name: string, value: unknown): number | undefined {
  if (value !== undefined && !(typeof value === "number" && Number.isFinite(value))) {
    throw new TypeError(`Cannot build ${where}: ${name} is a finite number`);
  }
  return value as number | undefined;
}

export function range(where: string, low: string, min?: number, max?: number): void {
  if (min !== undefined && max !== undefined && min > max) {
    throw new TypeError(`Cannot build ${where}: ${low} ${min} is more than the maximum ${max}`);
  }
}

const FORMATS: readonly string[] = ["email", "uri", "uuid", "date", "date-time"];

export function stringConstraints(c: StringConstraints): StringConstraints {
  const where = "a string schema";
  const minLength = count(where, "minLength", c.minLength);
  const maxLength = count(where, "maxLength", c.maxLength);
  range(where, "minLength", minLength, maxLength);
  let pattern: RegExp | undefined;
  if (c.pattern !== undefined) {
    if (!(c.pattern instanceof RegExp)) {
      throw new TypeError(`Cannot build ${where}: pattern is a RegExp`);
    }
    // a stateless copy, compiled once: `g` and `y` would make test() remember lastIndex
    pattern = new RegExp(c.pattern.source, c.pattern.flags.replace(/[gy]/g, ""));
  }
  if (c.format !== undefined && !FORMATS.includes(c.format)) {
    throw new TypeError(`Cannot build ${where}: format is one of ${FORMATS.join(", ")}`);
  }
  return defined({ minLength, maxLength, pattern, format: c.format });
}

export function numberConstraints(c: NumberConstraints, integer = false): NumberConstraints {
  const where = integer ? "an integer schema" : "a number schema";
  const minimum = limit(where, "minimum", c.minimum);
  const maximum = limit(where, "maximum", c.maximum);
  const exclusiveMinimum = limit(where, "exclusiveMinimum", c.exclusiveMinimum);
  const exclusiveMaximum = limit(where, "exclusiveMaximum", c.exclusiveMaximum);
  const multipleOf = limit(where, "multipleOf", c.multipleOf);
  range(where, "minimum", minimum, maximum);
  // an exclusive bound that meets or passes the other bound leaves no number either
  const low = exclusiveMinimum ?? -Infinity, high = exclusiveMaximum ?? Infinity;
  if (low >= (maximum ?? Infinity) || (minimum ?? -Infinity) >= high || low >= high) {
    throw new TypeError(`Cannot build ${where}: its bounds leave no number between them`);
  }
  // { minimum: 1.2, maximum: 1.8 } leaves numbers, but no integer
  if (integer) {
    const least = Math.max(Math.ceil(minimum ?? -Infinity), Math.floor(low) + 1);
    const most = Math.min(Math.floor(maximum ?? Infinity), Math.ceil(high) - 1);
    if (least > most) {
      throw new TypeError(`Cannot build ${where}: its bounds leave no integer between them`);
    }
  }
  if (multipleOf !== undefined && multipleOf <= 0) {
    throw new TypeError(`Cannot build ${where}: multipleOf is more than 0`);
  }
  return defined({ minimum, maximum, exclusiveMinimum, exclusiveMaximum, multipleOf });
}
