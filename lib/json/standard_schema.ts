/**
 * The Standard Schema v1 interface (https://standardschema.dev), written out as flat types
 * (the spec's own file uses a namespace, which Weft's style avoids). The spec asks libraries
 * to copy these types rather than depend on a package; they are structurally identical, so
 * zod, valibot and arktype schemas satisfy {@linkcode StandardSchemaV1}.
 *
 * @module
 */

/** A Standard Schema v1 validator: any object with a `~standard` property of this shape. */
export interface StandardSchemaV1<Input = unknown, Output = Input> {
  /** The Standard Schema properties. */
  readonly "~standard": StandardSchemaV1Props<Input, Output>;
}

/** The `~standard` property of a Standard Schema v1 validator. */
export interface StandardSchemaV1Props<Input = unknown, Output = Input> {
  /** The version number of the standard: always `1`. */
  readonly version: 1;
  /** The vendor name of the schema library (`"weft"` for Weft's schemas). */
  readonly vendor: string;
  /** Validates an unknown value. */
  readonly validate: (
    value: unknown,
    options?: StandardSchemaV1Options | undefined,
  ) => StandardSchemaV1Result<Output> | Promise<StandardSchemaV1Result<Output>>;
  /** The input and output types; present in the type only, never at run time. */
  readonly types?: StandardSchemaV1Types<Input, Output> | undefined;
}

/** Options a caller may pass to `validate`. */
export interface StandardSchemaV1Options {
  /** Vendor-specific parameters. */
  readonly libraryOptions?: Record<string, unknown> | undefined;
}

/** The result of `validate`: a value, or issues. */
export type StandardSchemaV1Result<Output> =
  | StandardSchemaV1SuccessResult<Output>
  | StandardSchemaV1FailureResult;

/** The result of a successful validation. */
export interface StandardSchemaV1SuccessResult<Output> {
  /** The typed output value. */
  readonly value: Output;
  /** The absence of issues indicates success. */
  readonly issues?: undefined;
}

/** The result of a failed validation. */
export interface StandardSchemaV1FailureResult {
  /** The issues, at least one. */
  readonly issues: ReadonlyArray<StandardSchemaV1Issue>;
}

/** One issue of a failed validation. */
export interface StandardSchemaV1Issue {
  /** A readable message. */
  readonly message: string;
  /** Where the issue is, from the root value. */
  readonly path?: ReadonlyArray<PropertyKey | StandardSchemaV1PathSegment> | undefined;
}

/** A path segment in object form. */
export interface StandardSchemaV1PathSegment {
  /** The key of this segment. */
  readonly key: PropertyKey;
}

/** The type carrier of a Standard Schema. */
export interface StandardSchemaV1Types<Input = unknown, Output = Input> {
  /** The input type. */
  readonly input: Input;
  /** The output type. */
  readonly output: Output;
}

/**
 * The output type of any Standard Schema v1 validator, Weft's own included.
 *
 * @example
 * ```ts
 * import { schema, type Infer } from "./mod.ts";
 *
 * const User = schema.object({ name: schema.string() });
 * const user: Infer<typeof User> = { name: "Ada" };
 * ```
 */
export type Infer<S extends StandardSchemaV1> = NonNullable<S["~standard"]["types"]>["output"];
