/**
 * The analysis pass: resolves names against block scopes, infers the shape of the data from
 * every use, inlines partials, and runs the HTML context tracker over the whole template,
 * reporting unsafe placements. Its result is a small tree (`Ir`) that `codegen.ts` prints.
 *
 * @module
 */
import { type Diagnostics, SourceFile } from "./_diagnostics.ts";
import {
  advance,
  afterOutput,
  checkEnd,
  checkPlacement,
  describeContext,
  type HtmlContext,
  joinContexts,
  type Placement,
  sameContext,
  TEXT_CONTEXT,
} from "./html_context.ts";
import { type Node, parseTemplate, type Path, type TextNode, textOffset } from "./parse.ts";

/** A partial's text and the path errors inside it are reported with. */
export interface PartialSource {
  /** The partial's path, as shown in messages. */
  file: string;
  /** The partial's template text. */
  source: string;
}

/**
 * Finds the partial `name` referenced from the template at path `from`; `undefined` when
 * there is none.
 */
export type PartialResolver = (name: string, from: string) => PartialSource | undefined;

type UseKind = "print" | "raw" | "url" | "object" | "list" | "test";

const USE_TEXT: Record<UseKind, string> = {
  print: "printed",
  raw: "printed raw",
  url: "printed as a URL",
  object: "used as an object",
  list: "iterated by {{#each}}",
  test: "tested by {{#if}}",
};

const CONFLICTS: Record<UseKind, UseKind[]> = {
  print: ["object", "list"],
  raw: ["object", "list", "url"],
  url: ["object", "list", "raw"],
  object: ["print", "raw", "url", "list"],
  list: ["print", "raw", "url", "object"],
  test: [],
};

/** What the template needs of one value: the uses seen, its fields or its elements. */
export class Shape {
  /** First use of each kind, as "line:column" (or "file:line:column" in a partial). */
  readonly uses: Map<UseKind, string> = new Map();
  /** Fields, in order of first use. */
  readonly fields: Map<string, Shape> = new Map();
  /** The element shape when iterated. */
  element: Shape | null = null;
  /** Some use reads it without a `{{#if}}` guard on it: it may not be absent. */
  required = false;

  has(kind: UseKind): boolean {
    return this.uses.has(kind);
  }
}

/** A `{{#each}}` variable. */
export interface Binding {
  readonly id: number;
  readonly name: string;
  readonly shape: Shape;
  usesIndex: boolean;
}

/** A value reference: `base` 0 is the data argument, other numbers are bindings. */
export interface Ref {
  base: number;
  segments: string[];
  /** `@index` of binding `base`. */
  index: boolean;
}

/** The analysed template. */
export type Ir =
  | { kind: "static"; text: string }
  | { kind: "print"; ref: Ref; mode: "escape" | "raw" }
  | { kind: "if"; ref: Ref; then: Ir[]; otherwise: Ir[] }
  | { kind: "each"; ref: Ref; binding: Binding; body: Ir[]; otherwise: Ir[] | null };

/** The result of the analysis. */
export interface Analysis {
  /** The shape of the data argument. */
  root: Shape;
  body: Ir[];
}

interface Scope {
  bindings: readonly Binding[];
  guards: ReadonlySet<string>;
}

/** Analyses a parsed template. Errors go to `diagnostics`. */
export function analyzeTemplate(
  main: SourceFile,
  nodes: Node[],
  options: { diagnostics: Diagnostics; resolve: PartialResolver },
): Analysis {
  const { diagnostics, resolve } = options;
  const root = new Shape();
  root.required = true;
  let nextBinding = 1;
  const parsed = new Map<string, { source: SourceFile; nodes: Node[] }>();
  const active: string[] = [main.file];

  function where(source: SourceFile, offset: number): string {
    const { line, column } = source.position(offset);
    return source === main ? `${line}:${column}` : `${source.file}:${line}:${column}`;
  }

  function place(
    source: SourceFile,
    offset: number,
    ctx: HtmlContext,
    placement: Placement,
    what: string,
  ): void {
    const reason = checkPlacement(ctx, placement, what);
    if (reason !== null) diagnostics.report(source, offset, reason);
  }

  function use(
    source: SourceFile,
    path: Path,
    kind: UseKind,
    scope: Scope,
  ): { ref: Ref; shape: Shape } {
    const binding = scope.bindings.findLast((b) => b.name === path.segments[0]);
    const base = binding?.id ?? 0;
    const rest = binding === undefined ? path.segments : path.segments.slice(1);
    let shape = binding?.shape ?? root;
    let key = String(base);
    let name = binding?.name ?? "";
    if (binding !== undefined && !(kind === "test" && rest.length === 0)) {
      if (!scope.guards.has(key)) shape.required = true;
    }
    for (let i = 0; i < rest.length; i++) {
      if (!addUse(shape, "object", name, source, path.offset)) {
        return { ref: { base, segments: rest, index: false }, shape: new Shape() };
      }
      const field = rest[i];
      let child = shape.fields.get(field);
      if (child === undefined) {
        child = new Shape();
        shape.fields.set(field, child);
      }
      key += "." + field;
      name = name === "" ? field : `${name}.${field}`;
      const last = i === rest.length - 1;
      if (!(last && kind === "test") && !scope.guards.has(key)) child.required = true;
      shape = child;
    }
    const ok = addUse(shape, kind, name, source, path.offset);
    return { ref: { base, segments: rest, index: false }, shape: ok ? shape : new Shape() };
  }

  function addUse(
    shape: Shape,
    kind: UseKind,
    name: string,
    source: SourceFile,
    offset: number,
  ): boolean {
    if (shape === root) return true;
    for (const other of CONFLICTS[kind]) {
      const at = shape.uses.get(other);
      if (at !== undefined) {
        diagnostics.report(
          source,
          offset,
          `Conflicting uses of "${name}": ${USE_TEXT[other]} at ${at}, ${USE_TEXT[kind]} here`,
        );
        return false;
      }
    }
    if (!shape.uses.has(kind)) shape.uses.set(kind, where(source, offset));
    return true;
  }

  function keyOf(ref: Ref): string {
    return [String(ref.base), ...ref.segments].join(".");
  }

  function walk(
    source: SourceFile,
    nodes: Node[],
    start: HtmlContext,
    scope: Scope,
    indent = "",
  ): { ir: Ir[]; ctx: HtmlContext } {
    const ir: Ir[] = [];
    let ctx = start;
    for (const node of nodes) {
      switch (node.kind) {
        case "text": {
          const indented = indentLines(source, node, indent);
          const text = indented.text;
          ctx = advance(ctx, text, (index, reason) => {
            const original = Math.min(indented.original(index), node.text.length);
            diagnostics.report(source, textOffset(node, original), reason);
          });
          ir.push({ kind: "static", text });
          break;
        }
        case "output": {
          const { path, mode } = node;
          const what = mode === "raw"
            ? `{{{${path.text}}}}`
            : mode === "url"
            ? `{{url ${path.text}}}`
            : `{{${path.text}}}`;
          place(source, node.offset, ctx, mode, what);
          ctx = afterOutput(ctx);
          if (path.special === "index") {
            const binding = scope.bindings.at(-1);
            if (binding === undefined) {
              diagnostics.report(
                source,
                path.offset,
                "Unknown @index: it exists only inside {{#each}}",
              );
              break;
            }
            binding.usesIndex = true;
            ir.push({
              kind: "print",
              ref: { base: binding.id, segments: [], index: true },
              mode: "raw",
            });
            break;
          }
          const { ref } = use(source, path, mode === "escape" ? "print" : mode, scope);
          ir.push({ kind: "print", ref, mode: mode === "raw" ? "raw" : "escape" });
          break;
        }
        case "if": {
          place(source, node.offset, ctx, "blockStart", "{{#if}}");
          let ref: Ref;
          let guards = scope.guards;
          if (node.path.special === "index") {
            const binding = scope.bindings.at(-1);
            if (binding === undefined) {
              diagnostics.report(
                source,
                node.path.offset,
                "Unknown @index: it exists only inside {{#each}}",
              );
              ref = { base: 0, segments: [], index: false };
            } else {
              binding.usesIndex = true;
              ref = { base: binding.id, segments: [], index: true };
            }
          } else {
            ref = use(source, node.path, "test", scope).ref;
            guards = new Set([...scope.guards, keyOf(ref)]);
          }
          const then = walk(source, node.then, ctx, { bindings: scope.bindings, guards }, indent);
          const thenEnd = node.elseOffset >= 0 ? node.elseOffset : node.closeOffset;
          place(
            source,
            thenEnd,
            then.ctx,
            "blockEnd",
            node.elseOffset >= 0 ? "{{else}}" : "{{/if}}",
          );
          const otherwise = node.otherwise === null
            ? { ir: [], ctx }
            : walk(source, node.otherwise, ctx, scope, indent);
          if (node.otherwise !== null) {
            place(source, node.closeOffset, otherwise.ctx, "blockEnd", "{{/if}}");
          }
          const joined = joinContexts(then.ctx, otherwise.ctx);
          if (joined === null) {
            diagnostics.report(
              source,
              node.closeOffset,
              `Mismatched HTML contexts: the branches of the {{#if}} at ${
                where(source, node.offset)
              } end in ${describeContext(then.ctx)} and in ${describeContext(otherwise.ctx)}`,
            );
          }
          ctx = joined ?? then.ctx;
          ir.push({ kind: "if", ref, then: then.ir, otherwise: otherwise.ir });
          break;
        }
        case "each": {
          place(source, node.offset, ctx, "blockStart", "{{#each}}");
          const { ref, shape: list } = use(source, node.path, "list", scope);
          if (list.element === null) list.element = new Shape();
          const binding: Binding = {
            id: nextBinding++,
            name: node.alias,
            shape: list.element,
            usesIndex: false,
          };
          const body = walk(source, node.body, ctx, {
            bindings: [...scope.bindings, binding],
            guards: scope.guards,
          }, indent);
          const bodyEnd = node.elseOffset >= 0 ? node.elseOffset : node.closeOffset;
          place(
            source,
            bodyEnd,
            body.ctx,
            "blockEnd",
            node.elseOffset >= 0 ? "{{else}}" : "{{/each}}",
          );
          const loop = joinContexts(ctx, body.ctx);
          if (loop === null || !sameContext(loop, ctx)) {
            diagnostics.report(
              source,
              bodyEnd,
              `Mismatched HTML contexts: the body of the {{#each}} at ${
                where(source, node.offset)
              } starts in ${describeContext(ctx)} but ends in ${describeContext(body.ctx)}`,
            );
          }
          let otherwise: Ir[] | null = null;
          if (node.otherwise !== null) {
            const branch = walk(source, node.otherwise, ctx, scope, indent);
            place(source, node.closeOffset, branch.ctx, "blockEnd", "{{/each}}");
            const joined = joinContexts(ctx, branch.ctx);
            if (joined === null) {
              diagnostics.report(
                source,
                node.closeOffset,
                `Mismatched HTML contexts: the {{else}} of the {{#each}} at ${
                  where(source, node.offset)
                } ends in ${describeContext(branch.ctx)}, not in ${describeContext(ctx)}`,
              );
            } else ctx = joined;
            otherwise = branch.ir;
          }
          ir.push({ kind: "each", ref, binding, body: body.ir, otherwise });
          break;
        }
        case "partial": {
          place(source, node.offset, ctx, "blockStart", `{{> ${node.name}}}`);
          const found = resolve(node.name, source.file);
          if (found === undefined) {
            diagnostics.report(source, node.nameOffset, `Unknown partial "${node.name}"`);
            break;
          }
          if (active.includes(found.file)) {
            const cycle = [...active.slice(active.indexOf(found.file)), found.file].join(" → ");
            diagnostics.report(source, node.nameOffset, `Partial cycle: ${cycle}`);
            break;
          }
          let entry = parsed.get(found.file);
          if (entry === undefined) {
            const partialSource = new SourceFile(found.file, found.source);
            entry = { source: partialSource, nodes: parseTemplate(partialSource, diagnostics) };
            parsed.set(found.file, entry);
          }
          active.push(found.file);
          if (node.indent !== null && node.indent !== "") {
            ir.push({ kind: "static", text: node.indent });
            ctx = advance(ctx, node.indent, () => {});
          }
          const inner = walk(entry.source, entry.nodes, ctx, scope, indent + (node.indent ?? ""));
          active.pop();
          // The partial's last newline stands for its line's: indent the includer's next line.
          const next = source.text[node.nextLine];
          if (
            indent !== "" && node.indent !== null && found.source.endsWith("\n") &&
            next !== undefined && next !== "\n" && next !== "\r"
          ) {
            inner.ir.push({ kind: "static", text: indent });
            inner.ctx = advance(inner.ctx, indent, () => {});
          }
          place(source, node.offset, inner.ctx, "blockEnd", `the end of partial "${node.name}"`);
          for (const piece of inner.ir) ir.push(piece); // a spread overflows on a long partial
          ctx = inner.ctx;
          break;
        }
      }
    }
    return { ir, ctx };
  }

  const result = walk(main, nodes, TEXT_CONTEXT, { bindings: [], guards: new Set() });
  const reason = checkEnd(result.ctx);
  if (reason !== null) diagnostics.report(main, main.text.length, reason);
  return { root, body: result.ir };
}

// A standalone partial's lines all get its indentation: after each newline that starts a
// non-empty line of the partial's source (lines of block tags included, as their content
// moves up), the way Handlebars indents partials. `original` maps an index in the indented
// text back to one in `node.text`, for errors (an index in added indentation maps to the
// start of its line).
function indentLines(
  source: SourceFile,
  node: TextNode,
  indent: string,
): { text: string; original: (index: number) => number } {
  if (indent === "") return { text: node.text, original: (index) => index };
  // Indices in `node.text` where indentation was added, in order.
  const added: number[] = [];
  const text = node.text.replace(/\n/g, (newline, index: number) => {
    const next = source.text[textOffset(node, index) + 1];
    if (next === undefined || next === "\n" || next === "\r") return newline;
    added.push(index + 1);
    return newline + indent;
  });
  return {
    text,
    original(index) {
      let shift = 0;
      for (const at of added) {
        if (index < at + shift) break;
        if (index < at + shift + indent.length) return at;
        shift += indent.length;
      }
      return index - shift;
    },
  };
}
