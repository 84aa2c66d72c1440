// Source files and the error list a compile fills; internal to lib/template.
import { TemplateSyntaxError } from "./template_syntax_error.ts";

/** A template's text with its path and a line table for offset → line:column. */
export class SourceFile {
  readonly file: string;
  readonly text: string;
  #lineStarts: number[] = [0];

  constructor(file: string, text: string) {
    this.file = file;
    // A byte order mark that an editor saved is no character of the template: kept, it would
    // land in the page (in a <head>, it ends the head and moves what follows into the body).
    // Columns are counted without it, as editors count them.
    text = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
    this.text = text;
    for (let i = 0; i < text.length; i++) {
      if (text.charCodeAt(i) === 10) this.#lineStarts.push(i + 1);
    }
  }

  /** Line and column (both 1-based) of an offset. */
  position(offset: number): { line: number; column: number } {
    const starts = this.#lineStarts;
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (starts[mid] <= offset) lo = mid;
      else hi = mid - 1;
    }
    return { line: lo + 1, column: offset - starts[lo] + 1 };
  }
}

/** Collects errors across the files of one compile (a template and its partials). */
export class Diagnostics {
  #errors: { source: SourceFile; offset: number; error: TemplateSyntaxError }[] = [];
  #seen = new Set<string>();
  #order = new Map<SourceFile, number>();

  /** @param main The template being compiled; its errors sort before those of its partials. */
  constructor(main: SourceFile) {
    this.#order.set(main, 0);
  }

  report(source: SourceFile, offset: number, reason: string): void {
    const key = `${source.file}\0${offset}\0${reason}`;
    if (this.#seen.has(key)) return;
    this.#seen.add(key);
    const { line, column } = source.position(offset);
    const error = new TemplateSyntaxError({ file: source.file, line, column }, reason, source.text);
    this.#errors.push({ source, offset, error });
  }

  get count(): number {
    return this.#errors.length;
  }

  /** Throws the first error (main file first, then by offset) with all of them attached. */
  throwIfAny(): void {
    if (this.#errors.length === 0) return;
    const order = this.#order;
    for (const { source } of this.#errors) if (!order.has(source)) order.set(source, order.size);
    const sorted = this.#errors
      .slice()
      .sort((a, b) => order.get(a.source)! - order.get(b.source)! || a.offset - b.offset)
      .map((entry) => entry.error);
    for (const error of sorted) error.errors = sorted;
    throw sorted[0];
  }
}
