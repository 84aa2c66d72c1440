/**
 * The types that compiled templates and their callers share. Generated modules declare the
 * same types themselves (they import nothing), and because the brands are structural — a
 * string-literal property, not a `unique symbol` — the declarations are interchangeable.
 *
 * @module
 */

/**
 * HTML that may be inserted without escaping by `{{{path}}}`: the output of a compiled
 * template's `render()`, or a string passed through `unsafeHtml()`. At run time it is a plain
 * string; the brand exists only for the type checker, so a plain `string` is rejected where a
 * `SafeHtml` is expected, while a `SafeHtml` is accepted anywhere a `string` is.
 */
export type SafeHtml = string & { readonly __weft: "SafeHtml" };

/**
 * A URL that may start an `href`, `src` or `action` value through `{{url path}}`: the result
 * of `safeUrl()`. A plain `string` is rejected there by the type checker.
 */
export type SafeUrl = string & { readonly __weft: "SafeUrl" };

/** A value `{{path}}` prints, HTML-escaped. Objects, arrays, `null` and functions are not. */
export type Printable = string | number | bigint | boolean;
