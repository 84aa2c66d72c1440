/**
 * Weft's template compiler (`weft/template`): HTML templates compiled at build time into
 * self-contained, typed TypeScript modules. Use it through the CLI,
 * `deno run -A lib/template/cli.ts <dir>`, which writes a sibling `.ts` for every `.html`, or
 * call `compileTemplate()` directly. Generated modules import nothing at run time; they export
 * `render(data: Data): SafeHtml` and the `Data` type inferred from the template.
 *
 * Output is HTML-escaped (`& < > " '`). Where escaping is not enough — inside `<script>` or
 * `<style>`, in unquoted or `on*` attributes, at the start of a URL attribute — compiling fails
 * with a `TemplateSyntaxError` pointing at `file:line:column`. Raw output `{{{path}}}` accepts
 * only `SafeHtml` (another template's output, or `unsafeHtml()`), and `{{url path}}` at the
 * start of `href`/`src`/`action` only `SafeUrl` (`safeUrl()`): a plain `string` fails to
 * type-check at the caller.
 *
 * @example Compile a template, then load and run the module
 * ```ts
 * import { compileTemplate } from "./mod.ts";
 * import assert from "node:assert/strict";
 *
 * const code = compileTemplate(
 *   "<ul>{{#each items as item}}<li>{{item.name}}</li>{{else}}<li>none</li>{{/each}}</ul>",
 *   { file: "list.html" },
 * );
 * const url = "data:application/typescript;base64," +
 *   btoa(String.fromCharCode(...new TextEncoder().encode(code)));
 * const { render } = await import(url);
 * assert.equal(render({ items: [{ name: "<b>" }, { name: 2 }] }), "<ul><li>&lt;b&gt;</li><li>2</li></ul>");
 * assert.equal(render({ items: [] }), "<ul><li>none</li></ul>");
 * ```
 *
 * @module
 */
export { compileTemplate } from "./compile.ts";
export type { CompileTemplateOptions, PartialResolver, PartialSource } from "./compile.ts";
export { TemplateSyntaxError } from "./template_syntax_error.ts";
export type { TemplateLocation } from "./template_syntax_error.ts";
export { unsafeHtml } from "./unsafe_html.ts";
export { INVALID_URL, safeUrl } from "./safe_url.ts";
export type { Printable, SafeHtml, SafeUrl } from "./types.ts";
