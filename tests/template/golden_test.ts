// Golden tests: the templates under golden/ compile to exactly the committed modules, those
// modules type-check (they are imported statically here), stay unchanged by `deno fmt`, and
// render the expected HTML. `WEFT_UPDATE_GOLDEN=1 deno test -A tests/template/golden_test.ts`
// rewrites the modules.
import assert from "node:assert/strict";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { compileDirectory } from "../../lib/template/compile_directory.ts";
import { compileTemplate, safeUrl, unsafeHtml } from "../../lib/template/mod.ts";
import * as basic from "./golden/basic.ts";
import * as card from "./golden/card.ts";
import * as conditionals from "./golden/conditionals.ts";
import * as empty from "./golden/empty.ts";
import * as loops from "./golden/loops.ts";
import * as partials from "./golden/partials.ts";
import * as nullable from "./golden/nullable.ts";
import * as nav from "./golden/parts/nav.ts";
import * as rawAndUrls from "./golden/raw_and_urls.ts";
import * as home from "../../examples/templates/home.ts";
import { runChild } from "../_child.ts";

const GOLDEN = fileURLToPath(new URL("./golden/", import.meta.url));
const EXAMPLES = fileURLToPath(new URL("../../examples/templates/", import.meta.url));

function readPartial(name: string, from: string): { file: string; source: string } | undefined {
  const file = join(dirname(from), `${name}.html`);
  return existsSync(file) ? { file, source: readFileSync(file, "utf8") } : undefined;
}

Deno.test("every golden template compiles to its committed module byte for byte", () => {
  const update = Deno.env.get("WEFT_UPDATE_GOLDEN") === "1";
  const templates = compileDirectory(GOLDEN, { check: true }).templates;
  assert.equal(templates.length, 9);
  for (const file of templates) {
    const code = compileTemplate(readFileSync(file, "utf8"), {
      file,
      name: basename(file),
      partials: readPartial,
    });
    const target = file.replace(/\.html$/, ".ts");
    if (update) writeFileSync(target, code);
    assert.equal(code, readFileSync(target, "utf8"), `${target} is stale`);
  }
  const result = compileDirectory(GOLDEN, { check: true });
  assert.deepEqual(result.errors, []);
  assert.deepEqual(result.stale, []);
});

Deno.test("compileDirectory() finds the example templates up to date", () => {
  const result = compileDirectory(EXAMPLES, { check: true });
  assert.deepEqual(result.errors, []);
  assert.deepEqual(result.stale, []);
});

Deno.test("compileTemplate() is deterministic", () => {
  const source = readFileSync(`${GOLDEN}loops.html`, "utf8");
  const first = compileTemplate(source, { file: "loops.html" });
  assert.equal(compileTemplate(source, { file: "loops.html" }), first);
});

Deno.test("generated modules are already formatted at deno fmt's widths 80, 100 and 120", async () => {
  const files = [...Deno.readDirSync(GOLDEN)]
    .filter((entry) => entry.name.endsWith(".ts"))
    .map((entry) => `${GOLDEN}${entry.name}`);
  files.push(`${GOLDEN}parts/nav.ts`, `${EXAMPLES}home.ts`);
  for (const width of ["80", "100", "120"]) {
    const { code, stderr } = await runChild(Deno.execPath(), {
      what: `deno fmt --check at width ${width}`,
      args: ["fmt", "--check", "--no-config", "--line-width", width, ...files],
      stdout: "null",
    });
    assert.equal(code, 0, `width ${width}: ${new TextDecoder().decode(stderr)}`);
  }
});

Deno.test("generated modules pass deno lint", async () => {
  const { code, stderr } = await runChild(Deno.execPath(), {
    what: "deno lint on the golden modules",
    args: ["lint", "--no-config", GOLDEN, `${EXAMPLES}home.ts`],
    stdout: "null",
  });
  assert.equal(code, 0, new TextDecoder().decode(stderr));
});

Deno.test("basic.html escapes text and both quote styles, keeps \\{{ literal", () => {
  const html = basic.render({
    post: {
      id: 7,
      title: `"Tom" & 'Jerry'`,
      author: { name: "<Ann>" },
      views: 12n,
      body: "</textarea><script>x</script>",
    },
  });
  assert.equal(
    html,
    `<article id="post-7" title='&quot;Tom&quot; &amp; &#39;Jerry&#39;'>
  <h2>&quot;Tom&quot; &amp; &#39;Jerry&#39;</h2>
  <p class="byline">by &lt;Ann&gt; &middot; 12 views</p>
  <textarea name="body">&lt;/textarea&gt;&lt;script&gt;x&lt;/script&gt;</textarea>
  <code>{{not a tag}}</code>
</article>
`,
  );
});

Deno.test("conditionals.html renders both branches and conditional attributes", () => {
  assert.equal(
    conditionals.render({
      user: { name: "Ann", admin: true },
      notice: "Hi & bye",
      busy: 1,
      active: false,
      count: 0,
    }),
    `<header>
  <p>Signed in as Ann (admin)</p>
  <p class="notice">Hi &amp; bye</p>
  <button type="submit" disabled>Save</button>
  <span class="off">0</span>
</header>
`,
  );
  assert.equal(
    conditionals.render({ user: null, count: 3, active: "yes" }),
    `<header>
  <a href="/login">Sign in</a>
  
  <button type="submit" >Save</button>
  <span class="on">3</span>
</header>
`,
  );
});

Deno.test("loops.html renders @index, nested lists, shadowed names and {{else}}", () => {
  assert.equal(
    loops.render({
      title: "T",
      items: [{ name: "a", price: 1.5, tags: ["x", "y"] }, { name: "b<", price: 2, tags: [] }],
      sections: ["S1", "S2"],
    }),
    `<h1>T</h1>
<ol>
  <li data-index="0">a: 1.5
    <ul>
      <li>x of a (0)</li>
      <li>y of a (1)</li>
    </ul>
  </li>
  <li data-index="1">, b&lt;: 2
    <ul>
    </ul>
  </li>
</ol>
<h2>S1</h2><h2>S2</h2>
`,
  );
  assert.equal(
    loops.render({ title: "T", items: [], sections: [] }),
    "<h1>T</h1>\n<ol>\n  <li>Nothing here</li>\n</ol>\n\n",
  );
});

Deno.test("partials.html inlines partials with their indentation and merged data", () => {
  assert.equal(
    partials.render({
      title: "P",
      links: [{ path: "a", label: "A" }],
      cards: [{ heading: "H", text: "t" }, { heading: "H2", text: "t2" }],
    }),
    `<!doctype html>
<title>P</title>
<nav><a href="/a">A</a></nav>
<main>
  <section class="card">
    <h3>H</h3>
    <p>t</p>
  </section>
  <section class="card">
    <h3>H2</h3>
    <p>t2</p>
  </section>
</main>
`,
  );
  // The partials are templates of their own too.
  assert.equal(nav.render({ links: [] }), "<nav></nav>\n");
  assert.match(card.render({ card: { heading: "x", text: "y" } }), /<h3>x<\/h3>/);
});

Deno.test("raw_and_urls.html takes SafeHtml raw and SafeUrl at URL starts", () => {
  assert.equal(
    rawAndUrls.render({
      homepage: safeUrl("https://weft.dev/"),
      siteName: "Weft",
      avatar: safeUrl("javascript:alert(1)"),
      query: "a&b",
      userId: 5,
      formAction: safeUrl("/save"),
      body: unsafeHtml("<b>bold</b>"),
    }),
    `<div class="layout">
  <a href="https://weft.dev/">Weft</a>
  <img src="about:invalid#weft-unsafe-url" alt="Weft">
  <a href="https://example.com/search?q=a&amp;b">search</a>
  <a href="/users/5#top">profile</a>
  <form action="/save" method="post"></form>
  <b>bold</b>
</div>
<script type="module" src="/app.js"></script>
<style>
body {
  margin: 0;
}
</style>
`,
  );
});

Deno.test("a template's output is SafeHtml for another template's raw slot", () => {
  const inner = nav.render({ links: [{ path: "x", label: "<X>" }] });
  const page = rawAndUrls.render({
    homepage: safeUrl("/"),
    siteName: "S",
    avatar: safeUrl("/a.png"),
    query: "",
    userId: 1,
    formAction: safeUrl("/f"),
    body: inner,
  });
  assert.ok(page.includes('<nav><a href="/x">&lt;X&gt;</a></nav>'));
});

Deno.test("nullable.html takes absent, null and present optional values", () => {
  assert.equal(
    nullable.render({ tags: [null, "a", ""], profile: {} }),
    "<ul>\n  \n  <li>a</li>\n  \n</ul>\n\n",
  );
  assert.equal(
    nullable.render({
      tags: [],
      profile: { links: [{ href: safeUrl("/x"), text: "X" }] },
      a: { b: { c: "<c>" } },
    }),
    '<ul>\n</ul>\n<nav>\n  <a href="/x">X</a>\n</nav>\n<p>&lt;c&gt;</p>\n',
  );
  assert.equal(
    nullable.render({ tags: [], profile: { links: null }, a: { b: null } }),
    "<ul>\n</ul>\n\n",
  );
});

Deno.test("empty.html has no data and renders its text", () => {
  assert.equal(empty.render({}), "<p>No data at all.</p>\n");
});

Deno.test("examples/templates/home.html renders routes, the message and the empty list", () => {
  const html = home.render({
    title: "Weft demo",
    message: "It works & it's typed",
    routes: [{ method: "GET", pattern: "/users/:id", summary: "One user" }],
  });
  assert.ok(html.includes("<title>Weft demo</title>"));
  assert.ok(html.includes('<p class="message">It works &amp; it&#39;s typed</p>'));
  assert.ok(html.includes("<li><code>GET /users/:id</code> One user</li>"));
  assert.ok(home.render({ title: "t", routes: [] }).includes("<li>No routes yet.</li>"));
});
