// The XSS corpus (tests/fixtures/xss/*.txt, one payload a line): every payload rendered into
// a text node, a double-quoted and a single-quoted attribute value (and RCDATA) must parse back,
// with parse5 (the WHATWG HTML parser), as exactly one text node or attribute value equal to the
// payload, with no extra element or attribute.
import assert from "node:assert/strict";
import { parseFragment } from "parse5";
import { compileTemplate } from "../../lib/template/mod.ts";
import { readPayloads } from "./_xss_payloads.ts";

async function load(source: string): Promise<(data: { v: string }) => string> {
  const code = compileTemplate(source, { file: "xss.html" });
  const bytes = new TextEncoder().encode(code);
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return (await import(`data:application/typescript;base64,${btoa(binary)}`)).render;
}

/** The parts of parse5's tree the assertions read. */
interface Parsed {
  nodeName: string;
  value?: string;
  attrs: { name: string; value: string }[];
  childNodes: Parsed[];
}

function onlyElement(html: string, tag: string): Parsed {
  const fragment = parseFragment(html) as unknown as Parsed;
  assert.equal(fragment.childNodes.length, 1, `one node in ${html}`);
  const [node] = fragment.childNodes;
  assert.equal(node.nodeName, tag, html);
  return node;
}

const payloads = readPayloads();

Deno.test("the XSS corpus is there and not empty", () => {
  assert.ok(payloads.length >= 80, `found ${payloads.length} payloads`);
});

Deno.test("every XSS payload stays one text node of <p>", async () => {
  const render = await load("<p>{{v}}</p>");
  for (const { origin, payload } of payloads) {
    const html = render({ v: payload });
    const p = onlyElement(html, "p");
    assert.deepEqual(p.attrs, [], origin);
    const children = p.childNodes;
    assert.equal(children.length, 1, `${origin}: ${html}`);
    assert.equal(children[0].nodeName, "#text", origin);
    assert.equal(children[0].value, payload, origin);
  }
});

for (
  const [quote, template] of [["double", '<p title="{{v}}"></p>'], [
    "single",
    "<p title='{{v}}'></p>",
  ]]
) {
  Deno.test(`every XSS payload stays one ${quote}-quoted attribute value`, async () => {
    const render = await load(template);
    for (const { origin, payload } of payloads) {
      const html = render({ v: payload });
      const p = onlyElement(html, "p");
      assert.deepEqual(p.attrs, [{ name: "title", value: payload }], `${origin}: ${html}`);
      assert.equal(p.childNodes.length, 0, origin);
    }
  });
}

Deno.test("every XSS payload stays the text of <textarea> and <title> (RCDATA)", async () => {
  for (const tag of ["textarea", "title"]) {
    const render = await load(`<${tag}>{{v}}</${tag}>`);
    for (const { origin, payload } of payloads) {
      const html = render({ v: payload });
      const element = onlyElement(html, tag);
      assert.equal(element.childNodes.length, 1, `${origin}: ${html}`);
      assert.equal(element.childNodes[0].value, payload, origin);
    }
  }
});

Deno.test("all payloads in one page give exactly the elements of the template", async () => {
  const render = await load(
    "<div>{{#each items as item}}<p title=\"{{item}}\" lang='{{item}}'>{{item}}</p>{{/each}}</div>",
  ) as unknown as (data: { items: string[] }) => string;
  const html = render({ items: payloads.map((p) => p.payload) });
  const div = onlyElement(html, "div");
  assert.equal(div.childNodes.length, payloads.length);
  div.childNodes.forEach((p, i) => {
    assert.equal(p.nodeName, "p");
    assert.deepEqual(p.attrs.map((a) => a.name), ["title", "lang"]);
    assert.equal(p.attrs[0].value, payloads[i].payload);
  });
});
