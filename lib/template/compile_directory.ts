/**
 * `compileDirectory()`: compiles every `*.html` under a folder into a `.ts` module beside it
 * (or under `out`), the job behind `cli.ts`. It uses `node:fs`, which Deno and Node both
 * provide, so the CLI runs on either; it is not part of the `weft/template` entry point.
 *
 * @module
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { SourceFile } from "./_diagnostics.ts";
import { compileTemplate } from "./compile.ts";
import { TemplateSyntaxError } from "./template_syntax_error.ts";

/** Options of `compileDirectory()`. */
export interface CompileDirectoryOptions {
  /**
   * Folder to write the modules to, mirroring the template folder; beside the templates when
   * absent.
   */
  out?: string;
  /** Compare instead of writing: report modules that are missing or differ. */
  check?: boolean;
}

/** What `compileDirectory()` did. */
export interface CompileDirectoryResult {
  /** Every template found, as `dir`-joined paths, sorted. */
  templates: string[];
  /** Modules written (their content changed). */
  written: string[];
  /** With `check`: modules that are missing or out of date. */
  stale: string[];
  /** Every error of every template, grouped by template in order. */
  errors: TemplateSyntaxError[];
}

/**
 * Compiles the templates under `dir`. `{{> name}}` reads `<folder of the includer>/name.html`.
 *
 * @param dir The template folder.
 * @param options Where to write, or whether to only check.
 * @returns The templates found, the modules written or stale, and the errors.
 *
 * @example Compile a folder
 * ```ts
 * import { compileDirectory } from "./compile_directory.ts";
 * import assert from "node:assert/strict";
 *
 * const dir = await Deno.makeTempDir();
 * await Deno.writeTextFile(`${dir}/hello.html`, "<p>Hello, {{name}}</p>\n");
 * const result = compileDirectory(dir);
 * assert.deepEqual(result.written, [`${dir}/hello.ts`]);
 * assert.deepEqual(compileDirectory(dir, { check: true }).stale, []);
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export function compileDirectory(
  dir: string,
  options?: CompileDirectoryOptions,
): CompileDirectoryResult;
export function compileDirectory(
  dir: string,
  options: CompileDirectoryOptions = {},
): CompileDirectoryResult {
  const result: CompileDirectoryResult = { templates: [], written: [], stale: [], errors: [] };
  for (const rel of findTemplates(dir)) {
    const file = join(dir, rel);
    result.templates.push(file);
    const target = join(options.out ?? dir, rel.replace(/\.html$/, ".ts"));
    const name = relative(dirname(target), file).split("\\").join("/");
    let code: string;
    try {
      code = compileTemplate(readTemplate(file), {
        file,
        name,
        partials: readPartial,
      });
    } catch (error) {
      if (!(error instanceof TemplateSyntaxError)) throw error;
      for (const each of error.errors) result.errors.push(each); // there may be 100,000
      continue;
    }
    const current = existsSync(target) ? readFileSync(target, "utf8") : null;
    if (current === code) continue;
    if (options.check) result.stale.push(target);
    else {
      mkdirSync(dirname(target), { recursive: true });
      writeFileSync(target, code);
      result.written.push(target);
    }
  }
  return result;
}

function readPartial(name: string, from: string): { file: string; source: string } | undefined {
  const path = join(dirname(from), `${name}.html`);
  try {
    if (!statSync(path).isFile()) return undefined;
  } catch {
    return undefined;
  }
  return { file: path, source: readTemplate(path) };
}

// The byte order mark is kept for SourceFile, which drops it.
const UTF8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
const LOSSY = new TextDecoder("utf-8", { ignoreBOM: true });

// Reads a template as UTF-8. Decoded leniently, a byte that is not UTF-8 (a template saved as
// Latin-1 or UTF-16) would become U+FFFD in every page, silently: it is an error at its place.
function readTemplate(path: string): string {
  const bytes = readFileSync(path);
  try {
    return UTF8.decode(bytes);
  } catch {
    const at = firstInvalidByte(bytes);
    const source = new SourceFile(path, LOSSY.decode(bytes));
    const bom = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 1 : 0;
    const { line, column } = source.position(LOSSY.decode(bytes.subarray(0, at)).length - bom);
    const byte = bytes[at].toString(16).toUpperCase().padStart(2, "0");
    throw new TemplateSyntaxError(
      { file: path, line, column },
      `Invalid UTF-8 (byte 0x${byte}): save the template as UTF-8`,
      source.text,
    );
  }
}

// The index of the first byte that starts no valid UTF-8 sequence (WHATWG Encoding's decoder).
function firstInvalidByte(bytes: Uint8Array): number {
  let i = 0;
  while (i < bytes.length) {
    const b = bytes[i];
    const more = b < 0x80 ? 0 : b < 0xc2 ? -1 : b < 0xe0 ? 1 : b < 0xf0 ? 2 : b < 0xf5 ? 3 : -1;
    if (more < 0) return i;
    for (let k = 1; k <= more; k++) {
      const c = bytes[i + k];
      const lo = k === 1 && b === 0xe0 ? 0xa0 : k === 1 && b === 0xf0 ? 0x90 : 0x80;
      const hi = k === 1 && b === 0xed ? 0x9f : k === 1 && b === 0xf4 ? 0x8f : 0xbf;
      if (c === undefined || c < lo || c > hi) return i;
    }
    i += more + 1;
  }
  return bytes.length - 1;
}

function findTemplates(dir: string, prefix = ""): string[] {
  const found: string[] = [];
  const entries = readdirSync(resolve(dir, prefix), { withFileTypes: true })
    .map((entry) => ({ name: entry.name, dir: entry.isDirectory(), file: entry.isFile() }))
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const entry of entries) {
    if (entry.name.startsWith(".") || entry.name === "node_modules") continue;
    const rel = prefix === "" ? entry.name : `${prefix}/${entry.name}`;
    if (entry.dir) found.push(...findTemplates(dir, rel));
    else if (entry.file && entry.name.endsWith(".html")) found.push(rel);
  }
  return found;
}
