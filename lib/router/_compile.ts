// Code generation for RadixTree.compile(): the tree of each method becomes the source of one
// function, built once with `new Function`. The generated code takes the steps of walk() in
// radix.ts (static routes by length, then per node: end of path, static child, param,
// wildcard), so both give the same match; backtracking is falling out of a block.
//
// Nothing from a route is spliced in as code: paths, prefixes and methods become string
// literals through JSON.stringify, characters and lengths become numbers, and routes are the
// parameters `$0`, `$1`, … of the generated code.
import type { Entry, MethodTree, Node, RadixMatch } from "./_tree.ts";

type Find<T> = (method: string, path: string) => RadixMatch<T> | undefined;

// V8 optimizes a function only while its bytecode is under 60 kB; past this many characters
// of source, walking the tree is faster.
const MAX_SOURCE = 40_000;
// Routes handed to the generated code as parameters; past this, walking the tree.
const MAX_REFS = 10_000;
// Up to this many characters, all methods share one function (TurboFan inlines no callee whose
// bytecode is larger than a few hundred bytes, so a call per method would remain).
const SINGLE_SOURCE = 4_000;

// Set once `new Function` has thrown (a CSP without 'unsafe-eval', V8's
// --disallow-code-generation-from-strings): later routers do not try again.
let blocked = false;

/**
 * Generates the find function of a tree's methods, or `undefined` where eval is forbidden or
 * a method's function would be too large. `toMatch` builds the result of a dynamic route.
 */
export function compileTrees<T>(
  trees: Map<string, MethodTree<T>>,
  toMatch: (entry: Entry<T>, values: string[]) => RadixMatch<T>,
): Find<T> | undefined {
  if (blocked) return undefined;
  const str = JSON.stringify;
  const refs: unknown[] = [];
  // Each route object becomes a parameter of the generated code: a direct variable read, no
  // array load.
  const ref = (value: unknown) => `$${refs.push(value) - 1}`;
  let id = 0;

  // Matches the rest of the path from `at`, at position v + k (v is "" while the position is
  // a constant, before the first param); `values` lists the params' expressions so far.
  function node(at: Node<T>, v: string, k: number, values: string): string {
    const pos = (n: number) => v ? `${v}+${n}` : n;
    // 0. the end of the path (static routes were answered before the tree)
    let code = at.entry?.names.length
      ? `if(${pos(k)}===l)return R(${ref(at.entry)},[${values}]);`
      : "";
    // 1. static: the child that starts with this character; indexOf compares a long prefix as
    // fast as charCodeAt does and is cheaper for V8 to optimize
    let cases = "";
    for (const child of at.children ?? []) {
      const prefix = child.prefix;
      const inner = node(child, v, k + prefix.length, values);
      let test = "1";
      if (prefix.length > 5) {
        test = `p.indexOf(${str(prefix.slice(1))},${pos(k + 1)})===${pos(k + 1)}`;
      } else {
        for (let i = 1; i < prefix.length; i++) {
          test += `&&p.charCodeAt(${pos(k + i)})===${prefix.charCodeAt(i)}`;
        }
      }
      // Nothing to generate where only static routes lie below: the length switch has them.
      if (inner) cases += `case ${child.first}:if(${test}){${inner}}break;`;
    }
    if (cases) code += `switch(p.charCodeAt(${pos(k)})){${cases}}`;
    // 2. param: one non-empty segment
    if (at.param) {
      const e = `e${id++}`;
      code += `{let ${e}=p.indexOf("/",${pos(k)});if(${e}<0)${e}=l;if(${e}>${pos(k)}){${
        node(at.param, e, 0, `${values}p.slice(${pos(k)},${e}),`)
      }}}`;
    }
    // 3. wildcard: the remainder, possibly empty
    if (at.wildcard) code += `return R(${ref(at.wildcard)},[${values}p.slice(${pos(k)})]);`;
    return code;
  }

  // One block per method; `l` is the path's length.
  const blocks: [method: string, code: string][] = [];
  let size = 0;
  for (const [method, tree] of trees) {
    // Static routes: a switch on the length, then comparisons, or the map for a crowded length.
    const byLength: Record<number, string> = {};
    for (const [path, entry] of tree.statics) {
      byLength[path.length] = (byLength[path.length] ?? "") +
        `if(p===${str(path)})return ${ref(entry)};`;
    }
    let code = "";
    for (const length in byLength) {
      const tests = byLength[length];
      code += `case ${length}:${
        tests.length > 500 ? `{const h=${ref(tree.statics)}.get(p);if(h)return h}` : tests
      }break;`;
    }
    code = `switch(l){${code}}${node(tree.root, "", 0, "")}`;
    if (code.length > MAX_SOURCE) return undefined;
    blocks.push([method, code]);
    size += code.length;
  }
  // Small route sets: one function, the methods' blocks in a switch, saving a call per lookup.
  // Larger ones: a function per method, each small enough for V8 to optimize.
  let source = "";
  let dispatch = "";
  for (const [method, code] of blocks) {
    if (size > SINGLE_SOURCE) {
      source += `function f${id}(p){const l=p.length;${code}}`;
      dispatch += `case ${str(method)}:return f${id++}(p);`;
    } else dispatch += `case ${str(method)}:{${code}}break;`;
  }
  dispatch = size > SINGLE_SOURCE
    ? `switch(m){${dispatch}}`
    : `const l=p.length;switch(m){${dispatch}}`;
  // Engines cap the number of parameters (V8: 65,535).
  if (refs.length > MAX_REFS) return undefined;
  try {
    return new Function(
      "R",
      ...refs.map((_, i) => `$${i}`),
      `${source}return(m,p)=>{${dispatch}}`,
    )(toMatch, ...refs);
  } catch (error) {
    if (!(error instanceof EvalError)) throw error;
    blocked = true;
  }
}
