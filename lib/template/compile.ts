/**
 * `compileTemplate()`: template text in, TypeScript module text out.
 *
 * @module
 */
import { Diagnostics, SourceFile } from "./_diagnostics.ts";
import { analyzeTemplate, type PartialResolver } from "./analyze.ts";
import { generateModule } from "./codegen.ts";
import { parseTemplate } from "./parse.ts";

export type { PartialResolver, PartialSource } from "./analyze.ts";

/** Options of `compileTemplate()`. */
export interface CompileTemplateOptions {
  /**
   * The template's path, shown in error messages as `file:line:column`.
   *
   * @default {"template.html"}
   */
  file?: string;
  /**
   * The name the generated module's comments give the template.
   *
   * @default {the last segment of `file`}
   */
  name?: string;
  /**
   * The templates `{{> name}}` may include: either a record from name to template text, or a
   * function that resolves a name relative to the including template (the CLI reads
   * `<dir of the includer>/<name>.html`). Partials are inlined at compile time.
   *
   * @default {{}}
   */
  partials?: Record<string, string> | PartialResolver;
}

/**
 * Compiles a template to the source of a self-contained TypeScript module that exports
 * `render(data: Data): SafeHtml` (a `SafeHtml` is a branded `string`) and the `Data` type
 * inferred from the template.
 *
 * Syntax: `{{path}}` (escaped), `{{{path}}}` (raw, takes `SafeHtml`), `{{url path}}` (escaped,
 * takes `SafeUrl`, allowed at the start of URL attributes), `{{#if path}}…{{else}}…{{/if}}`,
 * `{{#each list as item}}…{{else}}…{{/each}}`, `{{@index}}`, `{{> partial}}`, `{{! comment }}`
 * and `{{!-- comment --}}`; `\{{` is a literal `{{`.
 *
 * @param source The template text.
 * @param options Where the template comes from and how partials resolve.
 * @returns The module's TypeScript source.
 * @throws {TemplateSyntaxError} The first error found; its `errors` lists all of them.
 *
 * @example Compile and inspect the inferred type
 * ```ts
 * import { compileTemplate } from "./mod.ts";
 * import assert from "node:assert/strict";
 *
 * const code = compileTemplate(
 *   "<h1>{{user.name}}</h1>{{#each posts as post}}<p>{{post.title}}</p>{{/each}}",
 *   { file: "page.html" },
 * );
 * assert.match(code, /export type Data = \{\n  user: \{\n    name: Printable;\n  \};/);
 * assert.match(code, /posts: readonly \{\n    title: Printable;\n  \}\[\];/);
 * assert.match(code, /export function render\(data: Data\): SafeHtml/);
 * ```
 */
export function compileTemplate(source: string, options?: CompileTemplateOptions): string;
export function compileTemplate(source: string, options: CompileTemplateOptions = {}): string {
  const file = options.file ?? "template.html";
  const name = options.name ?? file.split(/[\\/]/).at(-1)!;
  const partials = options.partials ?? {};
  const resolve: PartialResolver = typeof partials === "function" ? partials : (partial) => {
    const text = Object.hasOwn(partials, partial) ? partials[partial] : undefined;
    return text === undefined ? undefined : { file: `${partial}.html`, source: text };
  };
  const main = new SourceFile(file, source);
  const diagnostics = new Diagnostics(main);
  const nodes = parseTemplate(main, diagnostics);
  const analysis = analyzeTemplate(main, nodes, { diagnostics, resolve });
  diagnostics.throwIfAny();
  return generateModule(analysis, { name });
}
