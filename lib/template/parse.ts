/**
 * The template tokenizer and parser: turns template text into a tree of text, outputs, blocks
 * and partial references, reporting every syntax error it meets (it recovers and goes on, so a
 * compile can list all of them). HTML is not parsed here; `html_context.ts` follows it.
 *
 * @module
 */
import type { Diagnostics, SourceFile } from "./_diagnostics.ts";

/** A dotted data path such as `user.name`, or the loop counter `@index`. */
export interface Path {
  /** The names between the dots; empty for `@index`. */
  segments: string[];
  /** `"index"` for `@index`. */
  special: "index" | null;
  /** The path as written. */
  text: string;
  /** Source offset of its first character. */
  offset: number;
}

/** Static template text; comments are dropped and the text around them joined. */
export interface TextNode {
  kind: "text";
  text: string;
  /** `text` index → source offset, piecewise: each piece starts at `index` in `text`. */
  pieces: { index: number; offset: number }[];
}

/** `{{path}}` (escape), `{{{path}}}` (raw) or `{{url path}}` (url). */
export interface OutputNode {
  kind: "output";
  mode: "escape" | "raw" | "url";
  path: Path;
  /** Offset of the opening braces. */
  offset: number;
}

/** `{{#if path}} … {{else}} … {{/if}}`. */
export interface IfNode {
  kind: "if";
  path: Path;
  then: Node[];
  otherwise: Node[] | null;
  offset: number;
  elseOffset: number;
  closeOffset: number;
}

/** `{{#each path as alias}} … {{else}} … {{/each}}`. */
export interface EachNode {
  kind: "each";
  path: Path;
  alias: string;
  aliasOffset: number;
  body: Node[];
  otherwise: Node[] | null;
  offset: number;
  elseOffset: number;
  closeOffset: number;
}

/** `{{> name}}`. */
export interface PartialNode {
  kind: "partial";
  name: string;
  offset: number;
  nameOffset: number;
  /** Alone on its line: the line's indentation, given to every line of the partial. */
  indent: string | null;
  /** Offset of the line after the tag's (a standalone tag takes its own line). */
  nextLine: number;
}

/** A node of the template tree. */
export type Node = TextNode | OutputNode | IfNode | EachNode | PartialNode;

type Frame = { node: IfNode | EachNode; target: Node[]; seenElse: boolean };

// How deep blocks may nest, and how many names a path may have.
const MAX_DEPTH = 500;
const NAME = /^[A-Za-z_$][A-Za-z0-9_$]*$/;
const PATH = /^[A-Za-z_$][A-Za-z0-9_$]*(?:\.[A-Za-z_$][A-Za-z0-9_$]*)*$/;
const PARTIAL_NAME = /^[A-Za-z0-9_.\-]+(?:\/[A-Za-z0-9_.\-]+)*$/;

/**
 * Parses a template. Errors go to `diagnostics`; the tree is still returned (with the bad tags
 * left out) so later passes can find more errors.
 */
export function parseTemplate(source: SourceFile, diagnostics: Diagnostics): Node[] {
  const src = source.text;
  const root: Node[] = [];
  const stack: Frame[] = [];
  let target = root;
  let text: TextNode | null = null;
  const report = (offset: number, reason: string) => diagnostics.report(source, offset, reason);

  function appendText(from: number, to: number): void {
    if (to <= from) return;
    if (text === null) {
      text = { kind: "text", text: "", pieces: [] };
      target.push(text);
    }
    text.pieces.push({ index: text.text.length, offset: from });
    text.text += src.slice(from, to);
  }

  function flush(): void {
    text = null;
  }

  // A block opens: its node joins the current list, and nodes go into `body` until its
  // {{else}} or its closing tag.
  function open(node: IfNode | EachNode, body: Node[]): void {
    // The passes that follow recurse into blocks: thousands deep, they overflowed the call
    // stack. A block past the limit is an error and is left out of the tree.
    if (stack.length === MAX_DEPTH) {
      report(node.offset, `Too deeply nested: blocks may nest ${MAX_DEPTH} deep`);
    }
    if (stack.length < MAX_DEPTH) target.push(node);
    stack.push({ node, target: body, seenElse: false });
    target = body;
  }

  function pos(offset: number): string {
    const { line, column } = source.position(offset);
    return `${line}:${column}`;
  }

  function parsePath(word: Word, tag: string): Path | null {
    const { text: raw, offset } = word;
    if (raw === "@index") return { segments: [], special: "index", text: raw, offset };
    if (raw.startsWith("@")) {
      report(offset, `Unknown variable "${raw}" in ${tag}: only @index is supported`);
      return null;
    }
    if (raw === "this" || raw.startsWith("this.")) {
      report(
        offset,
        `Unsupported path "${raw}" in ${tag}: name the item with {{#each list as item}}`,
      );
      return null;
    }
    if (!PATH.test(raw)) {
      report(
        offset,
        `Malformed path "${raw}" in ${tag}: expected names joined by dots, as in user.name`,
      );
      return null;
    }
    const segments = raw.split(".");
    if (segments.length > MAX_DEPTH) {
      report(offset, `Malformed path: more than ${MAX_DEPTH} names joined by dots`);
      return null;
    }
    if (segments.includes("__proto__")) {
      report(offset, `Malformed path "${raw}" in ${tag}: "__proto__" cannot be a data field`);
      return null;
    }
    // Every object has these (toString, constructor…): an absent field would read the
    // inherited one, so {{#if toString}} held for {} and {{constructor}} printed a function.
    const inherited = segments.find((segment) => Object.hasOwn(Object.prototype, segment));
    if (inherited !== undefined) {
      report(
        offset,
        `Unsupported path "${raw}" in ${tag}: every object has "${inherited}", so it cannot ` +
          "name a data field; rename the field",
      );
      return null;
    }
    return { segments, special: null, text: raw, offset };
  }

  function openBlock(word: string, args: Word[], offset: number, tagEnd: number): void {
    const tag = `{{#${word}}}`;
    if (word === "if") {
      if (args.length === 0) return report(tagEnd, `Missing path in ${tag}: write {{#if path}}`);
      if (args.length > 1) {
        return report(args[1].offset, `Unexpected "${args[1].text}" in ${tag}: it takes one path`);
      }
      const path = parsePath(args[0], tag);
      if (path === null) return;
      const node: IfNode = {
        kind: "if",
        path,
        then: [],
        otherwise: null,
        offset,
        elseOffset: -1,
        closeOffset: -1,
      };
      open(node, node.then);
      return;
    }
    if (word === "each") {
      if (args.length === 0) {
        return report(tagEnd, `Missing list in ${tag}: write {{#each items as item}}`);
      }
      const path = parsePath(args[0], tag);
      if (args.length !== 3 || args[1].text !== "as") {
        const at = args[1] ?? { offset: tagEnd, text: "" };
        return report(at.offset, `Malformed ${tag}: write {{#each ${args[0].text} as item}}`);
      }
      const alias = args[2];
      if (!NAME.test(alias.text)) {
        return report(alias.offset, `Malformed name "${alias.text}" after "as" in ${tag}`);
      }
      if (path === null) return;
      if (path.special !== null) {
        return report(path.offset, `Cannot iterate over ${path.text}: it is a number`);
      }
      const node: EachNode = {
        kind: "each",
        path,
        alias: alias.text,
        aliasOffset: alias.offset,
        body: [],
        otherwise: null,
        offset,
        elseOffset: -1,
        closeOffset: -1,
      };
      open(node, node.body);
      return;
    }
    report(offset, `Unknown block ${tag}: only {{#if}} and {{#each}} exist`);
  }

  function closeBlock(word: string, rest: Word[], offset: number): void {
    const tag = `{{/${word}}}`;
    if (word !== "if" && word !== "each") {
      return report(offset, `Unknown block ${tag}: only {{/if}} and {{/each}} exist`);
    }
    if (rest.length > 0) return report(rest[0].offset, `Unexpected "${rest[0].text}" in ${tag}`);
    const top = stack.at(-1);
    if (top === undefined) return report(offset, `Stray ${tag}: no {{#${word}}} block is open`);
    if (top.node.kind !== word) {
      const open = top.node.kind;
      report(
        offset,
        `Mismatched ${tag}: expected {{/${open}}} to close the {{#${open}}} opened at ${
          pos(top.node.offset)
        }`,
      );
      // Recover: if an outer block matches, close up to it; otherwise ignore the tag.
      const index = stack.findLastIndex((frame) => frame.node.kind === word);
      if (index === -1) return;
      stack.length = index + 1;
    }
    const frame = stack.pop()!;
    frame.node.closeOffset = offset;
    target = stack.at(-1)?.target ?? root;
  }

  function elseTag(rest: Word[], offset: number): void {
    if (rest.length > 0) return report(rest[0].offset, `Unexpected "${rest[0].text}" in {{else}}`);
    const top = stack.at(-1);
    if (top === undefined) {
      return report(offset, "Unexpected {{else}}: no {{#if}} or {{#each}} block is open");
    }
    const open = top.node.kind;
    if (top.seenElse) {
      return report(
        offset,
        `Duplicate {{else}}: the {{#${open}}} opened at ${pos(top.node.offset)} already has one`,
      );
    }
    top.seenElse = true;
    top.node.elseOffset = offset;
    top.node.otherwise = [];
    top.target = top.node.otherwise;
    target = top.target;
  }

  function tag(
    content: string,
    contentOffset: number,
    offset: number,
    nextLine: number,
    indent: string | null,
  ): void {
    const tagEnd = contentOffset + content.length;
    const words = splitWords(content, contentOffset);
    if (words.length === 0) return report(offset, "Empty tag: expected a path, as in {{name}}");
    const first = words[0];
    const head = first.text;
    if (head.startsWith("#")) {
      const word = head.slice(1);
      if (word === "") return report(first.offset, "Missing block name after {{#");
      return openBlock(word, words.slice(1), offset, tagEnd);
    }
    if (head.startsWith("/")) {
      const word = head.slice(1) || words[1]?.text || "";
      const rest = head.length > 1 ? words.slice(1) : words.slice(2);
      if (word === "") return report(first.offset, "Missing block name after {{/");
      return closeBlock(word, rest, offset);
    }
    if (head.startsWith(">")) {
      const inline = head.slice(1);
      const nameWord = inline !== "" ? { text: inline, offset: first.offset + 1 } : words[1];
      const extra = inline !== "" ? words[1] : words[2];
      if (nameWord === undefined) return report(tagEnd, "Missing partial name in {{> }}");
      if (extra !== undefined) {
        return report(extra.offset, `Unexpected "${extra.text}" in {{> ${nameWord.text}}}`);
      }
      if (!PARTIAL_NAME.test(nameWord.text) || nameWord.text.split("/").includes("")) {
        return report(
          nameWord.offset,
          `Malformed partial name "${nameWord.text}": expected a relative path without ".html"`,
        );
      }
      target.push({
        kind: "partial",
        name: nameWord.text,
        offset,
        nameOffset: nameWord.offset,
        indent,
        nextLine,
      });
      return;
    }
    if (head === "else") return elseTag(words.slice(1), offset);
    if (head === "url" && words.length > 1) {
      if (words.length > 2) {
        return report(words[2].offset, `Unexpected "${words[2].text}" in {{url ${words[1].text}}}`);
      }
      const path = parsePath(words[1], "{{url}}");
      if (path === null) return;
      if (path.special !== null) return report(path.offset, `${path.text} is not a URL`);
      target.push({ kind: "output", mode: "url", path, offset });
      return;
    }
    if (words.length > 1) {
      return report(
        words[1].offset,
        `Malformed tag {{${content.trim()}}}: expected one path, as in {{user.name}}`,
      );
    }
    const path = parsePath(first, `{{${head}}}`);
    if (path !== null) target.push({ kind: "output", mode: "escape", path, offset });
  }

  function rawTag(content: string, contentOffset: number, offset: number): void {
    const words = splitWords(content, contentOffset);
    if (words.length === 0) return report(offset, "Empty tag: expected a path, as in {{{body}}}");
    if (words.length > 1) {
      return report(words[1].offset, `Malformed tag {{{${content.trim()}}}}: expected one path`);
    }
    const path = parsePath(words[0], `{{{${words[0].text}}}}`);
    if (path === null) return;
    if (path.special !== null) {
      return report(path.offset, `Cannot output ${path.text} raw: write {{${path.text}}}`);
    }
    target.push({ kind: "output", mode: "raw", path, offset });
  }

  // A block tag or comment alone on its line takes the whole line with it, indentation and
  // newline included, as in Mustache and Handlebars ("standalone" tags).
  // Returns where scanning goes on, and the line's indentation when the tag is standalone.
  function standalone(open: number, end: number): [number, string | null] {
    const lineStart = src.lastIndexOf("\n", open - 1) + 1;
    const indent = src.slice(lineStart, open);
    if (!/^[ \t]*$/.test(indent)) return [end, null];
    const rest = /[ \t]*(?:\r?\n|$)/y;
    rest.lastIndex = end;
    const after = rest.exec(src);
    if (after === null) return [end, null];
    const current: TextNode | null = text;
    if (indent !== "" && current !== null) current.text = current.text.slice(0, -indent.length);
    return [end + after[0].length, indent];
  }

  // 1. Scan: text up to "{{", then one tag; "\{{" is a literal "{{".
  let i = 0;
  const n = src.length;
  while (i < n) {
    const open = src.indexOf("{{", i);
    if (open === -1) {
      appendText(i, n);
      break;
    }
    if (open - 1 >= i && src.charCodeAt(open - 1) === 92 /* \ */) {
      appendText(i, open - 1);
      appendText(open, open + 2);
      i = open + 2;
      continue;
    }
    appendText(i, open);
    if (src.startsWith("{{!", open)) {
      const long = src.startsWith("{{!--", open);
      const close = src.indexOf(long ? "--}}" : "}}", open + 3);
      if (close === -1) {
        report(open, `Unclosed comment: expected "${long ? "--}}" : "}}"}"`);
        break;
      }
      i = standalone(open, close + (long ? 4 : 2))[0];
      continue;
    }
    if (src.startsWith("{{{", open)) {
      flush();
      const close = src.indexOf("}}}", open + 3);
      if (close === -1) {
        report(open, 'Unclosed tag: expected "}}}"');
        break;
      }
      rawTag(src.slice(open + 3, close), open + 3, open);
      i = close + 3;
      continue;
    }
    const close = src.indexOf("}}", open + 2);
    if (close === -1) {
      flush();
      report(open, 'Unclosed tag: expected "}}"');
      break;
    }
    const content = src.slice(open + 2, close);
    const block = /^\s*(?:[#/>]|else\s*$)/.test(content);
    const [end, indent] = block ? standalone(open, close + 2) : [close + 2, null];
    flush();
    tag(content, open + 2, open, end, indent);
    i = end;
  }

  // 2. Whatever is still open at the end is unclosed.
  for (const frame of stack) {
    const kind = frame.node.kind;
    report(
      frame.node.offset,
      `Unclosed {{#${kind}}}: expected {{/${kind}}} before the end of the template`,
    );
  }
  return root;
}

type Word = { text: string; offset: number };

function splitWords(content: string, offset: number): Word[] {
  const words: Word[] = [];
  for (const match of content.matchAll(/\S+/g)) {
    words.push({ text: match[0], offset: offset + match.index });
  }
  return words;
}

/** The source offset of index `index` in a text node. */
export function textOffset(node: TextNode, index: number): number {
  let piece = node.pieces[0];
  for (const candidate of node.pieces) {
    if (candidate.index > index) break;
    piece = candidate;
  }
  return piece.offset + (index - piece.index);
}
