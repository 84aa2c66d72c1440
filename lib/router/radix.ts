/**
 * A radix tree keyed by path segments, with per-method entries at every node. Lookup cost grows
 * with the number of segments in the path, never with the number of routes: static children
 * are a map lookup, and fully static patterns take a single map lookup before the tree.
 *
 * Priority is by specificity, segment by segment, with backtracking: static beats `:param`
 * beats `*wildcard`, whatever the registration order.
 *
 * `find()` walks the tree; `compile()` turns it into generated JavaScript that takes the same
 * steps faster, for runtimes that allow `new Function`.
 *
 * Internal: `router()` is the public API and this module is no export of the package (not
 * listed in `mod.ts`), so the tree's shape may change in any release.
 *
 * @module
 */
import { compileTrees } from "./_compile.ts";
import { parsePattern } from "./pattern.ts";
import type { Entry, MethodTree, Node, RadixMatch } from "./_tree.ts";

export type { RadixMatch } from "./_tree.ts";

function createNode<T>(prefix: string): Node<T> {
  return {
    prefix,
    first: prefix.length === 0 ? -1 : prefix.charCodeAt(0),
    children: undefined,
    param: undefined,
    wildcard: undefined,
    entry: undefined,
  };
}

const NO_VALUES: string[] = Object.freeze([]) as unknown as string[];

// Walks (and extends) the tree along static characters; returns the node that ends there.
function insertStatic<T>(node: Node<T>, text: string): Node<T> {
  let i = 0;
  while (i < text.length) {
    const children = node.children ??= [];
    const c = text.charCodeAt(i);
    const index = children.findIndex((child) => child.first === c);
    if (index === -1) {
      const leaf = createNode<T>(text.slice(i));
      children.push(leaf);
      return leaf;
    }
    let child = children[index];
    const prefix = child.prefix;
    let j = 1;
    while (j < prefix.length && i + j < text.length && prefix[j] === text[i + j]) j++;
    if (j < prefix.length) {
      // Split: a new node takes the common part, the old one keeps the rest.
      const top = createNode<T>(prefix.slice(0, j));
      child.prefix = prefix.slice(j);
      child.first = child.prefix.charCodeAt(0);
      top.children = [child];
      children[index] = child = top;
    }
    node = child;
    i += j;
  }
  return node;
}

/**
 * A method-aware radix tree over path characters; the router of `router()` is built on it.
 * Internal, like this module.
 *
 * @example
 * ```ts
 * import { RadixTree } from "./radix.ts";
 * import assert from "node:assert/strict";
 *
 * const tree = new RadixTree<string>();
 * tree.add("GET", "/users/:id", "user");
 * tree.add("GET", "/users/me", "me");
 * assert.equal(tree.find("GET", "/users/me")?.data, "me");
 * assert.deepEqual(tree.find("GET", "/users/42")?.values, ["42"]);
 * ```
 */
export class RadixTree<T> {
  #trees = new Map<string, MethodTree<T>>();
  /** Param and wildcard names by the shape of the pattern before them, across methods. */
  #names = new Map<string, { name: string; pattern: string }>();
  #added = new Set<string>();

  /**
   * Adds a route; throws a `TypeError` on a malformed pattern, a duplicate method and pattern,
   * or a param or wildcard name that differs from one already registered at the same position.
   *
   * @param method The HTTP method (any string; matched exactly).
   * @param pattern The route pattern.
   * @param data What {@linkcode RadixTree.find} returns for this route.
   */
  add(method: string, pattern: string, data: T): void {
    const segments = parsePattern(pattern);
    const key = `${method} ${pattern}`;
    if (this.#added.has(key)) {
      throw new TypeError(`Cannot add route "${key}": "${pattern}" is already registered`);
    }
    // 1. names: one name per position across all methods
    let shape = "";
    for (const segment of segments) {
      shape += "/";
      if (segment.kind === "static") {
        shape += segment.value;
        continue;
      }
      const sigil = segment.kind === "param" ? ":" : "*";
      shape += sigil;
      const known = this.#names.get(shape);
      if (known === undefined) this.#names.set(shape, { name: segment.name, pattern });
      else if (known.name !== segment.name) {
        throw new TypeError(
          `Cannot add route "${key}": "${known.pattern}" already uses "${sigil}${known.name}" at that position`,
        );
      }
    }
    // 2. the method's tree
    let tree = this.#trees.get(method);
    if (tree === undefined) {
      this.#trees.set(
        method,
        tree = {
          root: createNode(""),
          statics: new Map(),
        },
      );
    }
    const names: string[] = [];
    const entry: Entry<T> = { data, pattern, names, values: NO_VALUES };
    let node = tree.root;
    let text = "";
    for (const segment of segments) {
      text += "/";
      if (segment.kind === "static") {
        text += segment.value;
        continue;
      }
      node = insertStatic(node, text);
      text = "";
      names.push(segment.name);
      if (segment.kind === "param") node = node.param ??= createNode("");
      else node.wildcard = entry;
    }
    if (segments.at(-1)?.kind !== "wildcard") {
      node = insertStatic(node, text);
      node.entry = entry;
      if (names.length === 0) {
        tree.statics.set(pattern, entry);
      }
    }
    this.#added.add(key);
  }

  /** Whether a route with exactly this method and pattern was added. */
  has(method: string, pattern: string): boolean {
    return this.#added.has(`${method} ${pattern}`);
  }

  /**
   * Finds the most specific route for a method and a path (without query string).
   *
   * @returns The match, or `undefined` when no route has this method for this path.
   */
  find(method: string, path: string): RadixMatch<T> | undefined {
    const tree = this.#trees.get(method);
    if (tree === undefined) return undefined;
    // 1. fully static patterns: one map lookup, no allocation
    const hit = tree.statics.get(path);
    if (hit !== undefined) return hit;
    // 2. the tree, with backtracking
    const values: string[] = [];
    const entry = walk(tree.root, path, 0, values);
    return entry && toMatch(entry, values);
  }

  /**
   * Compiles the routes added so far into a find function: JavaScript source generated once and
   * turned into a function with `new Function`. It returns what {@linkcode RadixTree.find}
   * returns, faster; routes added later are not seen by it. Where code generation from strings
   * is forbidden (a Content Security Policy without `'unsafe-eval'`, some edge runtimes), or
   * where a method's generated function would be too large for the engine to optimize (several
   * hundred dynamic routes), it returns {@linkcode RadixTree.find} bound to the tree.
   *
   * @returns A function with the signature of {@linkcode RadixTree.find}.
   *
   * @example
   * ```ts
   * import { RadixTree } from "./radix.ts";
   * import assert from "node:assert/strict";
   *
   * const tree = new RadixTree<string>();
   * tree.add("GET", "/users/:id", "user");
   * const find = tree.compile();
   * assert.deepEqual(find("GET", "/users/42")?.values, ["42"]);
   * assert.equal(find("POST", "/users/42"), undefined);
   * ```
   */
  compile(): (method: string, path: string) => RadixMatch<T> | undefined {
    return compileTrees(this.#trees, toMatch) ?? this.find.bind(this);
  }

  /**
   * Lists every method that some route accepts for this path (the `Allow` of a 405).
   *
   * @returns The methods in registration order; empty when no route matches the path.
   */
  methodsFor(path: string): string[] {
    const out: string[] = [];
    for (const [method, tree] of this.#trees) {
      if (walk(tree.root, path, 0, []) !== undefined) out.push(method);
    }
    return out;
  }
}

/** The match of a route with the values of its params (internal; shared with the generator). */
export function toMatch<T>(entry: Entry<T>, values: string[]): RadixMatch<T> {
  return { data: entry.data, pattern: entry.pattern, names: entry.names, values };
}

// Descends in a loop while there is nothing to come back to, and recurses only where a node
// offers an alternative (a param or wildcard beside a matching static child). On failure the
// values pushed by this frame are dropped, so the caller can try its next alternative.
function walk<T>(
  node: Node<T>,
  path: string,
  pos: number,
  values: string[],
): Entry<T> | undefined {
  const length = path.length;
  const mark = values.length;
  descend: for (;;) {
    if (pos === length) {
      if (node.entry !== undefined) return node.entry;
    } else {
      // 1. static: the child that starts with this character, if its prefix matches
      const children = node.children;
      if (children !== undefined) {
        const c = path.charCodeAt(pos);
        for (let i = 0; i < children.length; i++) {
          const child = children[i];
          if (child.first !== c) continue;
          if (child.prefix.length === 1 || path.startsWith(child.prefix, pos)) {
            if (node.param === undefined && node.wildcard === undefined) {
              node = child; // nothing else to try here: no need to come back
              pos += child.prefix.length;
              continue descend;
            }
            const entry = walk(child, path, pos + child.prefix.length, values);
            if (entry !== undefined) return entry;
          }
          break;
        }
      }
      // 2. param: one non-empty segment
      const param = node.param;
      if (param !== undefined) {
        let end = path.indexOf("/", pos);
        if (end === -1) end = length;
        if (end > pos) {
          values.push(path.slice(pos, end));
          if (node.wildcard === undefined) {
            node = param;
            pos = end;
            continue descend;
          }
          const entry = walk(param, path, end, values);
          if (entry !== undefined) return entry;
          values.length -= 1;
        }
      }
    }
    // 3. wildcard: the whole remainder, possibly empty
    const entry = node.wildcard;
    if (entry !== undefined) {
      values.push(path.slice(pos));
      return entry;
    }
    values.length = mark;
    return undefined;
  }
}
