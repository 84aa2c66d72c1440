// Compile errors: each case gives a template, the `file:line:column` the first error must point
// at, and the reason it must give. Then the unsafe HTML contexts, the safe ones that must compile,
// and the collection of several errors at once.
import assert from "node:assert/strict";
import { compileTemplate, TemplateSyntaxError } from "../../lib/template/mod.ts";

function compileError(
  source: string,
  partials: Record<string, string> = {},
): TemplateSyntaxError {
  try {
    compileTemplate(source, { file: "t.html", partials });
  } catch (error) {
    assert.ok(error instanceof TemplateSyntaxError, String(error));
    return error;
  }
  assert.fail(`expected a TemplateSyntaxError for ${JSON.stringify(source)}`);
}

type Case = [
  name: string,
  source: string,
  at: string,
  reason: RegExp,
  partials?: Record<string, string>,
];

const SYNTAX: Case[] = [
  ["an unclosed {{#if}}", "<p>\n  {{#if a}}x</p>", "t.html:2:3", /^Unclosed \{\{#if\}\}/],
  ["an unclosed {{#each}}", "{{#each xs as x}}<i></i>", "t.html:1:1", /^Unclosed \{\{#each\}\}/],
  [
    "a stray {{/if}}",
    "<p>a</p>{{/if}}",
    "t.html:1:9",
    /^Stray \{\{\/if\}\}: no \{\{#if\}\} block is open/,
  ],
  ["a stray {{/each}}", "x\n{{/each}}", "t.html:2:1", /^Stray \{\{\/each\}\}/],
  [
    "a mismatched close",
    "{{#each xs as x}}\n{{#if x}}{{/each}}{{/if}}",
    "t.html:2:10",
    /^Mismatched \{\{\/each\}\}: expected \{\{\/if\}\} to close the \{\{#if\}\} opened at 2:1/,
  ],
  ["an empty tag", "<p>{{}}</p>", "t.html:1:4", /^Empty tag/],
  ["a blank tag", "<p>{{   }}</p>", "t.html:1:4", /^Empty tag/],
  ["a double dot", "<p>{{user..name}}</p>", "t.html:1:6", /^Malformed path "user\.\.name"/],
  ["a trailing dot", "<p>{{ user. }}</p>", "t.html:1:7", /^Malformed path "user\."/],
  ["a leading digit", "<p>{{1st}}</p>", "t.html:1:6", /^Malformed path "1st"/],
  ["a dash", "<p>{{first-name}}</p>", "t.html:1:6", /^Malformed path "first-name"/],
  ["two paths", "<p>{{a b}}</p>", "t.html:1:8", /^Malformed tag \{\{a b\}\}/],
  ["__proto__", "<p>{{a.__proto__}}</p>", "t.html:1:6", /"__proto__" cannot be a data field/],
  // an absent field would read Object.prototype's: {{#if toString}} held for {}
  ["toString", "{{#if toString}}y{{/if}}", "t.html:1:7", /every object has "toString"/],
  [
    "constructor",
    "<p>{{car.constructor.name}}</p>",
    "t.html:1:6",
    /every object has "constructor"/,
  ],
  ["this", "<p>{{this}}</p>", "t.html:1:6", /^Unsupported path "this"/],
  ["an #if without path", "{{#if}}{{/if}}", "t.html:1:6", /^Missing path in \{\{#if\}\}/],
  ["an #if with two paths", "{{#if a b}}{{/if}}", "t.html:1:9", /^Unexpected "b" in \{\{#if\}\}/],
  ["an #each without as", "{{#each items}}{{/each}}", "t.html:1:14", /^Malformed \{\{#each\}\}/],
  ["a bad #each name", "{{#each items as 1}}{{/each}}", "t.html:1:18", /^Malformed name "1"/],
  ["an unknown block", "{{#unless a}}{{/unless}}", "t.html:1:1", /^Unknown block \{\{#unless\}\}/],
  ["an unclosed tag", "<p>{{name</p>", "t.html:1:4", /^Unclosed tag: expected "\}\}"/],
  ["an unclosed raw tag", "<p>{{{name}}</p>", "t.html:1:4", /^Unclosed tag: expected "\}\}\}"/],
  ["an unclosed comment", "<p>{{!-- x }}</p>", "t.html:1:4", /^Unclosed comment/],
  ["@index outside #each", "<p>{{@index}}</p>", "t.html:1:6", /^Unknown @index/],
  [
    "@index in #each's else",
    "{{#each a as b}}{{else}}{{@index}}{{/each}}",
    "t.html:1:27",
    /^Unknown @index/,
  ],
  [
    "an unknown @name",
    "{{#each a as b}}{{@key}}{{/each}}",
    "t.html:1:19",
    /^Unknown variable "@key"/,
  ],
  ["a stray {{else}}", "a{{else}}b", "t.html:1:2", /^Unexpected \{\{else\}\}/],
  [
    "a second {{else}}",
    "{{#if a}}{{else}}{{else}}{{/if}}",
    "t.html:1:18",
    /^Duplicate \{\{else\}\}/,
  ],
  ["an unknown partial", "<p>{{> nope}}</p>", "t.html:1:8", /^Unknown partial "nope"/],
  ["a malformed partial name", "{{> /etc/passwd}}", "t.html:1:5", /^Malformed partial name/],
  [
    "a partial cycle",
    "{{> a}}",
    "b.html:1:5",
    /^Partial cycle: a\.html → b\.html → a\.html$/,
    { a: "{{> b}}", b: "{{> a}}" },
  ],
  ["an error inside a partial", "<p>{{> a}}</p>", "a.html:2:3", /^Malformed path/, {
    a: "\n{{a..b}}",
  }],
  [
    "an error inside an indented partial",
    "<main>\n        {{> p}}\n</main>\n",
    "p.html:4:20",
    /^Unsupported "<!--" inside <script>/,
    { p: "<div>\n<p>one</p>\n<p>two</p>\n<script>var a = 1; <!-- x</script>\n</div>\n" },
  ],
  [
    "an error inside a partial indented twice",
    "<main>\n  {{> a}}\n</main>\n",
    "b.html:3:9",
    /^Unsupported "<!--" inside <script>/,
    { a: "<div>\n  {{> b}}\n</div>\n", b: "<p>\n1\n<script><!--</script>\n</p>\n" },
  ],
  [
    "a value used as an object",
    "{{user}}\n{{user.name}}",
    "t.html:2:3",
    /^Conflicting uses of "user": printed at 1:3, used as an object here/,
  ],
  [
    "a list printed",
    "{{#each xs as x}}{{/each}}{{xs}}",
    "t.html:1:29",
    /^Conflicting uses of "xs": iterated by \{\{#each\}\} at 1:9, printed here/,
  ],
  [
    "raw and URL uses of one value",
    '<a href="{{url u}}">{{{u}}}</a>',
    "t.html:1:24",
    /^Conflicting uses of "u": printed as a URL at 1:16, printed raw here/,
  ],
];

const UNSAFE: Case[] = [
  [
    "inside <script>",
    "<script>var x = {{x}};</script>",
    "t.html:1:17",
    /^Unsafe \{\{x\}\} inside <script>: HTML escaping does not make JavaScript safe/,
  ],
  [
    "inside <SCRIPT type=module>",
    '<SCRIPT type="module">\n  go("{{x}}")\n</SCRIPT>',
    "t.html:2:7",
    /inside <script>/,
  ],
  ["raw inside <script>", "<script>{{{x}}}</script>", "t.html:1:9", /inside <script>/],
  [
    "inside <style>",
    "<style>p { color: {{c}} }</style>",
    "t.html:1:19",
    /^Unsafe \{\{c\}\} inside <style>: HTML escaping does not make CSS safe/,
  ],
  [
    "inside <iframe>",
    "<iframe>{{c}}</iframe>",
    "t.html:1:9",
    /inside <iframe>: its content is raw text/,
  ],
  [
    "a raw value inside <noscript>",
    "<noscript>{{{c}}}</noscript>",
    "t.html:1:11",
    /inside <noscript>: where scripting runs its content is raw text/,
  ],
  [
    // with scripting, "</noscript>" in the title ends the element and the <img> is live
    "an event handler behind a </noscript> in an attribute",
    '<noscript><p title="</noscript><img src=x onerror={{c}}>"></p></noscript>',
    "t.html:1:51",
    /on\*|event handler|onerror/,
  ],
  [
    "in an unquoted value",
    "<div class={{c}}>",
    "t.html:1:12",
    /^Unsafe \{\{c\}\} in an unquoted attribute value: write class="\{\{…\}\}"/,
  ],
  [
    "in the middle of an unquoted value",
    "<div class=a{{c}}>",
    "t.html:1:13",
    /unquoted attribute value/,
  ],
  [
    "in an onclick value",
    '<button onclick="go({{id}})">',
    "t.html:1:21",
    /^Unsafe \{\{id\}\} in event-handler attribute "onclick"/,
  ],
  [
    "in an ONLOAD value",
    "<body ONLOAD='{{x}}'>",
    "t.html:1:15",
    /event-handler attribute "onload"/,
  ],
  [
    "at the start of href",
    '<a href="{{link}}">x</a>',
    "t.html:1:10",
    /^Unsafe \{\{link\}\} at the start of URL attribute "href"/,
  ],
  ["at the start of src", "<img src='{{s}}'>", "t.html:1:11", /start of URL attribute "src"/],
  [
    "at the start of action",
    '<form action="{{a}}"></form>',
    "t.html:1:15",
    /start of URL attribute "action"/,
  ],
  [
    "at the start of formaction",
    '<button formaction="{{a}}">',
    "t.html:1:21",
    /start of URL attribute "formaction"/,
  ],
  [
    "after spaces in href",
    '<a href="  {{link}}">x</a>',
    "t.html:1:12",
    /start of URL attribute "href"/,
  ],
  [
    "after a scheme prefix in href",
    '<a href="java{{rest}}">x</a>',
    "t.html:1:14",
    /start of URL attribute "href"/,
  ],
  [
    "after a SafeUrl in href",
    '<a href="{{url a}}{{b}}">x</a>',
    "t.html:1:19",
    /start of URL attribute "href"/,
  ],
  [
    "after an #if that may fix the scheme",
    '<a href="{{#if a}}/x{{/if}}{{b}}">',
    "t.html:1:28",
    /start of URL attribute "href"/,
  ],
  [
    "after a fixed javascript: scheme",
    `<a href="javascript:go('{{id}}')">x</a>`,
    "t.html:1:25",
    /^Unsafe \{\{id\}\} in a "javascript:" URL in attribute "href"/,
  ],
  [
    "after a fixed VBScript: scheme",
    '<a href=" VBScript:{{x}}">x</a>',
    "t.html:1:20",
    /"javascript:" URL/,
  ],
  [
    "after a scheme that a block may complete",
    '<a href="{{#if a}}java{{/if}}script:{{x}}">x</a>',
    "t.html:1:37",
    /"javascript:" URL/,
  ],
  [
    "after an #if that may make it a javascript: URL, once the scheme is fixed",
    '<a href="{{#if a}}javascript:{{/if}}void(0)//{{x}}">x</a>',
    "t.html:1:46",
    /^Unsafe \{\{x\}\} in a "javascript:" URL in attribute "href"/,
  ],
  [
    "after an #if that may make it a javascript: URL, in SVG",
    '<svg><a href="{{#if a}}javascript:{{/if}}go()/{{x}}">x</a></svg>',
    "t.html:1:47",
    /"javascript:" URL in attribute "href"/,
  ],
  [
    "in a data: URL of a script's source",
    '<script src="data:,{{x}}"></script><script src=" Data&colon;text/javascript,{{x}}"></script>',
    "t.html:1:20",
    /^Unsafe \{\{x\}\} in a "data:" or "javascript:" URL in attribute "src"/,
  ],
  [
    "in a data: URL of an SVG script's href",
    '<svg><script href="data:,{{x}}"></script></svg>',
    "t.html:1:26",
    /"data:" or "javascript:" URL in attribute "href"/,
  ],
  [
    "a SafeUrl at the start of a script's source",
    '<script src="{{url s}}"></script>',
    "t.html:1:14",
    /^Unsafe \{\{url s\}\} in attribute "src" of <script> before its text names the site: the/,
  ],
  [
    "a SafeUrl at the start of an SVG script's xlink:href",
    '<svg><script xlink:href="{{url s}}"></script></svg>',
    "t.html:1:26",
    /in attribute "xlink:href" of <script> before its text names the site/,
  ],
  [
    "a SafeUrl at the start of <base href>",
    '<base href="{{url s}}">',
    "t.html:1:13",
    /in attribute "href" of <base> before its text names the site/,
  ],
  // "/" + "/evil.example/x.js" (or "\\evil.example") is a URL of another site.
  [
    "a value after a script source's first slash",
    '<script src="/{{x}}"></script>',
    "t.html:1:15",
    /^Unsafe \{\{x\}\} in attribute "src" of <script> before its text names the site/,
  ],
  [
    "a value after two slashes of a script source",
    '<script src="//{{x}}/a.js"></script><script src="/&#47;{{x}}"></script>',
    "t.html:1:16",
    /in attribute "src" of <script> before its text names the site/,
  ],
  [
    "a value in the host of a script source",
    '<script src="https://{{x}}/a.js"></script>',
    "t.html:1:22",
    /in attribute "src" of <script> before its text names the site/,
  ],
  [
    "a value after the first slash of <base href>",
    '<base href="/{{x}}">',
    "t.html:1:14",
    /in attribute "href" of <base> before its text names the site/,
  ],
  [
    "after a SafeUrl and a colon",
    '<a href="{{url a}}:{{b}}">x</a>',
    "t.html:1:20",
    /"javascript:" URL/,
  ],
  [
    "in a style attribute",
    '<p style="color: {{c}}">',
    "t.html:1:18",
    /^Unsafe \{\{c\}\} in the style attribute/,
  ],
  [
    "in srcdoc",
    '<iframe srcdoc="{{c}}"></iframe>',
    "t.html:1:17",
    /in the srcdoc attribute: its value is parsed as HTML/,
  ],
  [
    "between attributes",
    "<div {{attrs}}>",
    "t.html:1:6",
    /^Cannot place \{\{attrs\}\} between the attributes of <div>/,
  ],
  ["in a tag name", "<{{tag}}>", "t.html:1:2", /^Cannot place \{\{tag\}\} in a tag name/],
  ["in an end tag name", "</{{tag}}>", "t.html:1:3", /in a tag name/],
  [
    "in an attribute name",
    '<div data-{{x}}="1">',
    "t.html:1:11",
    /^Cannot place \{\{x\}\} in attribute name "data-"/,
  ],
  [
    "in an HTML comment",
    "<!-- {{x}} -->",
    "t.html:1:6",
    /^Cannot place \{\{x\}\} inside an HTML comment/,
  ],
  ["in a doctype", "<!DOCTYPE {{x}}>", "t.html:1:11", /inside an HTML comment or <!…> declaration/],
  [
    "raw in an attribute",
    '<p title="{{{x}}}">',
    "t.html:1:11",
    /^Unsafe \{\{\{x\}\}\} in attribute "title": raw HTML is only allowed in element content/,
  ],
  [
    "raw in <textarea>",
    "<textarea>{{{x}}}</textarea>",
    "t.html:1:11",
    /inside <textarea>: raw HTML is not allowed there/,
  ],
  [
    "a block opened in a tag name",
    "<d{{#if a}}iv{{/if}}>",
    "t.html:1:3",
    /^Cannot place \{\{#if\}\} in a tag name/,
  ],
  [
    "a block in an unquoted value",
    "<p class={{#if a}}x{{/if}}>",
    "t.html:1:10",
    /unquoted attribute value/,
  ],
  [
    "branches ending in different contexts",
    '<a {{#if x}}title="{{/if}}">',
    "t.html:1:20",
    /^Mismatched HTML contexts: the branches of the \{\{#if\}\} at 1:4 end in the value of attribute "title" and in the <a> tag between attributes/,
  ],
  [
    "an #each body ending elsewhere",
    '{{#each xs as x}}<p class="{{/each}}">',
    "t.html:1:28",
    /^Mismatched HTML contexts: the body of the \{\{#each\}\} at 1:1 starts in element content but ends in the value of attribute "class"/,
  ],
  [
    "a name continued after a block",
    '<p {{#if a}}on{{/if}}click="x">',
    "t.html:1:22",
    /^Ambiguous attribute name after a block/,
  ],
  [
    "a block right after an attribute a block may end",
    "<p {{#if a}}x{{/if}}{{#if b}}y{{/if}}>",
    "t.html:1:21",
    /right after an attribute name that a block may end/,
  ],
  [
    "an unclosed <script>",
    "<p>x</p>\n<script>",
    "t.html:2:9",
    /^Unclosed <script>: the template ends inside its content/,
  ],
  [
    "the end inside a tag",
    '<div class="a',
    "t.html:1:14",
    /^Unfinished markup: the template ends inside the value of attribute "class"/,
  ],
  [
    "<!-- inside <script>",
    "<script><!--\nx\n--></script>",
    "t.html:1:9",
    /^Unsupported "<!--" inside <script>/,
  ],
  [
    "a partial's value inside <script>",
    "<script>{{> p}}</script>",
    "p.html:1:1",
    /inside <script>/,
    { p: "{{x}}" },
  ],
  ["a partial in a tag name", "<{{> p}}>", "t.html:1:2", /in a tag name/, { p: "div" }],
  // Inside SVG and MathML, <title>, <textarea> and <style> hold markup, not text (§13.2.6.5).
  [
    "an event handler in an SVG <title>",
    '<svg><title><img src="x" onerror="{{ x }}"></title></svg>',
    "t.html:1:35",
    /^Unsafe \{\{x\}\} in event-handler attribute "onerror"/,
  ],
  [
    "an event handler in an SVG <textarea>",
    '<svg><textarea><img src="x" onerror="{{ x }}"></textarea></svg>',
    "t.html:1:38",
    /event-handler attribute "onerror"/,
  ],
  [
    "a URL start in a MathML <title>",
    '<math><title><a href="{{ x }}">a</a></title></math>',
    "t.html:1:23",
    /start of URL attribute "href"/,
  ],
  [
    "an event handler after an SVG <style>",
    "<svg><style><img src=x onerror='{{x}}'></style></svg>",
    "t.html:1:33",
    /event-handler attribute "onerror"/,
  ],
  [
    "inside an SVG <script>",
    "<svg><script>go({{x}})</script></svg>",
    "t.html:1:17",
    /^Unsafe \{\{x\}\} inside <svg> <script>: HTML escaping does not make JavaScript safe/,
  ],
  [
    "inside an SVG <style>",
    "<svg><style>a { fill: {{c}} }</style></svg>",
    "t.html:1:23",
    /inside <svg> <style>: HTML escaping does not make CSS safe/,
  ],
  [
    "a tag that a CDATA section hides",
    "<svg><![CDATA[ > <p title=\"]]><img src=x onerror='{{x}}'></svg>",
    "t.html:1:51",
    /event-handler attribute "onerror"/,
  ],
  ["in a CDATA section", "<svg><![CDATA[{{x}}]]></svg>", "t.html:1:15", /inside a CDATA section/],
  [
    "raw HTML inside <svg>",
    "<svg><g>{{{icon}}}</g></svg>",
    "t.html:1:9",
    /^Unsafe \{\{\{icon\}\}\} inside <svg>: raw HTML is only allowed outside SVG and MathML/,
  ],
  [
    "an SVG animation value",
    '<svg><a><animate attributeName="href" values="{{ x }}"/><text>x</text></a></svg>',
    "t.html:1:47",
    /^Unsafe \{\{x\}\} in attribute "values" of <animate>: SVG animation can set an href/,
  ],
  [
    "an unclosed <svg>",
    "<svg><g>\n",
    "t.html:2:1",
    /^Unclosed <svg>: the template ends inside <svg><g>/,
  ],
  [
    "an end tag that may close an <svg>",
    "<div><svg><g></div>",
    "t.html:1:14",
    /^Cannot follow <\/div> inside <svg><g>/,
  ],
  [
    "a </foreignObject> that an open <p> makes HTML ignore",
    "<svg><foreignObject><p>x</foreignObject><title>{{t}}</title></svg>",
    "t.html:1:25",
    /^Cannot follow <\/foreignobject> inside <svg><foreignobject><p>/,
  ],
  [
    "markup inside <annotation-xml>",
    '<math><annotation-xml encoding="text/html"><textarea>{{x}}</textarea></annotation-xml></math>',
    "t.html:1:44",
    /^Cannot tell whether <textarea> inside <annotation-xml> is HTML or MathML/,
  ],
  [
    "a <font> inside <svg>",
    "<svg><font color=red></font></svg>",
    "t.html:1:6",
    /^Unsupported <font> inside <svg>/,
  ],
  // The URL is read after character references are decoded.
  [
    "a decimal reference in the scheme",
    '<a href="&#106;avascript:{{ x }}">a</a>',
    "t.html:1:26",
    /"javascript:" URL in attribute "href"/,
  ],
  [
    "a hexadecimal reference in the scheme",
    '<a href="&#x6A;avascript&#X3a;{{ x }}">a</a>',
    "t.html:1:31",
    /"javascript:" URL/,
  ],
  [
    "a numeric reference for the colon",
    '<a href="javascript&#58;{{ x }}">a</a>',
    "t.html:1:25",
    /"javascript:" URL/,
  ],
  [
    "a numeric reference without its semicolon",
    '<a href="javascript&#0058 {{ x }}">a</a>',
    "t.html:1:27",
    /"javascript:" URL/,
  ],
  [
    "a tab reference in the scheme",
    '<a href="java&#x09;script:{{ x }}">a</a><a href="java&Tab;script:{{ x }}">b</a>',
    "t.html:1:27",
    /"javascript:" URL/,
  ],
  [
    "a named reference for the colon",
    '<a href="vbscript&colon;{{ x }}">a</a>',
    "t.html:1:25",
    /"javascript:" URL/,
  ],
  [
    "a reference that a value may complete",
    '<a href="javascript&#58{{ x }}">a</a>',
    "t.html:1:24",
    /start of URL attribute "href"/,
  ],
];

for (const [name, source, at, reason, partials] of [...SYNTAX, ...UNSAFE]) {
  Deno.test(`compileTemplate() reports ${name} at ${at}`, () => {
    const error = compileError(source, partials);
    assert.equal(`${error.file}:${error.line}:${error.column}`, at, error.message);
    assert.match(error.reason, reason, error.message);
    assert.ok(!error.reason.includes("\n"), "the reason is one line");
    assert.ok(error.message.startsWith(`${at}: ${error.reason}\n`));
  });
}

const SAFE: [name: string, source: string][] = [
  ["a fixed path before a value in href", '<a href="/users/{{id}}">x</a>'],
  [
    "a fixed scheme before a value",
    '<a href="https://x.dev/?q={{q}}">x</a><a href="mailto:{{e}}">m</a>',
  ],
  ["a fragment", '<a href="#{{id}}">x</a>'],
  ["a fixed data:image prefix", '<img src="data:image/png;base64,{{png}}">'],
  ["a SafeUrl at the start", '<a href="{{url link}}">x</a><img src="{{url s}}">'],
  [
    "values in a script's source after its site",
    '<script src="/js/{{v}}.js"></script><script src="app.js?v={{v}}"></script>' +
    '<script src="https://cdn.example/{{v}}"></script><script src="//cdn.example/{{v}}"></script>' +
    '<script src="{{#if a}}/a{{else}}/b{{/if}}/{{v}}"></script><base href="/app/{{v}}/">',
  ],
  ["a SafeUrl at the start of a <link>", '<link rel="canonical" href="{{url c}}">'],
  ["a SafeUrl, then a fixed separator", '<a href="{{url base}}/{{path}}">x</a>'],
  [
    "an #if whose branches both fix the scheme",
    '<a href="{{#if a}}/x{{else}}/y{{/if}}{{b}}">x</a>',
  ],
  ["RCDATA elements", "<title>{{t}}</title><textarea>{{t}}</textarea>"],
  ["text after a script", '<script src="/a.js"></script><p>{{x}}</p>'],
  ["static blocks inside a script", "<script>{{#if a}}var a = 1;{{/if}}</script>"],
  ["values in ordinary attributes", '<input value="{{v}}" title=\'{{t}}\' data-x="{{x}}">'],
  ["a conditional boolean attribute", "<p {{#if a}}hidden{{/if}}>x</p>"],
  ["a conditional attribute with a value", '<p {{#if a}}class="on" {{/if}}id="x">x</p>'],
  ["a conditional class", '<p class="{{#if a}}on{{else}}off{{/if}} x">x</p>'],
  ["attribute lists from #each", '<p {{#each xs as x}} data-a="{{x}}"{{/each}}>x</p>'],
  ["a comment before a value", "<!-- note -->{{x}}<!---->{{y}}<!-->{{z}}"],
  ["a doctype", "<!doctype html>{{x}}"],
  ["a noscript", "<noscript>{{x}}</noscript>"],
  ["a closing script in an attribute", '<p title="</script>{{x}}">'],
  ["a raw value in content", "<div>{{{body}}}</div>"],
  ["a literal brace pair", "<script>var o = {a: 1}; var t = `\\{{x}}`;</script>"],
  [
    "values in SVG and MathML",
    '<svg viewBox="0 0 8 8"><title>{{t}}</title><text x="1">{{t}}</text><circle r="{{r}}"/>' +
    '<a href="/p/{{id}}"><path d="{{d}}"></path></a></svg><math><mi>{{v}}</mi></math>',
  ],
  [
    "HTML raw text and RCDATA after SVG and MathML",
    '<svg><path d="M0 0"></svg><math><mi>x</math><svg/><title>{{t}}</title>' +
    "<textarea>{{t}}</textarea>",
  ],
  [
    "HTML inside <foreignObject>, <desc> and <mi>",
    "<svg><foreignObject><div><textarea>{{t}}</textarea></div></foreignObject>" +
    "<desc><title>{{t}}</title></desc></svg><math><mi><textarea>{{t}}</textarea></mi></math>",
  ],
  ["an HTML tag that ends SVG", "<svg><g><p>{{x}}</p><textarea>{{x}}</textarea>"],
  [
    "blocks and escaped values around SVG",
    "{{#if a}}<svg>{{#each xs as x}}<g/>{{/each}}</svg>{{/if}}",
  ],
  ["an SVG CDATA section", "<svg><style><![CDATA[ a > b { } ]]></style><text>{{x}}</text></svg>"],
  ["an escaped ampersand in a query", '<a href="?a=1&amp;b={{b}}&c">x</a>'],
  ["a reference after the scheme is fixed", '<a href="/&#58;{{x}}">x</a>'],
  ["a fixed scheme written with a reference", '<a href="https&#58;//x.dev/{{p}}">x</a>'],
  ["a reference for a slash", '<a href="&sol;{{p}}">x</a>'],
  ["a non-ASCII reference in a would-be scheme", '<a href="java&nbsp;script:{{p}}">x</a>'],
];

for (const [name, source] of SAFE) {
  Deno.test(`compileTemplate() accepts ${name}`, () => {
    compileTemplate(source, { file: "t.html" });
  });
}

Deno.test("compileTemplate() reports every error of a template in source order", () => {
  const error = compileError(
    '<p>{{a..b}}</p>\n<script>{{x}}</script>\n{{/if}}\n{{> nope}}\n<a href="{{u}}">',
  );
  const found = error.errors.map((e) => `${e.line}:${e.column} ${e.reason.split(":")[0]}`);
  assert.deepEqual(found, [
    '1:6 Malformed path "a..b" in {{a..b}}',
    "2:9 Unsafe {{x}} inside <script>",
    "3:1 Stray {{/if}}",
    '4:5 Unknown partial "nope"',
    '5:10 Unsafe {{u}} at the start of URL attribute "href"',
  ]);
  assert.equal(error, error.errors[0]);
});

Deno.test("TemplateSyntaxError's message has file:line:col, the reason and a caret excerpt", () => {
  const error = compileError("<ul>\n\t<li>{{#each}}</li>\n</ul>");
  assert.equal(
    error.message,
    "t.html:2:13: Missing list in {{#each}}: write {{#each items as item}}\n" +
      "2 | \t<li>{{#each}}</li>\n" +
      "  | \t           ^",
  );
  assert.equal(error.name, "TemplateSyntaxError");
  assert.equal(error.excerpt.split("\n").length, 2);
});

Deno.test("compileTemplate() refuses blocks nested thousands deep, at the first one too deep", () => {
  // The compiler recursed into each block: 2,000 deep, it threw a RangeError.
  const ifs = compileError("{{#if a}}".repeat(5000) + "x" + "{{/if}}".repeat(5000));
  assert.equal(`${ifs.line}:${ifs.column}`, `1:${500 * 9 + 1}`);
  assert.equal(ifs.reason, "Too deeply nested: blocks may nest 500 deep");
  assert.equal(ifs.errors.length, 1);
  const names = Array.from({ length: 3000 }, (_, i) => `x${i}`);
  const eaches = compileError(
    "{{#each xs as x}}" + names.map((name, i) => `{{#each ${i ? names[i - 1] : "x"} as ${name}}}`)
      .join("") +
      "{{/each}}".repeat(3001),
  );
  assert.equal(eaches.reason, "Too deeply nested: blocks may nest 500 deep");
  const path = compileError(`<p>{{ ${names.join(".")} }}</p>`);
  assert.equal(`${path.line}:${path.column}`, "1:7");
  assert.equal(path.reason, "Malformed path: more than 500 names joined by dots");
  compileTemplate("{{#if a}}".repeat(500) + "x" + "{{/if}}".repeat(500), { file: "t.html" });
});

Deno.test("TemplateSyntaxError's excerpt of a long line is the part around the column", () => {
  // The excerpt held the whole line: for a minified template of a megabyte, each of its errors
  // carried the megabyte, and a compile with thousands of errors ran out of memory.
  const error = compileError("x".repeat(100_000) + "{{a..b}}" + "y".repeat(100_000));
  assert.equal(error.column, 100_003);
  const [line, caret] = error.excerpt.split("\n");
  assert.equal(line, `1 | …${"x".repeat(78)}{{a..b}}${"y".repeat(74)}…`);
  assert.equal(caret, `  | ${" ".repeat(81)}^`);
  assert.equal(line.indexOf("a..b"), caret.indexOf("^"));
  const many = compileError("{{a..b}}".repeat(20_000));
  assert.equal(many.errors.length, 20_000);
  assert.ok(many.errors.every((each) => each.excerpt.length < 400));
});
