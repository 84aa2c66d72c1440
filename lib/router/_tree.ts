// The shapes of the router's radix tree, shared by the tree (radix.ts) and its code generator
// (_compile.ts), so that both depend on this module and neither on the other's types.

/** What `RadixTree.find()` returns: the route's data and its params. */
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

/**
 * A route as the tree stores it (shared by radix.ts and _compile.ts), with no values: the match
 * of a static route itself, and what the match of a route with params is made from.
 */
export type Entry<T> = RadixMatch<T>;

/**
 * A tree node (shared by radix.ts and _compile.ts). A node consumes `prefix` (static
 * characters); its static children start with distinct characters, its param child consumes
 * one non-empty segment, its wildcard the remainder. Each method has its own tree, so a lookup
 * never indexes by method below the root.
 */
export interface Node<T> {
  prefix: string;
  first: number;
  children: Node<T>[] | undefined;
  param: Node<T> | undefined;
  wildcard: Entry<T> | undefined;
  entry: Entry<T> | undefined;
}

/** The tree and static map of one method (shared by radix.ts and _compile.ts). */
export interface MethodTree<T> {
  root: Node<T>;
  /** Fully static patterns: one map lookup before the tree. */
  statics: Map<string, Entry<T>>;
}
