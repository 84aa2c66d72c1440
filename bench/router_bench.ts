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
import { GITHUB_API, HONO_REQUESTS, HONO_ROUTES, type RouteSpec, samplePath } from "./_routes.ts";

type Lookup = (method: string, path: string) => unknown;

const handler = () => {};
const starTo = (pattern: string, star: string) => pattern.replace(/\*\w*$/, star);

function weftTree(routes: readonly RouteSpec[]): RadixTree<typeof handler> {
  const tree = new RadixTree<typeof handler>();
  for (const [method, pattern] of routes) tree.add(method, pattern, handler);
  return tree;
}

function weftCompiled(routes: readonly RouteSpec[]): Lookup {
  const find = weftTree(routes).compile();
  // compile() falls back to the tree walk where it cannot generate code; not here.
  if (!String(find).startsWith("(m,p)=>")) throw new Error("RadixTree.compile() did not compile");
  return (method, path) => find(method, path);
}

function weft(routes: readonly RouteSpec[]): Lookup {
  const tree = weftTree(routes);
  return (method, path) => tree.find(method, path);
}

function honoRegExp(routes: readonly RouteSpec[]): Lookup {
  const router = new RegExpRouter<typeof handler>();
  for (const [method, pattern] of routes) router.add(method, starTo(pattern, "*"), handler);
  return (method, path) => router.match(method, path);
}

function honoTrie(routes: readonly RouteSpec[]): Lookup {
  const router = new TrieRouter<typeof handler>();
  for (const [method, pattern] of routes) router.add(method, starTo(pattern, "*"), handler);
  return (method, path) => router.match(method, path);
}

function findMyWay(routes: readonly RouteSpec[]): Lookup {
  const router = FindMyWay();
  for (const [method, pattern] of routes) router.on(method as "GET", starTo(pattern, "*"), handler);
  return (method, path) => router.find(method as "GET", path);
}

function memoirist(routes: readonly RouteSpec[]): Lookup {
  const router = new Memoirist<typeof handler>();
  for (const [method, pattern] of routes) router.add(method, starTo(pattern, "*"), handler);
  return (method, path) => router.find(method, path);
}

function rou3(routes: readonly RouteSpec[]): Lookup {
  const router = createRouter<typeof handler>();
  for (const [method, pattern] of routes) addRoute(router, method, starTo(pattern, "**"), handler);
  return (method, path) => findRoute(router, method, path);
}

function rou3Compiled(routes: readonly RouteSpec[]): Lookup {
  const router = createRouter<typeof handler>();
  for (const [method, pattern] of routes) addRoute(router, method, starTo(pattern, "**"), handler);
  const find = compileRouter(router);
  return (method, path) => find(method, path);
}

const CONTENDERS: [string, (routes: readonly RouteSpec[]) => Lookup][] = [
  ["weft compiled (new Function)", weftCompiled],
  ["weft RadixTree (no eval)", weft],
  ["hono RegExpRouter", honoRegExp],
  ["hono TrieRouter", honoTrie],
  ["find-my-way", findMyWay],
  ["memoirist", memoirist],
  ["rou3", rou3],
  ["rou3 compileRouter (new Function)", rou3Compiled],
];

function check(name: string, lookup: Lookup, requests: readonly (readonly [string, string])[]) {
  for (const [method, path] of requests) {
    if (!lookup(method, path)) throw new Error(`${name} finds no route for ${method} ${path}`);
  }
}

function group(title: string, routes: readonly RouteSpec[], requests: [string, string][]) {
  for (const [name, build] of CONTENDERS) {
    const lookup = build(routes);
    check(name, lookup, requests);
    bench(title, name, () => {
      for (let i = 0; i < requests.length; i++) lookup(requests[i][0], requests[i][1]);
    }, name.startsWith("rou3 compile"));
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
