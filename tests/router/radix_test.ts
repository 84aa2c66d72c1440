import assert from "node:assert/strict";
import { RadixTree } from "../../lib/router/radix.ts";
import { GITHUB_API, samplePath } from "../../bench/_routes.ts";
import { runChild } from "../_child.ts";

// The generated matcher's source starts like this; the fallback calls RadixTree.find().
const isCompiled = (find: unknown) => String(find).startsWith("(m,p)=>");

function treeOf(routes: readonly (readonly [string, string])[]): RadixTree<number> {
  const tree = new RadixTree<number>();
  routes.forEach(([method, pattern], i) => tree.add(method, pattern, i));
  return tree;
}

Deno.test("RadixTree.compile() generates a matcher where new Function is allowed", () => {
  const find = treeOf([["GET", "/users/:id"], ["GET", "/users/me"]]).compile();
  assert.ok(isCompiled(find));
  assert.deepEqual(find("GET", "/users/me"), {
    data: 1,
    pattern: "/users/me",
    names: [],
    values: [],
  });
  assert.deepEqual(find("GET", "/users/42"), {
    data: 0,
    pattern: "/users/:id",
    names: ["id"],
    values: ["42"],
  });
  assert.equal(find("POST", "/users/42"), undefined);
  assert.equal(find("GET", "/users/"), undefined);
});

Deno.test("RadixTree.compile() agrees with find() on the GitHub API routes", () => {
  const tree = treeOf(GITHUB_API);
  const find = tree.compile();
  assert.ok(isCompiled(find));
  const methods = ["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD"];
  for (const [, pattern] of GITHUB_API) {
    const path = samplePath(pattern);
    for (const variant of [path, path + "/", path.slice(0, -1), path + "/x", "/x" + path]) {
      for (const method of methods) {
        assert.deepEqual(find(method, variant), tree.find(method, variant), `${method} ${variant}`);
      }
    }
  }
});

Deno.test("RadixTree.compile() keeps route text as data, never as code", () => {
  const hostile = [
    '");globalThis.pwned=1;("',
    "\\",
    "${globalThis.pwned=1}",
    "x*)+(globalThis.pwned=1)+(",
    "\u2028globalThis.pwned=1",
    "</script><script>globalThis.pwned=1</script>",
    "`",
  ];
  const routes: [string, string][] = hostile.flatMap((text) => [
    ["GET", `/${text}`],
    ["GET", `/${text}/:id`],
    ["GET", `/p/${text}/*rest`],
  ]);
  routes.push(["GET", "/long-prefix-first/:a"], ["GET", "/long-prefix-second/:b"]);
  const method = '");globalThis.pwned=1;("';
  routes.push([method, "/m"]);
  const tree = treeOf(routes);
  const find = tree.compile();
  assert.ok(isCompiled(find));
  for (const text of hostile) {
    for (const path of [`/${text}`, `/${text}/7`, `/p/${text}/a/b`, `/p/${text}/`]) {
      assert.deepEqual(find("GET", path), tree.find("GET", path), path);
      assert.notEqual(find("GET", path), undefined, path);
    }
  }
  assert.equal(find(method, "/m")?.pattern, "/m");
  assert.equal((globalThis as { pwned?: number }).pwned, undefined);
});

Deno.test("RadixTree.compile() walks the tree for a method too large to compile", () => {
  const routes: [string, string][] = [];
  for (let i = 0; i < 1500; i++) routes.push(["GET", `/r${i}/items/:id`], ["GET", `/r${i}/a`]);
  const tree = treeOf(routes);
  const find = tree.compile();
  assert.ok(!isCompiled(find));
  assert.deepEqual(find("GET", "/r1499/items/x")?.values, ["x"]);
  assert.equal(find("GET", "/r1499/a")?.pattern, "/r1499/a");
});

Deno.test("RadixTree.compile() walks the tree when the routes are too many to hand to the code", () => {
  const routes: [string, string][] = [];
  for (let m = 0; m < 60; m++) {
    for (let i = 0; i < 200; i++) routes.push([`M${m}`, `/r${i}/:id`]);
  }
  const tree = treeOf(routes);
  const find = tree.compile();
  assert.ok(!isCompiled(find));
  assert.deepEqual(find("M59", "/r199/x")?.values, ["x"]);
  assert.equal(find("M59", "/r200/x"), undefined);
});

Deno.test("RadixTree.compile() dispatches on the method in one function and in one per method", () => {
  const small: [string, string][] = [
    ["GET", "/a"],
    ["GET", "/a/:id"],
    ["POST", "/a"],
    ["POST", "/b/*rest"],
    ["PUT", "/a/:id"],
  ];
  // Enough routes that each method gets its own function.
  const large = [...small];
  for (let i = 0; i < 100; i++) large.push(["GET", `/g${i}/:id/x`], ["POST", `/p${i}/:id/y`]);
  for (const routes of [small, large]) {
    const tree = treeOf(routes);
    const find = tree.compile();
    assert.ok(isCompiled(find));
    for (const method of ["GET", "POST", "PUT", "DELETE"]) {
      for (const path of ["/a", "/a/1", "/b/", "/b/c/d", "/g99/7/x", "/p0/7/y", "/p0/7/x", "/"]) {
        assert.deepEqual(find(method, path), tree.find(method, path), `${method} ${path}`);
      }
    }
  }
});

Deno.test("RadixTree.compile() compiles many static routes of one length through the map", () => {
  const routes: [string, string][] = [];
  for (let i = 100; i < 400; i++) routes.push(["GET", `/s${i}`]);
  routes.push(["GET", "/s399/:id"]);
  const tree = treeOf(routes);
  const find = tree.compile();
  assert.ok(isCompiled(find));
  assert.equal(find("GET", "/s123")?.pattern, "/s123");
  assert.deepEqual(find("GET", "/s399/q")?.values, ["q"]);
  assert.equal(find("GET", "/s400"), undefined);
});

Deno.test("RadixTree.compile() does not see routes added after it", () => {
  const tree = treeOf([["GET", "/a"]]);
  const find = tree.compile();
  tree.add("GET", "/b", 1);
  assert.equal(find("GET", "/b"), undefined);
  assert.equal(tree.find("GET", "/b")?.data, 1);
});

Deno.test("router() falls back to the tree where code generation from strings is forbidden", async () => {
  // V8's flag makes `new Function` throw an EvalError, as a CSP without 'unsafe-eval' does.
  const mod = new URL("../../mod.ts", import.meta.url).href;
  const radix = new URL("../../lib/router/radix.ts", import.meta.url).href;
  const code = `
    import { get, router } from ${JSON.stringify(mod)};
    import { RadixTree } from ${JSON.stringify(radix)};
    const tree = new RadixTree();
    tree.add("GET", "/u/:id", 1);
    const first = tree.compile(), second = tree.compile();
    if (String(first).startsWith("(m,p)=>")) throw new Error("compiled despite the flag");
    if (first("GET", "/u/7")?.values[0] !== "7" || second("GET", "/u/8")?.values[0] !== "8") {
      throw new Error("wrong match");
    }
    const app = router([get("/u/:id", (ctx) => new Response(ctx.params.id))]);
    const res = await app.fetch(new Request("http://localhost/u/42"));
    console.log(res.status, await res.text());
  `;
  const { code: exit, stdout, stderr } = await runChild(Deno.execPath(), {
    what: "deno eval without code generation from strings",
    args: ["eval", "--v8-flags=--disallow-code-generation-from-strings", code],
  });
  const decoder = new TextDecoder();
  assert.equal(exit, 0, decoder.decode(stderr));
  assert.equal(decoder.decode(stdout).trim(), "200 42");
});
