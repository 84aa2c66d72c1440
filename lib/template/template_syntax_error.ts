/**
 * The error a template compile reports: where (`file:line:column`), why (one line) and a caret
 * excerpt of the offending source line.
 *
 * @module
 */

/** Where an error points in a template source. */
export interface TemplateLocation {
  /** The template's path as given to the compiler (the one shown in messages). */
  file: string;
  /** 1-based line number. */
  line: number;
  /** 1-based column, counted in UTF-16 code units (as editors and `tsc` do). */
  column: number;
}

/**
 * A template that cannot be compiled. `message` reads
 * `file:line:column: reason` followed by a caret excerpt; the parts are also fields.
 * When a compile finds several problems, the thrown error is the first one and `errors` lists
 * all of them in source order (the thrown one included).
 *
 * @example Read the location of an error
 * ```ts
 * import { compileTemplate, TemplateSyntaxError } from "./mod.ts";
 * import assert from "node:assert/strict";
 *
 * try {
 *   compileTemplate("<p>\n  {{#if user}}hi</p>", { file: "page.html" });
 *   assert.fail("expected an error");
 * } catch (error) {
 *   assert.ok(error instanceof TemplateSyntaxError);
 *   assert.equal(`${error.file}:${error.line}:${error.column}`, "page.html:2:3");
 *   assert.equal(error.errors.length, 1);
 * }
 * ```
 */
export class TemplateSyntaxError extends Error {
  /** The template's path as given to the compiler. */
  readonly file: string;
  /** 1-based line number. */
  readonly line: number;
  /** 1-based column in UTF-16 code units. */
  readonly column: number;
  /** The one-line reason, without the location. */
  readonly reason: string;
  /** The source line with a caret under the column (two lines, no trailing newline). */
  readonly excerpt: string;
  /** Every error found in the same compile, in source order; the first is this one. */
  errors: readonly TemplateSyntaxError[];

  /**
   * Builds an error from a location, a reason and the source it points into.
   *
   * @param location Where the error is.
   * @param reason The one-line reason.
   * @param source The text of `location.file`, used for the excerpt.
   */
  constructor(location: TemplateLocation, reason: string, source: string) {
    const excerpt = caretExcerpt(source, location.line, location.column);
    super(`${location.file}:${location.line}:${location.column}: ${reason}\n${excerpt}`);
    this.name = "TemplateSyntaxError";
    this.file = location.file;
    this.line = location.line;
    this.column = location.column;
    this.reason = reason;
    this.excerpt = excerpt;
    this.errors = [this];
  }
}

function caretExcerpt(source: string, line: number, column: number): string {
  const text = (source.split("\n")[line - 1] ?? "").replace(/\r$/, "");
  const gutter = String(line);
  const pad = " ".repeat(gutter.length);
  // Tabs stay tabs under the caret so that it lines up in any terminal.
  const lead = text.slice(0, column - 1).replace(/[^\t]/g, " ");
  return `${gutter} | ${text}\n${pad} | ${lead}^`;
}
