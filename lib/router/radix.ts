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
}

type Methods<T> = Record<string, Entry<T> | undefined>;

interface Node<T> {
  statics: Map<string, Node<T>> | undefined;
  param: Node<T> | undefined;
  paramName: string;
  paramPattern: string;
  wildcard: Methods<T> | undefined;
  wildcardName: string;
  wildcardPattern: string;
  methods: Methods<T> | undefined;
}

function createNode<T>(): Node<T> {
  return {
    statics: undefined,
    param: undefined,
    paramName: "",
    paramPattern: "",
    wildcard: undefined,
    wildcardName: "",
    wildcardPattern: "",
    methods: undefined,
  };
}

const NO_VALUES: string[] = [];

/**
 * A method-aware radix tree over path segments; the router of `router()` is built on it, and it
 * can be used alone (for example by a benchmark or another framework).
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
  #root: Node<T> = createNode();
  #static = new Map<string, Methods<T>>();
  #dynamic = false;

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
    const names: string[] = [];
    const entry: Entry<T> = { data, pattern, names };
    let node = this.#root;
    for (const segment of segments) {
      if (segment.kind === "static") {
        node.statics ??= new Map();
        let child = node.statics.get(segment.value);
        if (child === undefined) node.statics.set(segment.value, child = createNode());
        node = child;
        continue;
      }
      this.#dynamic = true;
      names.push(segment.name);
      if (segment.kind === "param") {
        if (node.param === undefined) {
          node.param = createNode();
          node.paramName = segment.name;
          node.paramPattern = pattern;
        } else if (node.paramName !== segment.name) {
          throw conflict(method, pattern, node.paramPattern, `:${node.paramName}`);
        }
        node = node.param;
        continue;
      }
      if (node.wildcard === undefined) {
        node.wildcard = {};
        node.wildcardName = segment.name;
        node.wildcardPattern = pattern;
      } else if (node.wildcardName !== segment.name) {
        throw conflict(method, pattern, node.wildcardPattern, `*${node.wildcardName}`);
      }
      addMethod(node.wildcard, method, entry);
      return;
    }
    node.methods ??= {};
    addMethod(node.methods, method, entry);
    if (names.length === 0) this.#static.set(pattern, node.methods);
  }

  /** Whether a route with exactly this method and pattern was added. */
  has(method: string, pattern: string): boolean {
    const segments = parsePattern(pattern);
    let node: Node<T> | undefined = this.#root;
    for (const segment of segments) {
      if (segment.kind === "static") node = node.statics?.get(segment.value);
      else if (segment.kind === "param") node = node.param;
      else return node.wildcard?.[method] !== undefined;
      if (node === undefined) return false;
    }
    return node.methods?.[method] !== undefined;
  }

  /**
   * Finds the most specific route for a method and a path (without query string).
   *
   * @returns The match, or `undefined` when no route has this method for this path.
   */
  find(method: string, path: string): RadixMatch<T> | undefined {
    // 1. fully static patterns: one map lookup
    const hit = this.#static.get(path)?.[method];
    if (hit !== undefined) {
      return { data: hit.data, pattern: hit.pattern, names: hit.names, values: NO_VALUES };
    }
    if (!this.#dynamic || path[0] !== "/") return undefined;
    // 2. the tree, segment by segment, with backtracking
    const values: string[] = [];
    const entry = walk(this.#root, path, 1, values, method);
    if (entry === undefined) return undefined;
    return { data: entry.data, pattern: entry.pattern, names: entry.names, values };
  }

  /**
   * Lists every method that some route accepts for this path (the `Allow` of a 405).
   *
   * @returns The methods in registration order; empty when no route matches the path.
   */
  methodsFor(path: string): string[] {
    const out = new Set<string>();
    if (path[0] === "/") collect(this.#root, path, 1, out);
    return [...out];
  }
}

function addMethod<T>(methods: Methods<T>, method: string, entry: Entry<T>): void {
  const existing = methods[method];
  if (existing !== undefined) {
    throw new TypeError(
      `Cannot add route "${method} ${entry.pattern}": "${existing.pattern}" is already registered`,
    );
  }
  methods[method] = entry;
}

function conflict(method: string, pattern: string, other: string, name: string): TypeError {
  return new TypeError(
    `Cannot add route "${method} ${pattern}": "${other}" already uses "${name}" at that position`,
  );
}

function walk<T>(
  node: Node<T>,
  path: string,
  start: number,
  values: string[],
  method: string,
): Entry<T> | undefined {
  const end = path.indexOf("/", start);
  const segment = end === -1 ? path.slice(start) : path.slice(start, end);
  // 1. static
  const child = node.statics?.get(segment);
  if (child !== undefined) {
    const entry = end === -1 ? child.methods?.[method] : walk(child, path, end + 1, values, method);
    if (entry !== undefined) return entry;
  }
  // 2. param: one non-empty segment
  const param = node.param;
  if (param !== undefined && segment !== "") {
    values.push(segment);
    const entry = end === -1 ? param.methods?.[method] : walk(param, path, end + 1, values, method);
    if (entry !== undefined) return entry;
    values.pop();
  }
  // 3. wildcard: the whole remainder, possibly empty
  const entry = node.wildcard?.[method];
  if (entry !== undefined) values.push(path.slice(start));
  return entry;
}

function collect<T>(node: Node<T>, path: string, start: number, out: Set<string>): void {
  const end = path.indexOf("/", start);
  const segment = end === -1 ? path.slice(start) : path.slice(start, end);
  const next = [node.statics?.get(segment), segment === "" ? undefined : node.param];
  for (const child of next) {
    if (child === undefined) continue;
    if (end !== -1) collect(child, path, end + 1, out);
    else for (const method in child.methods) out.add(method);
  }
  for (const method in node.wildcard) out.add(method);
}
