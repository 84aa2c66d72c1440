// Router lookups, Weft against the anchors in the same groups: Hono's RegExpRouter and
// TrieRouter, find-my-way, memoirist, rou3 and rou3's compiled router (JIT via new Function).
// Weft runs twice: compiled (RadixTree.compile(), what router() uses where new Function is
// allowed) and walking the tree (RadixTree.find(), the no-eval matcher). Each router returns
// its params in its own form (Weft: values parallel to names).
import { RadixTree } from "../lib/router/radix.ts";
import { RegExpRouter } from "hono/router/reg-exp-router";
import { TrieRouter } from "hono/router/trie-router";
import FindMyWay from "find-my-way";
import { Memoirist } from "memoirist";
import { addRoute, createRouter, findRoute } from "rou3";
import { compileRouter } from "rou3/compiler";
import { bench } from "./_groups.ts";
import { flatten, group as routeGroup, route } from "../lib/router/router.ts";
import { GITHUB_API, HONO_REQUESTS, HONO_ROUTES, type RouteSpec, samplePath } from "./_routes.ts";

type Lookup = (method: string, path: string) => unknown;
type Requests = readonly (readonly [string, string])[];

/** A router under test: how to call it (`t` is `target`, `m` and `p` the method and path). */
interface Built {
  target: unknown;
  call: string;
}

const handler = () => {};
const starTo = (pattern: string, star: string) => pattern.replace(/\*\w*$/, star);

function weftTree(routes: readonly RouteSpec[]): RadixTree<typeof handler> {
  const tree = new RadixTree<typeof handler>();
  for (const [method, pattern] of routes) tree.add(method, pattern, handler);
  return tree;
}

function weftCompiled(routes: readonly RouteSpec[]): Built {
  const find = weftTree(routes).compile();
  // compile() falls back to the tree walk where it cannot generate code; not here.
  if (!String(find).startsWith("(m,p)=>")) throw new Error("RadixTree.compile() did not compile");
  return { target: find, call: "t(m, p)" };
}

// The routes registered as an app writes them in groups: nested by their first two segments
// (`group("/repos", [], [group("/:owner", [], [...])])`), flattened by router()'s own flatten()
// into the one tree, then compiled as router() does. The tree must come out the same as the
// flat one's: grouping costs nothing per lookup.
function weftGrouped(routes: readonly RouteSpec[]): Built {
  type Item = Parameters<typeof flatten>[0][number];
  const nest = (specs: readonly RouteSpec[], depth: number): Item[] => {
    const byHead = new Map<string, RouteSpec[]>();
    const items: Item[] = [];
    for (const [method, pattern] of specs) {
      const cut = pattern.indexOf("/", 1);
      // a route with a last segment of its own, or a wildcard, stays at this level
      if (depth === 2 || cut === -1 || pattern[1] === "*") {
        items.push(route(method, pattern, handler as never) as Item);
        continue;
      }
      const head = pattern.slice(0, cut);
      let list = byHead.get(head);
      if (list === undefined) byHead.set(head, list = []);
      list.push([method, pattern.slice(cut)]);
    }
    for (const [head, specs] of byHead) items.push(routeGroup(head, [], nest(specs, depth + 1)));
    return items;
  };
  const tree = new RadixTree<typeof handler>();
  const flat: string[] = [];
  for (const [{ method, pattern }] of flatten(nest(routes, 0), "", [], [])) {
    tree.add(method, pattern, handler);
    flat.push(`${method} ${pattern}`);
  }
  const want = routes.map(([method, pattern]) => `${method} ${pattern}`);
  if (flat.sort().join("\n") !== [...want].sort().join("\n")) {
    throw new Error("the grouped routes do not flatten to the flat ones");
  }
  return { target: tree.compile(), call: "t(m, p)" };
}

function weft(routes: readonly RouteSpec[]): Built {
  return { target: weftTree(routes), call: "t.find(m, p)" };
}

function honoRegExp(routes: readonly RouteSpec[]): Built {
  const router = new RegExpRouter<typeof handler>();
  for (const [method, pattern] of routes) router.add(method, starTo(pattern, "*"), handler);
  return { target: router, call: "t.match(m, p)" };
}

function honoTrie(routes: readonly RouteSpec[]): Built {
  const router = new TrieRouter<typeof handler>();
  for (const [method, pattern] of routes) router.add(method, starTo(pattern, "*"), handler);
  return { target: router, call: "t.match(m, p)" };
}

function findMyWay(routes: readonly RouteSpec[]): Built {
  const router = FindMyWay();
  for (const [method, pattern] of routes) router.on(method as "GET", starTo(pattern, "*"), handler);
  return { target: router, call: "t.find(m, p)" };
}

function memoirist(routes: readonly RouteSpec[]): Built {
  const router = new Memoirist<typeof handler>();
  for (const [method, pattern] of routes) router.add(method, starTo(pattern, "*"), handler);
  return { target: router, call: "t.find(m, p)" };
}

function rou3(routes: readonly RouteSpec[]): Built {
  const router = createRouter<typeof handler>();
  for (const [method, pattern] of routes) addRoute(router, method, starTo(pattern, "**"), handler);
  return { target: { router, findRoute }, call: "t.findRoute(t.router, m, p)" };
}

function rou3Compiled(routes: readonly RouteSpec[]): Built {
  const router = createRouter<typeof handler>();
  for (const [method, pattern] of routes) addRoute(router, method, starTo(pattern, "**"), handler);
  return { target: compileRouter(router), call: "t(m, p)" };
}

const CONTENDERS: [string, (routes: readonly RouteSpec[]) => Built][] = [
  ["weft compiled (new Function)", weftCompiled],
  ["weft compiled, registered through nested groups", weftGrouped],
  ["weft RadixTree (no eval)", weft],
  ["hono RegExpRouter", honoRegExp],
  ["hono TrieRouter", honoTrie],
  ["find-my-way", findMyWay],
  ["memoirist", memoirist],
  ["rou3", rou3],
  ["rou3 compileRouter (new Function)", rou3Compiled],
];

// The timing loop and the lookup of each router in each group are function literals of their
// own (made with new Function), so that their call sites see that one router only, as a
// server's would: a loop shared by every contender would call each of them through a call site
// that has seen them all, which penalizes the routers that profit most from inlining.
function own({ target, call }: Built, requests: Requests): { lookup: Lookup; loop: () => void } {
  const make = new Function(
    "t",
    "r",
    `return [(m, p) => ${call}, () => { for (let i = 0; i < r.length; i++) { ` +
      `const m = r[i][0], p = r[i][1]; ${call}; } }];`,
  );
  const [lookup, loop] = make(target, requests);
  return { lookup, loop };
}

function check(name: string, lookup: Lookup, requests: Requests) {
  for (const [method, path] of requests) {
    if (!lookup(method, path)) throw new Error(`${name} finds no route for ${method} ${path}`);
  }
}

function group(title: string, routes: readonly RouteSpec[], requests: [string, string][]) {
  for (const [name, build] of CONTENDERS) {
    const { lookup, loop } = own(build(routes), requests);
    check(name, lookup, requests);
    bench(title, name, loop, name.startsWith("rou3 compile"));
  }
}

for (const [name, method, path] of HONO_REQUESTS) {
  group(`hono set: ${name}`, HONO_ROUTES, [[method, path]]);
}
group(
  "hono set: all together",
  HONO_ROUTES,
  HONO_REQUESTS.map(([, method, path]) => [method, path]),
);
group(
  "github API: all 203 routes",
  GITHUB_API,
  GITHUB_API.map(([method, pattern]) => [method, samplePath(pattern)]),
);
