/**
 * A radix tree keyed by path segments, with per-method entries at every node. Lookup cost grows
 * with the number of segments in the path, never with the number of routes: static children
 * are a map lookup, and fully static patterns take a single map lookup before the tree.
 *
 * Priority is by specificity, segment by segment, with backtracking: static beats `:param`
 * beats `*wildcard`, whatever the registration order.
 *
 * @module
 */
import { parsePattern } from "./pattern.ts";

/** What {@linkcode RadixTree.find} returns: the route's data and its params. */
export interface RadixMatch<T> {
  /** The data stored with the route. */
  data: T;
  /** The pattern the route was added with. */
  pattern: string;
  /** Param and wildcard names in pattern order. */
  names: readonly string[];
  /** Raw (undecoded) values, parallel to `names`. */
  values: string[];
}

interface Entry<T> {
  data: T;
  pattern: string;
  names: readonly string[];
  /** The shared result of a static route (it has no values to fill in). */
  hit: RadixMatch<T>;
}

// A node consumes `prefix` (static characters); its static children start with distinct
// characters, its param child consumes one non-empty segment, its wildcard the remainder.
// Each method has its own tree, so a lookup never indexes by method below the root.
interface Node<T> {
  prefix: string;
  first: number;
  children: Node<T>[] | undefined;
  param: Node<T> | undefined;
  wildcard: Entry<T> | undefined;
  entry: Entry<T> | undefined;
}

interface MethodTree<T> {
  root: Node<T>;
  /** Fully static patterns: one map lookup before the tree. */
  statics: Map<string, Entry<T>>;
  /** Which path lengths (below 256) some static pattern has: a miss skips hashing the path. */
  staticLengths: Uint8Array;
  dynamic: boolean;
}

// Prefixes are cut from concatenated text; V8 keeps those as cons or sliced strings, which
// make every character comparison slow. A JSON round trip gives a flat copy, once, at build.
function flat(text: string): string {
  return JSON.parse(JSON.stringify(text));
}

function createNode<T>(prefix: string): Node<T> {
  prefix = flat(prefix);
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
      child.prefix = flat(prefix.slice(j));
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
 * A method-aware radix tree over path characters; the router of `router()` is built on it, and
 * it can be used alone (for example by a benchmark or another framework).
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
          staticLengths: new Uint8Array(256),
          dynamic: false,
        },
      );
    }
    const names: string[] = [];
    const entry: Entry<T> = {
      data,
      pattern,
      names,
      hit: { data, pattern, names, values: NO_VALUES },
    };
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
      tree.dynamic = true;
      names.push(segment.name);
      if (segment.kind === "param") node = node.param ??= createNode("");
      else node.wildcard = entry;
    }
    if (segments.at(-1)?.kind !== "wildcard") {
      node = insertStatic(node, text);
      node.entry = entry;
      if (names.length === 0) {
        tree.statics.set(pattern, entry);
        if (pattern.length < 256) tree.staticLengths[pattern.length] = 1;
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
    const length = path.length;
    if (length >= 256 || tree.staticLengths[length] === 1) {
      const hit = tree.statics.get(path);
      if (hit !== undefined) return hit.hit;
    }
    if (!tree.dynamic) return undefined;
    // 2. the tree, with backtracking
    const values: string[] = [];
    const entry = walk(tree.root, path, 0, values);
    if (entry === undefined) return undefined;
    return { data: entry.data, pattern: entry.pattern, names: entry.names, values };
  }

  /**
   * Lists every method that some route accepts for this path (the `Allow` of a 405).
   *
   * @returns The methods in registration order; empty when no route matches the path.
   */
  methodsFor(path: string): string[] {
    const out: string[] = [];
    for (const [method, tree] of this.#trees) {
      if (tree.statics.has(path) || walk(tree.root, path, 0, []) !== undefined) out.push(method);
    }
    return out;
  }
}

// Compares without allocating; the first character was already checked by the caller.
function matchesAt(path: string, prefix: string, pos: number): boolean {
  const length = prefix.length;
  if (pos + length > path.length) return false;
  for (let i = 1; i < length; i++) {
    if (path.charCodeAt(pos + i) !== prefix.charCodeAt(i)) return false;
  }
  return true;
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
          if (matchesAt(path, child.prefix, pos)) {
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
