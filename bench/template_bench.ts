/**
 * Template rendering: a page with 20 escaped values, an `{{#if}}` and a 100-row `{{#each}}` of
 * three fields, rendered by a Weft compiled template and by the anchors in one group. The
 * baseline is the floor: a hand-written template-literal function with regex-test-then-replace
 * escaping. Run with `deno bench -A bench/template_bench.ts`.
 *
 * @module
 */
import assert from "node:assert/strict";
// Anchors without an entry in deno.json's imports are pinned here.
import { Eta } from "eta";
import Handlebars from "handlebars";
import { html } from "hono/html";
import Mustache from "mustache";
import { compileTemplate } from "../lib/template/mod.ts";
import { bench } from "./_groups.ts";

// 1. The data: mostly plain text, some values that need escaping, numbers.
const data = {
  title: "Quarterly report",
  description: 'Sales & returns for "Q3"',
  siteName: "Weft Store",
  nav1: "Home",
  nav2: "Products",
  nav3: "About <us>",
  lead: "All figures are in euros and include taxes where applicable.",
  author: { name: "Ada Lovelace", email: "ada@example.com", role: "Analyst" },
  published: "2024-10-01",
  updated: "2024-10-15",
  views: 10423,
  likes: 321,
  featured: true,
  featuredText: "Record quarter: up 12% over last year",
  footer1: "Terms",
  footer2: "Privacy",
  copyright: "© Weft & friends",
  year: 2024,
  items: Array.from({ length: 100 }, (_, i) => ({
    name: i % 10 === 0 ? `Tom & Jerry box ${i}` : `Product number ${i}`,
    price: 10 + i * 1.25,
    note: i % 7 === 0 ? `Limited <b>edition</b> "${i}"` : "In stock, ships tomorrow",
  })),
};
type PageData = typeof data;

// 2. The same page in every engine's syntax.
const WEFT = `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>{{title}}</title>
<meta name="description" content="{{description}}"></head>
<body>
<header><a href="/">{{siteName}}</a> <nav>{{nav1}} | {{nav2}} | {{nav3}}</nav></header>
<main>
<h1>{{title}}</h1>
<p class="lead">{{lead}}</p>
<p>Author: {{author.name}} ({{author.email}}), {{author.role}}</p>
<p>Published {{published}}, updated {{updated}}, {{views}} views, {{likes}} likes.</p>
{{#if featured}}<div class="featured">{{featuredText}}</div>{{/if}}
<table>
<thead><tr><th>Name</th><th>Price</th><th>Note</th></tr></thead>
<tbody>
{{#each items as item}}
<tr><td>{{item.name}}</td><td>{{item.price}}</td><td>{{item.note}}</td></tr>
{{/each}}
</tbody>
</table>
</main>
<footer>{{footer1}} {{footer2}} {{copyright}} {{year}}</footer>
</body>
</html>
`;

const HANDLEBARS = WEFT.replace("{{#if featured}}", "{{#if featured}}")
  .replace("{{#each items as item}}", "{{#each items}}")
  .replace(/item\./g, "");

const MUSTACHE = WEFT.replace("{{#if featured}}", "{{#featured}}")
  .replace("{{/if}}", "{{/featured}}")
  .replace("{{#each items as item}}", "{{#items}}")
  .replace("{{/each}}", "{{/items}}")
  .replace(/item\./g, "");

const ETA = WEFT.replace("{{#if featured}}", "<% if (it.featured) { %>")
  .replace("{{/if}}", "<% } %>")
  .replace("{{#each items as item}}\n", "<% for (const item of it.items) { %>\n")
  .replace("{{/each}}\n", "<% } %>\n")
  .replace(/\{\{(item\.\w+)\}\}/g, "<%= $1 %>")
  .replace(/\{\{([\w.]+)\}\}/g, "<%= it.$1 %>");

// 3. The floor: what a careful person writes by hand.
const ESCAPE_TEST = /[&<>"']/;
const ESCAPE_ALL = /[&<>"']/g;
const ENTITIES: Record<string, string> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&#39;",
};
function esc(value: string | number): string {
  const text = String(value);
  return ESCAPE_TEST.test(text) ? text.replace(ESCAPE_ALL, (c) => ENTITIES[c]) : text;
}
function handWritten(d: PageData): string {
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>${esc(d.title)}</title>
<meta name="description" content="${esc(d.description)}"></head>
<body>
<header><a href="/">${esc(d.siteName)}</a> <nav>${esc(d.nav1)} | ${esc(d.nav2)} | ${
    esc(d.nav3)
  }</nav></header>
<main>
<h1>${esc(d.title)}</h1>
<p class="lead">${esc(d.lead)}</p>
<p>Author: ${esc(d.author.name)} (${esc(d.author.email)}), ${esc(d.author.role)}</p>
<p>Published ${esc(d.published)}, updated ${esc(d.updated)}, ${esc(d.views)} views, ${
    esc(d.likes)
  } likes.</p>
${d.featured ? `<div class="featured">${esc(d.featuredText)}</div>` : ""}
<table>
<thead><tr><th>Name</th><th>Price</th><th>Note</th></tr></thead>
<tbody>
${
    d.items.map((item) =>
      `<tr><td>${esc(item.name)}</td><td>${esc(item.price)}</td><td>${esc(item.note)}</td></tr>\n`
    ).join("")
  }</tbody>
</table>
</main>
<footer>${esc(d.footer1)} ${esc(d.footer2)} ${esc(d.copyright)} ${esc(d.year)}</footer>
</body>
</html>
`;
}

// For reference, not an anchor: the floor rewritten with the compiler's tricks by hand (a loop
// instead of map/join, no escaping work for numbers).
function escapeFast(value: string | number): string {
  if (typeof value === "number") return "" + value;
  return ESCAPE_TEST.test(value) ? value.replace(ESCAPE_ALL, (c) => ENTITIES[c]) : value;
}
function handTuned(d: PageData): string {
  let out = `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>${escapeFast(d.title)}</title>
<meta name="description" content="${escapeFast(d.description)}"></head>
<body>
<header><a href="/">${escapeFast(d.siteName)}</a> <nav>${escapeFast(d.nav1)} | ${
    escapeFast(d.nav2)
  } | ${escapeFast(d.nav3)}</nav></header>
<main>
<h1>${escapeFast(d.title)}</h1>
<p class="lead">${escapeFast(d.lead)}</p>
<p>Author: ${escapeFast(d.author.name)} (${escapeFast(d.author.email)}), ${
    escapeFast(d.author.role)
  }</p>
<p>Published ${escapeFast(d.published)}, updated ${escapeFast(d.updated)}, ${
    escapeFast(d.views)
  } views, ${escapeFast(d.likes)} likes.</p>
${d.featured ? `<div class="featured">${escapeFast(d.featuredText)}</div>` : ""}
<table>
<thead><tr><th>Name</th><th>Price</th><th>Note</th></tr></thead>
<tbody>
`;
  for (const item of d.items) {
    out += `<tr><td>${escapeFast(item.name)}</td><td>${escapeFast(item.price)}</td><td>${
      escapeFast(item.note)
    }</td></tr>\n`;
  }
  return out + `</tbody>
</table>
</main>
<footer>${escapeFast(d.footer1)} ${escapeFast(d.footer2)} ${escapeFast(d.copyright)} ${
    escapeFast(d.year)
  }</footer>
</body>
</html>
`;
}

// deno fmt would reformat the HTML inside html`…` (and so the output): keep it as written.
// deno-fmt-ignore
function honoPage(d: PageData): string {
  return String(html`<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>${d.title}</title>
<meta name="description" content="${d.description}"></head>
<body>
<header><a href="/">${d.siteName}</a> <nav>${d.nav1} | ${d.nav2} | ${d.nav3}</nav></header>
<main>
<h1>${d.title}</h1>
<p class="lead">${d.lead}</p>
<p>Author: ${d.author.name} (${d.author.email}), ${d.author.role}</p>
<p>Published ${d.published}, updated ${d.updated}, ${d.views} views, ${d.likes} likes.</p>
${d.featured ? html`<div class="featured">${d.featuredText}</div>` : ""}
<table>
<thead><tr><th>Name</th><th>Price</th><th>Note</th></tr></thead>
<tbody>
${d.items.map((item) => html`<tr><td>${item.name}</td><td>${item.price}</td><td>${item.note}</td></tr>
`)}</tbody>
</table>
</main>
<footer>${d.footer1} ${d.footer2} ${d.copyright} ${d.year}</footer>
</body>
</html>
`);
}

// 4. Compile everything once, outside the measured loops.
const module = compileTemplate(WEFT, { file: "bench_page.html" });
const weft: { render(data: PageData): string } = await import(
  `data:application/typescript;base64,${
    btoa(String.fromCharCode(...new TextEncoder().encode(module)))
  }`
);
const handlebars = Handlebars.compile(HANDLEBARS);
const eta = new Eta({ autoTrim: false });
const etaPage = eta.compile(ETA);
const renderEta = (d: PageData): string => etaPage.call(eta, d, {});
Mustache.parse(MUSTACHE);
const renderMustache = (d: PageData): string => Mustache.render(MUSTACHE, d);

// 5. Every engine renders the same page (entity spellings and blank lines aside).
const expected = handWritten(data);
assert.equal(weft.render(data), expected);
assert.equal(handTuned(data), expected);
const normalize = (s: string) =>
  s.replace(/&#x27;|&#39;/g, "'").replace(/&#x3D;/g, "=").replace(/&#x2F;/g, "/")
    .replace(/\n+/g, "\n");
for (
  const [name, render] of [
    ["handlebars", handlebars],
    ["eta", renderEta],
    ["mustache", renderMustache],
    ["hono", honoPage],
  ] as const
) {
  assert.equal(normalize(render(data)), normalize(expected), `${name} renders the same page`);
}

const group = "template: 20 values, #if, 100-row #each";
let sink = 0;
bench(group, "hand-written template literal (floor)", () => {
  sink += handWritten(data).length;
}, true);
bench(group, "weft compiled template", () => {
  sink += weft.render(data).length;
});
bench(group, "hand-tuned: loop, no number escaping (reference)", () => {
  sink += handTuned(data).length;
});
bench(group, "eta (compiled once)", () => {
  sink += renderEta(data).length;
});
bench(group, "hono/html", () => {
  sink += honoPage(data).length;
});
bench(group, "handlebars (compiled once)", () => {
  sink += handlebars(data).length;
});
bench(group, "mustache (parsed once)", () => {
  sink += renderMustache(data).length;
});
globalThis.addEventListener("unload", () => {
  if (sink === 0) console.log(sink);
});
