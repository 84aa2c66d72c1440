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

// The line starts of the last source excerpted: a compile reports all its errors against one
// source, and splitting it again for each of thousands of errors took quadratic time.
let lines: { source: string; starts: number[] } | undefined;

// Past this length, a line is shown as the part of it around the column.
const EXCERPT_WIDTH = 160;

function caretExcerpt(source: string, line: number, column: number): string {
  if (lines?.source !== source) {
    const starts = [0];
    for (let i = source.indexOf("\n"); i !== -1; i = source.indexOf("\n", i + 1)) {
      starts.push(i + 1);
    }
    lines = { source, starts };
  }
  const start = lines.starts[line - 1];
  const end = line < lines.starts.length ? lines.starts[line] - 1 : source.length;
  let text = start === undefined ? "" : source.slice(start, end).replace(/\r$/, "");
  let caret = column - 1;
  if (text.length > EXCERPT_WIDTH) {
    const from = Math.max(0, Math.min(caret - EXCERPT_WIDTH / 2, text.length - EXCERPT_WIDTH));
    text = (from > 0 ? "…" : "") + text.slice(from, from + EXCERPT_WIDTH) +
      (from + EXCERPT_WIDTH < text.length ? "…" : "");
    caret = caret - from + (from > 0 ? 1 : 0);
  }
  const gutter = String(line);
  const pad = " ".repeat(gutter.length);
  // Tabs stay tabs under the caret so that it lines up in any terminal.
  const lead = text.slice(0, caret).replace(/[^\t]/g, " ");
  return `${gutter} | ${text}\n${pad} | ${lead}^`;
}
