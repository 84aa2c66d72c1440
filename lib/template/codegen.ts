/**
 * The code generator: prints an analysed template as a self-contained TypeScript module that
 * exports `render(data: Data): SafeHtml` and `type Data`. The output is deterministic and
 * already in `deno fmt` form (at its default and at wider line widths): every line stays within
 * 80 columns except long text, which is printed as template literals whose first line is short.
 *
 * @module
 */
import type { Analysis, Binding, Ir, Ref, Shape } from "./analyze.ts";

const WIDTH = 80;
const LONG_LINE = 1024;

const RESERVED = new Set(
  ("break case catch class const continue debugger default delete do else enum export extends " +
    "false finally for function if import in instanceof new null return super switch this throw " +
    "true try typeof var void while with yield let static implements interface package private " +
    "protected public await arguments eval undefined NaN Infinity " +
    // the module's own names
    "data out render escapeHtml escapeSlow truthy ESCAPABLE Data SafeHtml SafeUrl Printable")
    .split(" "),
);

/** Options of `generateModule`. */
export interface GenerateOptions {
  /** The template's display name for comments, e.g. `home.html`. */
  name: string;
}

/** Prints the module for an analysed template. */
export function generateModule(analysis: Analysis, options: GenerateOptions): string {
  const used = new Set<string>();
  const helpers = { escape: false, truthy: false };
  const lines: string[] = [];
  const bindingNames = new Map<number, string>();
  // The `@index` counter of each binding that uses it.
  const counterNames = new Map<number, string>();
  const usedBindings = collectUsedBindings(analysis.body);
  let usesData = false;

  function allocate(base: string): string {
    let name = RESERVED.has(base) ? `${base}_` : base;
    for (let n = 2; used.has(name); n++) name = `${base}${n}`;
    used.add(name);
    return name;
  }

  function emit(indent: number, text: string): void {
    lines.push("  ".repeat(indent) + text);
  }

  function expression(ref: Ref, guards: ReadonlyMap<string, string>): string {
    const base = ref.base === 0 ? "data" : bindingNames.get(ref.base)!;
    // Use the narrowed local of the longest guarded prefix.
    for (let i = ref.segments.length; i >= 0; i--) {
      const local = guards.get([String(ref.base), ...ref.segments.slice(0, i)].join("."));
      if (local !== undefined) return [local, ...ref.segments.slice(i)].join(".");
    }
    if (ref.base === 0) usesData = true;
    return [base, ...ref.segments].join(".");
  }

  function emitStatic(indent: number, text: string): void {
    // Sized for "const out = ", the longest form the first statement takes.
    const prefix = "  ".repeat(indent) + "const out = ";
    const statement = "  ".repeat(indent) + "out += ";
    // Offsets into `text`, not slices of it, and a piece's first try capped at LONG_LINE
    // characters: a line of megabytes was scanned again for each piece, in quadratic time.
    let pos = 0;
    let newline = -1;
    while (pos < text.length) {
      if (newline < pos) newline = text.indexOf("\n", pos);
      if (newline !== -1 && newline < text.length - 1 && newline - pos < WIDTH) {
        const first = templateLiteral(text.slice(pos, newline));
        if (prefix.length + first.length <= WIDTH) {
          lines.push(statement + templateLiteral(text.slice(pos)) + ";");
          return;
        }
      }
      // A string literal piece that fits the line: up to and including the first newline.
      const budget = WIDTH - prefix.length - 1;
      let end = Math.min((newline === -1 ? text.length : newline + 1) - pos, LONG_LINE);
      let literal = stringLiteral(text.slice(pos, pos + end));
      while (literal.length > budget && end > 1) {
        const ratio = (budget - 2) / Math.max(1, literal.length - 2);
        end = Math.max(1, Math.min(end - 1, Math.floor(end * ratio)));
        if (isHighSurrogate(text.charCodeAt(pos + end - 1))) end--;
        literal = stringLiteral(text.slice(pos, pos + end));
      }
      lines.push(statement + literal + ";");
      pos += end;
    }
  }

  function body(nodes: Ir[], indent: number, guards: ReadonlyMap<string, string>): void {
    for (const node of mergeStatic(nodes)) {
      switch (node.kind) {
        case "static":
          emitStatic(indent, node.text);
          break;
        case "print": {
          if (node.ref.index) {
            emit(indent, `out += ${counterNames.get(node.ref.base)};`);
          } else if (node.mode === "raw") {
            emit(indent, `out += ${expression(node.ref, guards)};`);
          } else {
            helpers.escape = true;
            emit(indent, `out += escapeHtml(${expression(node.ref, guards)});`);
          }
          break;
        }
        case "if": {
          if (node.ref.index) {
            emit(indent, `if (${counterNames.get(node.ref.base)} !== 0) {`);
            body(node.then, indent + 1, guards);
          } else {
            helpers.truthy = true;
            const value = expression(node.ref, guards);
            // A loop variable is a const already: narrow it as is.
            const local = node.ref.segments.length === 0
              ? value
              : allocate(node.ref.segments.at(-1)!);
            if (local !== value) emit(indent, `const ${local} = ${value};`);
            emit(indent, `if (truthy(${local})) {`);
            const inner = new Map(guards);
            inner.set([String(node.ref.base), ...node.ref.segments].join("."), local);
            body(node.then, indent + 1, inner);
          }
          if (node.otherwise.length > 0) {
            emit(indent, "} else {");
            body(node.otherwise, indent + 1, guards);
          }
          emit(indent, "}");
          break;
        }
        case "each":
          emitEach(node, indent, guards);
          break;
      }
    }
  }

  function emitEach(
    node: Extract<Ir, { kind: "each" }>,
    indent: number,
    guards: ReadonlyMap<string, string>,
  ): void {
    const binding: Binding = node.binding;
    const name = allocate(usedBindings.has(binding.id) ? binding.name : `_${binding.name}`);
    bindingNames.set(binding.id, name);
    let list = expression(node.ref, guards);
    let loopIndent = indent;
    if (node.otherwise !== null) {
      const local = allocate(`${binding.name}List`);
      emit(indent, `const ${local} = ${list};`);
      emit(indent, `if (${local}.length === 0) {`);
      body(node.otherwise, indent + 1, guards);
      emit(indent, "} else {");
      list = local;
      loopIndent = indent + 1;
    }
    // Allocated like every other name: a narrowed `{{#if a.itemIndex}}` may hold "itemIndex".
    const counter = binding.usesIndex ? allocate(`${name}Index`) : "";
    if (binding.usesIndex) {
      counterNames.set(binding.id, counter);
      emit(loopIndent, `let ${counter} = 0;`);
    }
    emit(loopIndent, `for (const ${name} of ${list}) {`);
    body(node.body, loopIndent + 1, guards);
    if (binding.usesIndex) emit(loopIndent + 1, `${counter}++;`);
    emit(loopIndent, "}");
    if (node.otherwise !== null) emit(indent, "}");
  }

  body(analysis.body, 1, new Map());
  const renderBody = lines;

  const out: string[] = [];
  out.push(
    `// Generated by weft/template from ${options.name}. Do not edit: edit the template and`,
    "// compile it again.",
    "",
    "/** HTML that may be inserted as is (`{{{…}}}`): a template's output or `unsafeHtml()`. */",
    'export type SafeHtml = string & { readonly __weft: "SafeHtml" };',
    "/** A URL checked to be safe at the start of `href`/`src` (`{{url …}}`): `safeUrl()`. */",
    'export type SafeUrl = string & { readonly __weft: "SafeUrl" };',
    "/** A value `{{…}}` prints, HTML-escaped. */",
    "export type Printable = string | number | bigint | boolean;",
    "",
    `/** The data \`${jsDocText(options.name)}\` renders. */`,
    `export type Data = ${dataType(analysis.root)};`,
    "",
    `/** Renders \`${jsDocText(options.name)}\`. */`,
    `export function render(${usesData ? "data" : "_data"}: Data): SafeHtml {`,
  );
  const single = mergeStatic(analysis.body);
  if (renderBody.length === 0) out.push('  return "" as SafeHtml;');
  else {
    const first = renderBody[0];
    if (
      single.length === 1 && single[0].kind !== "if" && single[0].kind !== "each" &&
      !renderBody.slice(1).some((line) => line.startsWith("  out += "))
    ) {
      // One statement: a "let out" never reassigned would fail `deno lint`.
      renderBody[0] = first.replace("out += ", "const out = ");
    } else if (first.startsWith("  out += ")) {
      renderBody[0] = first.replace("out += ", "let out = ");
    } else out.push('  let out = "";');
    // Lines are appended one by one: spread into push(), those of a long template overflowed
    // the call stack.
    for (const line of renderBody) out.push(line);
    out.push("  return out as SafeHtml;");
  }
  out.push("}");
  if (helpers.escape) out.push("", ...ESCAPE_HELPERS);
  if (helpers.truthy) out.push("", ...TRUTHY_HELPER);
  return out.join("\n") + "\n";
}

// The escape fast path: one regex test (no allocation) for strings, none for numbers, bigints
// and booleans, which never contain the five characters.
const ESCAPE_HELPERS = [
  "const ESCAPABLE = /[&<>\"']/;",
  "",
  "function escapeHtml(value: Printable): string {",
  '  if (typeof value === "string") {',
  "    return ESCAPABLE.test(value) ? escapeSlow(value) : value;",
  "  }",
  '  if (typeof value === "number" || typeof value === "boolean") {',
  '    return "" + value;',
  "  }",
  '  return typeof value === "bigint" ? "" + value : escapeSlow("" + value);',
  "}",
  "",
  "function escapeSlow(text: string): string {",
  '  let out = "";',
  "  let last = 0;",
  "  for (let i = 0; i < text.length; i++) {",
  "    let entity: string;",
  "    switch (text.charCodeAt(i)) {",
  "      case 38:",
  '        entity = "&amp;";',
  "        break;",
  "      case 60:",
  '        entity = "&lt;";',
  "        break;",
  "      case 62:",
  '        entity = "&gt;";',
  "        break;",
  "      case 34:",
  '        entity = "&quot;";',
  "        break;",
  "      case 39:",
  '        entity = "&#39;";',
  "        break;",
  "      default:",
  "        continue;",
  "    }",
  "    out += text.slice(last, i) + entity;",
  "    last = i + 1;",
  "  }",
  "  return out + text.slice(last);",
  "}",
];

const TRUTHY_HELPER = [
  "// Handlebars truthiness: empty lists are false too.",
  "function truthy<T>(",
  "  value: T,",
  '): value is Exclude<T, null | undefined | false | "" | 0 | 0n> {',
  "  return Array.isArray(value) ? value.length !== 0 : !!value;",
  "}",
];

function dataType(root: Shape): string {
  if (root.fields.size === 0) return "Record<string, never>";
  return objectType(root, 0);
}

function objectType(shape: Shape, indent: number): string {
  const pad = "  ".repeat(indent + 1);
  const lines = ["{"];
  for (const [key, field] of shape.fields) {
    const type = typeOf(field, indent + 1);
    if (field.required) lines.push(`${pad}${key}: ${type};`);
    else if (type.startsWith("readonly ") && type.includes("\n")) {
      // deno fmt's layout for a union whose first member is a multi-line array type.
      const shifted = type.replaceAll("\n", "\n  ");
      lines.push(`${pad}${key}?:`, `${pad}  | ${shifted}`, `${pad}  | null;`);
    } else lines.push(`${pad}${key}?: ${type === "unknown" ? type : `${type} | null`};`);
  }
  lines.push("  ".repeat(indent) + "}");
  return lines.join("\n");
}

function typeOf(shape: Shape, indent: number): string {
  if (shape.fields.size > 0) return objectType(shape, indent);
  if (shape.has("list")) {
    const element = shape.element!;
    const type = typeOf(element, indent);
    if (element.required || type === "unknown") return `readonly ${wrap(type)}[]`;
    return `readonly (${type} | null)[]`;
  }
  if (shape.has("raw")) return "SafeHtml";
  if (shape.has("url")) return "SafeUrl";
  if (shape.has("print")) return "Printable";
  return "unknown";
}

function wrap(type: string): string {
  return /^[A-Za-z]+$/.test(type) || type.startsWith("{") ? type : `(${type})`;
}

function collectUsedBindings(nodes: Ir[], into = new Set<number>()): Set<number> {
  for (const node of nodes) {
    if (node.kind === "print" || node.kind === "if" || node.kind === "each") {
      if (node.ref.base !== 0 && !node.ref.index) into.add(node.ref.base);
    }
    if (node.kind === "if") {
      collectUsedBindings(node.then, into);
      collectUsedBindings(node.otherwise, into);
    } else if (node.kind === "each") {
      collectUsedBindings(node.body, into);
      if (node.otherwise !== null) collectUsedBindings(node.otherwise, into);
    }
  }
  return into;
}

// Adjacent static pieces come from partials and empty blocks: join them into one.
function mergeStatic(nodes: Ir[]): Ir[] {
  const merged: Ir[] = [];
  for (const node of nodes) {
    const last = merged.at(-1);
    if (node.kind === "static" && last?.kind === "static") {
      merged[merged.length - 1] = { kind: "static", text: last.text + node.text };
    } else if (node.kind !== "static" || node.text !== "") merged.push(node);
  }
  return merged;
}

function jsDocText(text: string): string {
  return text.replace(/\*\//g, "*\\/").replace(/`/g, "'");
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

function escapeChar(c: string): string {
  switch (c) {
    case "\\":
      return "\\\\";
    case "\n":
      return "\\n";
    case "\r":
      return "\\r";
    case "\t":
      return "\\t";
    default:
      return "\\u" + c.charCodeAt(0).toString(16).padStart(4, "0");
  }
}

/** A string literal in the quotes `deno fmt` picks: double unless that needs more escapes. */
export function stringLiteral(text: string): string {
  let doubles = 0;
  let singles = 0;
  for (const c of text) {
    if (c === '"') doubles++;
    else if (c === "'") singles++;
  }
  const quote = doubles > singles ? "'" : '"';
  const body = text.replace(
    // deno-lint-ignore no-control-regex -- control characters are what must be escaped
    /[\\\n\r\t\0-\x1f\x7f\u2028\u2029]|["']|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g,
    (c) => c === '"' || c === "'" ? (c === quote ? "\\" + c : c) : escapeChar(c),
  );
  return quote + body + quote;
}

/** A template literal with the text verbatim except for what must be escaped. */
export function templateLiteral(text: string): string {
  const body = text.replace(
    // deno-lint-ignore no-control-regex -- control characters are what must be escaped
    /[\\`\r\0-\x08\x0b-\x1f\x7f]|\$\{|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g,
    (c) => c === "`" ? "\\`" : c === "${" ? "\\${" : escapeChar(c),
  );
  return "`" + body + "`";
}
