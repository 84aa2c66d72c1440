// compileTemplate(): inferred types, runtime behaviour of generated code, and static text that
// must survive code generation byte for byte.
import assert from "node:assert/strict";
import { compileTemplate, INVALID_URL, safeUrl, unsafeHtml } from "../../lib/template/mod.ts";
import { runChild } from "../_child.ts";

// deno-lint-ignore no-explicit-any
type Render = (data: any) => string;

async function load(source: string, partials: Record<string, string> = {}): Promise<Render> {
  const code = compileTemplate(source, { file: "t.html", partials });
  const bytes = new TextEncoder().encode(code);
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return (await import(`data:application/typescript;base64,${btoa(binary)}`)).render;
}

function dataType(source: string, partials: Record<string, string> = {}): string {
  const code = compileTemplate(source, { file: "t.html", partials });
  return /^export type Data = (Record<string, never>|\{\n[\s\S]*?\n\});$/m.exec(code)![1];
}

Deno.test("Data: nested paths become nested object types", () => {
  assert.equal(
    dataType("{{user.name}} {{user.address.city}} {{count}}"),
    "{\n  user: {\n    name: Printable;\n    address: {\n      city: Printable;\n    };\n  };\n  count: Printable;\n}",
  );
});

Deno.test("Data: #each gives readonly arrays built from the item's uses", () => {
  assert.equal(
    dataType("{{#each items as item}}{{item.a}}{{item.b.c}}{{/each}}"),
    "{\n  items: readonly {\n    a: Printable;\n    b: {\n      c: Printable;\n    };\n  }[];\n}",
  );
  assert.equal(
    dataType("{{#each tags as t}}{{t}}{{/each}}"),
    "{\n  tags: readonly Printable[];\n}",
  );
  assert.equal(dataType("{{#each rows as r}}x{{/each}}"), "{\n  rows: readonly unknown[];\n}");
});

Deno.test("Data: a path only tested by #if is optional unknown", () => {
  assert.equal(dataType("{{#if flag}}x{{/if}}"), "{\n  flag?: unknown;\n}");
  assert.equal(
    dataType("{{#if user.admin}}x{{/if}}"),
    "{\n  user: {\n    admin?: unknown;\n  };\n}",
  );
});

Deno.test("Data: uses guarded by an #if of their path make it optional, others required", () => {
  assert.equal(dataType("{{#if note}}{{note}}{{/if}}"), "{\n  note?: Printable | null;\n}");
  assert.equal(dataType("{{#if note}}x{{/if}}{{note}}"), "{\n  note: Printable;\n}");
  assert.equal(dataType("{{#if note}}x{{else}}{{note}}{{/if}}"), "{\n  note: Printable;\n}");
  assert.equal(
    dataType("{{#if user}}{{user.name}}{{/if}}"),
    "{\n  user?: {\n    name: Printable;\n  } | null;\n}",
  );
  assert.equal(
    dataType("{{#each xs as x}}{{#if x}}{{x}}{{/if}}{{/each}}"),
    "{\n  xs: readonly (Printable | null)[];\n}",
  );
});

Deno.test("Data: block names shadow outer names, and only inside their block", () => {
  assert.equal(
    dataType("{{#each items as title}}{{title.text}}{{/each}}{{title}}"),
    "{\n  items: readonly {\n    text: Printable;\n  }[];\n  title: Printable;\n}",
  );
  assert.equal(
    dataType("{{#each a as x}}{{#each x.b as x}}{{x.c}}{{/each}}{{x.d}}{{/each}}"),
    "{\n  a: readonly {\n    b: readonly {\n      c: Printable;\n    }[];\n    d: Printable;\n  }[];\n}",
  );
});

Deno.test("Data: raw output takes SafeHtml, {{url}} takes SafeUrl, partials merge in", () => {
  assert.equal(dataType("<div>{{{body}}}</div>"), "{\n  body: SafeHtml;\n}");
  assert.equal(dataType('<a href="{{url to}}">x</a>'), "{\n  to: SafeUrl;\n}");
  assert.equal(
    dataType("<h1>{{title}}</h1>{{> footer}}", { footer: "<p>{{year}}</p>" }),
    "{\n  title: Printable;\n  year: Printable;\n}",
  );
  assert.equal(dataType("<p>static</p>"), "Record<string, never>");
});

Deno.test("render() prints numbers, bigints and booleans as is and escapes strings", async () => {
  const render = await load("<p>{{a}}|{{b}}|{{c}}|{{d}}|{{e}}</p>");
  assert.equal(
    render({ a: 1.5, b: 10n, c: false, d: `<&>"'`, e: "plain" }),
    "<p>1.5|10|false|&lt;&amp;&gt;&quot;&#39;|plain</p>",
  );
});

Deno.test("render() escapes the text of objects passed around the types", async () => {
  const render = await load("<p>{{a}}</p>");
  assert.equal(render({ a: { toString: () => "<script>" } }), "<p>&lt;script&gt;</p>");
});

Deno.test("#if follows Handlebars truthiness: empty lists, 0 and '' are false", async () => {
  const render = await load("{{#if v}}yes{{else}}no{{/if}}");
  const cases: [unknown, string][] = [
    [[], "no"],
    [[0], "yes"],
    [0, "no"],
    ["", "no"],
    [null, "no"],
    [undefined, "no"],
    [false, "no"],
    [0n, "no"],
    ["0", "yes"],
    [{}, "yes"],
  ];
  for (const [v, expected] of cases) assert.equal(render({ v }), expected, String(v));
});

Deno.test("@index counts from 0 in the innermost #each", async () => {
  const render = await load(
    "{{#each rows as row}}[{{@index}}:{{#each row.cells as cell}}{{#if @index}},{{/if}}{{cell}}{{@index}}{{/each}}]{{/each}}",
  );
  assert.equal(render({ rows: [{ cells: ["a", "b"] }, { cells: [] }] }), "[0:a0,b1][1:]");
});

Deno.test("@index counters get names no other local has, and the module type-checks", async () => {
  // `{{#if a.itemIndex}}` narrows into a local named itemIndex, the name the counter wanted.
  const source = "{{#if a.itemIndex}}y{{/if}}{{#each items as item}}{{@index}}{{item}}{{/each}}" +
    "{{#each more as item}}{{#if @index}},{{/if}}{{item}}{{/each}}{{#if a.item2Index}}z{{/if}}";
  const code = compileTemplate(source, { file: "t.html" });
  const dir = await Deno.makeTempDir();
  try {
    await Deno.writeTextFile(`${dir}/t.ts`, code);
    const { code: exit, stderr } = await runChild(Deno.execPath(), {
      what: "deno check on the generated module",
      args: ["check", "--no-config", `${dir}/t.ts`],
      stdout: "null",
    });
    assert.equal(exit, 0, new TextDecoder().decode(stderr));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
  const render = await load(source);
  assert.equal(
    render({ a: { itemIndex: 1, item2Index: 1 }, items: ["p", "q"], more: ["r", "s"] }),
    "y0p1qr,sz",
  );
});

Deno.test("#each's {{else}} renders for an empty list only", async () => {
  const render = await load(
    "<ul>{{#each xs as x}}<li>{{x}}</li>{{else}}<li>none</li>{{/each}}</ul>",
  );
  assert.equal(render({ xs: [] }), "<ul><li>none</li></ul>");
  assert.equal(render({ xs: [1, 2] }), "<ul><li>1</li><li>2</li></ul>");
});

Deno.test("standalone block lines vanish with their newline, CRLF included", async () => {
  const render = await load(
    "<ul>\r\n  {{#each xs as x}}\r\n  <li>{{x}}</li>\r\n  {{/each}}\r\n</ul>\r\n  {{! note }}\r\nend",
  );
  assert.equal(render({ xs: ["a"] }), "<ul>\r\n  <li>a</li>\r\n</ul>\r\nend");
});

Deno.test("standalone partials are indented line by line, nested ones too", async () => {
  const render = await load("<div>\n  {{> a}}\n</div>\n", {
    a: "<p>\n  {{> b}}\n</p>\n",
    b: "<i>{{x}}</i>\n<i>2</i>\n",
  });
  assert.equal(render({ x: 1 }), "<div>\n  <p>\n    <i>1</i>\n    <i>2</i>\n  </p>\n</div>\n");
});

Deno.test("static text survives code generation byte for byte", async () => {
  const tricky = [
    "back`tick ${not} \\ backslash \\n",
    "\u2028 line sep \u2029 para sep \u0000 nul \t tab \r cr \x7f del",
    "emoji 😀 and lone \ud800 surrogate \udfff",
    "quotes \" and ' and '' \"",
    "a".repeat(300),
    "x".repeat(90) + "\n" + "y".repeat(120) + "\n",
  ];
  for (const text of tricky) {
    const render = await load(`${text}{{v}}${text}`);
    assert.equal(render({ v: "!" }), `${text}!${text}`, JSON.stringify(text));
  }
});

Deno.test("long static text is printed in deno fmt's form", async () => {
  const code = compileTemplate(
    `<p class="${"c".repeat(200)}">{{v}}</p>\n<div>${"d".repeat(70)}</div>\n${"e".repeat(100)}`,
    { file: "t.html" },
  );
  const dir = await Deno.makeTempDir();
  try {
    await Deno.writeTextFile(`${dir}/t.ts`, code);
    for (const width of ["80", "100"]) {
      const { code: exit } = await runChild(Deno.execPath(), {
        what: `deno fmt --check at width ${width}`,
        args: ["fmt", "--check", "--no-config", "--line-width", width, `${dir}/t.ts`],
        stdout: "null",
        stderr: "null",
      });
      assert.equal(exit, 0, `width ${width}`);
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a partial's output can feed another template's raw slot", async () => {
  const inner = await load("<b>{{x}}</b>");
  const outer = await load("<div>{{{body}}}</div>");
  assert.equal(outer({ body: inner({ x: "<" }) }), "<div><b>&lt;</b></div>");
  assert.equal(outer({ body: unsafeHtml("<hr>") }), "<div><hr></div>");
});

Deno.test("safeUrl() keeps http(s), mailto, tel and relative URLs, refuses other schemes", () => {
  for (
    const url of [
      "https://a.b/c?d#e",
      "http://x",
      "mailto:a@b.c",
      "tel:+1",
      "/p",
      "p",
      "?q",
      "#f",
      "//cdn/x",
      "",
    ]
  ) {
    assert.equal(safeUrl(url), url);
  }
  for (
    const url of [
      "javascript:alert(1)",
      "JaVaScRiPt:x",
      " \x01javascript:x",
      "java\tscript:x",
      "java\nscript:x",
      "data:text/html,x",
      "vbscript:x",
      "\x00javascript:x",
    ]
  ) {
    assert.equal(safeUrl(url), INVALID_URL, JSON.stringify(url));
  }
});

Deno.test("a byte order mark an editor saved, in a template or a partial, is not rendered", async () => {
  const bom = "\uFEFF";
  const render = await load(`${bom}<head>{{> meta}}<title>{{title}}</title></head>`, {
    meta: `${bom}<meta charset="utf-8">`,
  });
  assert.equal(render({ title: "T" }), '<head><meta charset="utf-8"><title>T</title></head>');
  // and positions are counted as an editor shows them, without it
  assert.throws(
    () => compileTemplate(`${bom}{{#if x}}`, { file: "t.html" }),
    (error: Error) => /t\.html:1:1/.test(error.message),
  );
});

Deno.test("SVG nested 20,000 deep compiles, and what it checks it checks at any depth", async () => {
  // The tracker rebuilt a string of every open element at each tag: 20,000 nested <g> took 44 s.
  const depth = 20_000;
  const deep = (inner: string) =>
    `<svg>${"<g>{{a}}".repeat(depth)}${inner}${"</g>".repeat(depth)}</svg>`;
  const render = await load(deep("<text>{{b}}</text>"));
  const html = render({ a: "&", b: "<" });
  assert.equal(html.match(/<g>&amp;/g)?.length, depth);
  assert.ok(html.includes("<text>&lt;</text></g>"));
  // the elements around the value are still known, the outermost and the innermost
  assert.throws(
    () => compileTemplate(deep("<script>go({{b}})</script>"), { file: "t.html" }),
    /t\.html:1:\d+: Unsafe \{\{b\}\} inside <svg> <script>/,
  );
  assert.throws(
    () => compileTemplate(`<svg>${"<g>".repeat(depth)}`, { file: "t.html" }),
    // a message names the outermost and the innermost elements, not all of them
    /: Unclosed <svg>: the template ends inside <svg>…\(19,995 more\)…<g><g><g><g><g>\n/,
  );
});

Deno.test("a template of a few megabytes compiles, values, partials, long lines and all", async () => {
  // 150,000 values: the render body's lines were spread into one push() call, which overflowed
  // the call stack (a RangeError, not a compile); a partial's nodes likewise.
  const row = '<p title="{{a}}">{{b}}</p>\n';
  assert.match(compileTemplate(row.repeat(150_000), { file: "t.html" }), /escapeHtml\(data\.b\)/);
  const code = compileTemplate("{{> rows}}", {
    file: "t.html",
    partials: { rows: row.repeat(150_000) },
  });
  assert.match(code, /escapeHtml\(data\.a\)/);
  // A line of a megabyte is cut into pieces, each looked at once.
  const line = "x".repeat(1_000_000);
  const render = await load(`<p>${line}{{a}}</p>`);
  assert.equal(render({ a: "<" }), `<p>${line}&lt;</p>`);
});
