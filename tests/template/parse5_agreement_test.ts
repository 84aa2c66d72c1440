// The context tracker against parse5 (the WHATWG HTML parser, scripting enabled): random
// templates built from SVG, MathML, raw text, CDATA and URL pieces are compiled, and every one
// the compiler accepts is rendered with a marker value; parse5 must then find the marker only
// where HTML escaping is enough: not in script or CSS, not in an event-handler, style, srcdoc
// or SVG animation attribute, not at the start of a URL or after a script scheme.
import assert from "node:assert/strict";
import fc from "fast-check";
import { parse } from "parse5";
import { compileTemplate, TemplateSyntaxError } from "../../lib/template/mod.ts";

const MARKER = "\u2603";

/** The parts of parse5's tree the oracle reads. */
interface Parsed {
  nodeName: string;
  tagName?: string;
  value?: string;
  attrs?: { name: string; value: string }[];
  childNodes?: Parsed[];
  content?: Parsed;
}

const URL_ATTRS = new Set(["href", "src", "action", "formaction", "poster", "data", "srcset"]);
const ANIMATION = new Set(["animate", "animatemotion", "animatetransform", "set"]);

/** Where parse5 finds the marker in a place escaping does not protect; [] when nowhere. */
function unsafePlaces(html: string): string[] {
  const found: string[] = [];
  const walk = (node: Parsed, open: string[]): void => {
    if (node.nodeName === "#text" && node.value!.includes(MARKER)) {
      if (open.some((tag) => tag === "script" || tag === "style")) {
        found.push(`text in ${open.join(" ")}`);
      }
    }
    const tag = (node.tagName ?? "").toLowerCase();
    for (const { name, value } of node.attrs ?? []) {
      if (!value.includes(MARKER)) continue;
      if (/^on|^style$|^srcdoc$/i.test(name) || ANIMATION.has(tag)) found.push(`${tag} ${name}`);
      if (URL_ATTRS.has(name)) {
        // As the URL parser reads it: tabs and newlines dropped, leading controls and spaces too.
        const before = value.slice(0, value.indexOf(MARKER)).replace(/[\t\n\r]/g, "")
          .replace(/^[\0-\x20]+/, "");
        if (!/[:/?#]/.test(before)) found.push(`${tag} ${name} at the URL's start`);
        if (URL.parse(value, "https://weft.test/")?.protocol === "javascript:") {
          found.push(`${tag} ${name} in a javascript: URL`);
        }
      }
    }
    const inner = tag === "" ? open : [...open, tag];
    for (const child of node.childNodes ?? []) walk(child, inner);
    if (node.content !== undefined) walk(node.content, inner);
  };
  walk(parse(`<!doctype html><body>${html}`) as unknown as Parsed, []);
  return found;
}

/** The template rendered with the marker, or `null` when the compiler refuses it. */
async function renderMarked(source: string): Promise<string | null> {
  let code: string;
  try {
    code = compileTemplate(source, { file: "t.html" });
  } catch (error) {
    if (error instanceof TemplateSyntaxError) return null;
    throw error;
  }
  const bytes = new TextEncoder().encode(code);
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  const module = await import(`data:application/typescript;base64,${btoa(binary)}`);
  return module.render({ v: MARKER });
}

async function checkRandomTemplates(pieces: string[], runs: number): Promise<number> {
  let accepted = 0;
  await fc.assert(
    fc.asyncProperty(
      fc.array(fc.constantFrom(...pieces), { minLength: 1, maxLength: 12 }),
      async (parts) => {
        const html = await renderMarked(parts.join(""));
        if (html === null) return;
        accepted++;
        assert.deepEqual(unsafePlaces(html), [], html);
      },
    ),
    { numRuns: runs, seed: 20260601 },
  );
  return accepted;
}

Deno.test("the oracle finds the values that escaping does not protect", () => {
  const marked = (html: string) => html.replaceAll("{{v}}", MARKER);
  for (
    const html of [
      '<svg><title><img src="x" onerror="{{v}}"></title></svg>',
      '<svg><textarea><img src="x" onerror="{{v}}"></textarea></svg>',
      '<a href="&#106;avascript:{{v}}">a</a>',
      '<a href="javascript&#58;{{v}}">a</a>',
      "<svg><script>{{v}}</script></svg>",
      '<svg><a><animate attributeName="href" values="{{v}}"/></a></svg>',
    ]
  ) {
    assert.notDeepEqual(unsafePlaces(marked(html)), [], html);
  }
  for (
    const html of [
      '<title><img src="x" onerror="{{v}}"></title>',
      '<svg><title>{{v}}</title><a href="/{{v}}">x</a></svg>',
      '<a href="?a&amp;b={{v}}">a</a>',
    ]
  ) {
    assert.deepEqual(unsafePlaces(marked(html)), [], html);
  }
});

Deno.test("accepted templates with SVG and MathML put values where parse5 finds them safe", async () => {
  const accepted = await checkRandomTemplates([
    "<svg>",
    "</svg>",
    "<svg/>",
    "<math>",
    "</math>",
    "<title>",
    "</title>",
    "<textarea>",
    "</textarea>",
    "<style>",
    "</style>",
    "<script>",
    "</script>",
    "<xmp>",
    "<iframe>",
    "<foreignObject>",
    "</foreignObject>",
    "<desc>",
    "<mi>",
    "</mi>",
    "<mglyph>",
    "<annotation-xml>",
    "<p>",
    "</p>",
    "<div>",
    "</div>",
    "<b>",
    "</br>",
    "<g>",
    "</g>",
    "<path>",
    "<path/>",
    "<table>",
    "<font color=red>",
    "<![CDATA[",
    "]]>",
    "<!--",
    "-->",
    '<img src=x onerror="',
    '<a href="',
    '<a href="/',
    '<a title="',
    '<animate values="',
    '">',
    ">",
    "/>",
    "<",
    "x",
    "{{v}}",
    "{{v}}",
    "{{v}}",
  ], 2000);
  assert.ok(accepted > 300, `only ${accepted} templates compiled`);
});

Deno.test("accepted URL starts with character references are no javascript: URL to parse5", async () => {
  const pieces = [
    "java",
    "script",
    "javascript",
    "vbscript",
    "j",
    "a",
    ":",
    "/",
    "?",
    "#",
    ";",
    " ",
    "\t",
    "&",
    "&#",
    "&#x",
    "&#106;",
    "&#x6A;",
    "&#X6a",
    "&#0058",
    "&#58;",
    "&#x3a;",
    "&#9;",
    "&#x0A;",
    "&#0;",
    "&#x110000;",
    "&colon;",
    "&colon",
    "&Tab;",
    "&NewLine;",
    "&sol;",
    "&quest;",
    "&num;",
    "&amp;",
    "&amp",
    "&ampx",
    "&lt",
    "&ltri;",
    "&fjlig;",
    "&nbsp;",
    "=",
  ];
  let accepted = 0;
  await fc.assert(
    fc.asyncProperty(
      fc.array(fc.constantFrom(...pieces), { minLength: 1, maxLength: 6 }),
      async (parts) => {
        const html = await renderMarked(`<a href="${parts.join("")}{{v}}">a</a>`);
        if (html === null) return;
        accepted++;
        assert.deepEqual(unsafePlaces(html), [], html);
      },
    ),
    { numRuns: 1000, seed: 20260601 },
  );
  assert.ok(accepted > 300, `only ${accepted} URLs compiled`);
});
