/**
 * The HTML context tracker: follows the static text of a template through the states of the
 * HTML tokenizer (WHATWG HTML §13.2.5, simplified to what escaping safety needs) so that the
 * compiler knows, at every `{{…}}`, whether HTML escaping is enough there. Inside inline SVG and
 * MathML it also follows the open elements, as much of tree construction (§13.2.6) as decides
 * how later text is tokenized, and reports markup whose reading it cannot be sure of.
 *
 * Contexts are immutable values. Blocks fork them and join them at `{{else}}`/`{{/if}}`; a join
 * of contexts that differ in a way that matters is an error, as in Go's `html/template`.
 *
 * @module
 */

/** A tokenizer state, with the transitional ones (`tagOpen` …) that no `{{…}}` may follow. */
export type HtmlState =
  | "text"
  | "rcdata"
  | "rawtext"
  | "tagOpen"
  | "endTagOpen"
  | "markupDeclaration"
  | "comment"
  | "bogusComment"
  | "cdata"
  | "tagName"
  | "beforeAttrName"
  | "attrName"
  | "afterAttrName"
  | "beforeAttrValue"
  | "attrValue"
  | "tagJoin";

/** Where in the HTML document the template output currently is. */
export interface HtmlContext {
  readonly state: HtmlState;
  /** The element whose tag is open, or whose raw text / RCDATA content this is. */
  readonly tag: string;
  /** Whether the open tag is an end tag. */
  readonly endTag: boolean;
  /** The attribute being named or valued. */
  readonly attr: string;
  /** `"`, `'` or `""` (unquoted) while in an attribute value. */
  readonly quote: string;
  /** In a URL attribute: no `:`, `/`, `?` or `#` has fixed the scheme yet. */
  readonly urlStart: boolean;
  /** In a URL attribute whose fixed text starts `javascript:` or `vbscript:` (or may). */
  readonly scriptUrl: boolean;
  /** The URL's text so far while `urlStart` (`"\0"` when branches disagree on it). */
  readonly urlPrefix: string;
  /** Characters seen in a transitional state (after `<!`, or of a comment's end). */
  readonly buf: string;
  /** In a tag, right after a `/` outside a value: a `>` now makes the tag self-closing. */
  readonly slash: boolean;
  /**
   * The innermost element open since the outermost `<svg>` or `<math>`, the others reached
   * through its `parent`; `null` in HTML, where elements are not followed.
   */
  readonly foreign: OpenElement | null;
}

/**
 * An element open inside SVG or MathML. The stack is shared, never copied: opening or closing
 * an element costs the same at any depth (a string of the whole stack, rebuilt at every tag,
 * made 20,000 nested `<g>` take 44 s to compile).
 */
export interface OpenElement {
  /**
   * `svg:name` and `math:name` for SVG and MathML elements, `html:name` for HTML elements
   * opened inside them (in `<foreignObject>` …).
   */
  readonly entry: string;
  /** The element around it, `null` for the outermost `<svg>` or `<math>`. */
  readonly parent: OpenElement | null;
  /** The outermost element, for messages. */
  readonly root: string;
  /** How many elements are open, this one included. */
  readonly depth: number;
  /** `script` or `style` when it or an element around it is an SVG or MathML one of those. */
  readonly raw: "" | "script" | "style";
}

function openInside(parent: OpenElement | null, entry: string): OpenElement {
  const own = entry === "svg:script" || entry === "math:script"
    ? "script"
    : entry === "svg:style" || entry === "math:style"
    ? "style"
    : "";
  return {
    entry,
    parent,
    root: parent?.root ?? entry,
    depth: (parent?.depth ?? 0) + 1,
    raw: parent?.raw || own,
  };
}

// Whether two stacks hold the same elements (most often they are one object).
function sameElements(a: OpenElement | null, b: OpenElement | null): boolean {
  while (a !== b) {
    if (a === null || b === null || a.entry !== b.entry) return false;
    a = a.parent;
    b = b.parent;
  }
  return true;
}

/** The context at the start of a template: element content. */
export const TEXT_CONTEXT: HtmlContext = Object.freeze({
  state: "text",
  tag: "",
  endTag: false,
  attr: "",
  quote: "",
  urlStart: false,
  scriptUrl: false,
  urlPrefix: "",
  buf: "",
  slash: false,
  foreign: null,
});

// Elements whose content the tokenizer reads as raw text (§13.2.5.3, §13.2.5.5) or RCDATA.
const SCRIPT_OR_STYLE = new Set(["script", "style"]);
// <noscript> is raw text where scripting runs (§13.2.6.4.4): a "</noscript>" in what looks like
// an attribute value inside it ends it there, and the markup after it is live. It is tracked as
// such browsers read it. An escaped value in its content is safe either way (where scripting
// does not run, its markup is read as markup, but no script can run there).
const RAWTEXT = new Set([
  "script",
  "style",
  "xmp",
  "iframe",
  "noembed",
  "noframes",
  "noscript",
  "plaintext",
]);
const RCDATA = new Set(["textarea", "title"]);
// HTML elements without content or end tag (§13.1.2), and <image>, which is read as <img>.
const VOID = new Set([
  "area",
  "base",
  "basefont",
  "bgsound",
  "br",
  "col",
  "embed",
  "frame",
  "hr",
  "image",
  "img",
  "input",
  "keygen",
  "link",
  "meta",
  "param",
  "source",
  "track",
  "wbr",
]);
// Start tags that end SVG and MathML content and are read as HTML (§13.2.6.5); <font> does too
// when it has a color, face or size attribute.
const BREAKOUT = new Set(
  ("b big blockquote body br center code dd div dl dt em embed h1 h2 h3 h4 h5 h6 head hr i img " +
    "li listing menu meta nobr ol p pre ruby s small span strong strike sub sup table tt u ul var")
    .split(" "),
);
// Elements whose content is read as HTML again (§13.2.6.5): HTML integration points, and
// MathML text integration points (where <mglyph> and <malignmark> stay MathML).
const HTML_INTEGRATION = new Set(["svg:foreignobject", "svg:desc", "svg:title"]);
const MATHML_TEXT = new Set(["math:mi", "math:mo", "math:mn", "math:ms", "math:mtext"]);
// <annotation-xml> is an HTML integration point only with encoding="text/html" (or XHTML),
// which the tracker does not read: markup directly inside it is refused.
const ANNOTATION_XML = "math:annotation-xml";
// SVG animation elements: their values can set another attribute, such as an <a>'s href.
const SVG_ANIMATION = new Set(["animate", "animatemotion", "animatetransform", "set"]);
const ANIMATION_VALUES = new Set(["attributename", "by", "from", "to", "values"]);
// Attributes whose value is a URL: a `javascript:` value would run script.
const URL_ATTRS = new Set([
  "href",
  "src",
  "action",
  "formaction",
  "xlink:href",
  "poster",
  "cite",
  "background",
  "codebase",
  "data",
  "longdesc",
  "manifest",
  "ping",
  "profile",
  "usemap",
  "lowsrc",
  "dynsrc",
  "classid",
  "archive",
  "icon",
  "srcset",
]);

/** What kind of `{{…}}` is placed: printed, raw, URL, or a block / partial boundary. */
export type Placement = "escape" | "raw" | "url" | "blockStart" | "blockEnd";

function isSpace(c: string): boolean {
  return c === " " || c === "\t" || c === "\n" || c === "\f" || c === "\r";
}

function isAlpha(c: string): boolean {
  return (c >= "a" && c <= "z") || (c >= "A" && c <= "Z");
}

/** Describes a context for messages: "element content", "attribute \"href\"" … */
export function describeContext(ctx: HtmlContext): string {
  const place = describeState(ctx);
  return ctx.foreign === null ? place : `${place} inside ${openElements(ctx.foreign)}`;
}

function describeState(ctx: HtmlContext): string {
  switch (ctx.state) {
    case "text":
      return "element content";
    case "rcdata":
    case "rawtext":
      return `<${ctx.tag}> content`;
    case "comment":
    case "markupDeclaration":
    case "bogusComment":
      return "an HTML comment";
    case "cdata":
      return "a CDATA section";
    case "tagOpen":
    case "endTagOpen":
    case "tagName":
      return "a tag name";
    case "attrName":
      return `attribute name "${ctx.attr}"`;
    case "beforeAttrValue":
      return `the value of attribute "${ctx.attr}" before its quote`;
    case "attrValue":
      return ctx.quote === ""
        ? `the unquoted value of attribute "${ctx.attr}"`
        : `the value of attribute "${ctx.attr}"`;
    default:
      return `the <${ctx.tag}> tag between attributes`;
  }
}

/**
 * Returns why `placement` is not allowed in `ctx` (one line, to follow "Cannot place X: "-style
 * prefixes chosen by the caller), or `null` when it is.
 */
export function checkPlacement(
  ctx: HtmlContext,
  placement: Placement,
  what: string,
): string | null {
  const block = placement === "blockStart" || placement === "blockEnd";
  switch (ctx.state) {
    case "text":
      if (ctx.foreign === null || block) return null;
      if (placement === "raw") {
        // SafeHtml was checked as HTML; here its markup may be read as SVG or MathML, and its
        // end tags may close the elements around it.
        return `Unsafe ${what} inside ${rootElement(ctx.foreign)}: raw HTML is only allowed ` +
          "outside SVG and MathML";
      }
      if (ctx.foreign.raw === "script") {
        return `Unsafe ${what} inside ${rootElement(ctx.foreign)} <script>: HTML escaping ` +
          "does not make JavaScript safe; pass the value in a data-* attribute";
      }
      if (ctx.foreign.raw === "style") {
        return `Unsafe ${what} inside ${rootElement(ctx.foreign)} <style>: HTML escaping ` +
          "does not make CSS safe";
      }
      return null;
    case "rcdata":
      if (placement === "raw") {
        return `Unsafe ${what} inside <${ctx.tag}>: raw HTML is not allowed there; use {{…}}`;
      }
      return null;
    case "rawtext":
      if (block) return null;
      if (SCRIPT_OR_STYLE.has(ctx.tag)) {
        const language = ctx.tag === "script" ? "JavaScript" : "CSS";
        return `Unsafe ${what} inside <${ctx.tag}>: HTML escaping does not make ${language} safe; ` +
          "pass the value in a data-* attribute";
      }
      if (ctx.tag === "noscript") {
        if (placement !== "raw") return null;
        return `Unsafe ${what} inside <noscript>: where scripting runs its content is raw text, ` +
          'which a "</noscript>" in the value would end';
      }
      return `Unsafe ${what} inside <${ctx.tag}>: its content is raw text`;
    case "comment":
    case "bogusComment":
    case "markupDeclaration":
      return `Cannot place ${what} inside an HTML comment or <!…> declaration`;
    case "cdata":
      return `Cannot place ${what} inside a CDATA section`;
    case "tagOpen":
    case "endTagOpen":
    case "tagName":
      return `Cannot place ${what} in a tag name`;
    case "attrName":
      if (placement === "blockEnd") return null;
      return `Cannot place ${what} in attribute name "${ctx.attr}": write ${ctx.attr}="{{…}}"`;
    case "beforeAttrName":
    case "afterAttrName":
      if (block) return null;
      return `Cannot place ${what} between the attributes of <${ctx.tag}>: ` +
        'put it in a quoted attribute value, as in title="{{…}}"';
    case "tagJoin":
      if (placement === "blockEnd") return null;
      return `Cannot place ${what} right after an attribute name that a block may end: ` +
        "add a space before it";
    case "beforeAttrValue":
      return `Unsafe ${what} in an unquoted attribute value: write ${ctx.attr}="{{…}}"`;
    case "attrValue":
      return checkAttrValue(ctx, placement, what);
  }
}

function checkAttrValue(ctx: HtmlContext, placement: Placement, what: string): string | null {
  if (ctx.quote === "") {
    return `Unsafe ${what} in an unquoted attribute value: write ${ctx.attr}="{{…}}"`;
  }
  if (placement === "blockStart" || placement === "blockEnd") return null;
  if (ctx.endTag) return `Cannot place ${what} in an end tag`;
  if (placement === "raw") {
    return `Unsafe ${what} in attribute "${ctx.attr}": raw HTML is only allowed in element content`;
  }
  const attr = ctx.attr;
  if (attr.startsWith("on")) {
    return `Unsafe ${what} in event-handler attribute "${attr}": ` +
      "HTML escaping does not make JavaScript safe";
  }
  if (attr === "style") {
    return `Unsafe ${what} in the style attribute: HTML escaping does not make CSS safe`;
  }
  if (attr === "srcdoc") {
    return `Unsafe ${what} in the srcdoc attribute: its value is parsed as HTML`;
  }
  if (SVG_ANIMATION.has(ctx.tag) && ANIMATION_VALUES.has(attr)) {
    return `Unsafe ${what} in attribute "${attr}" of <${ctx.tag}>: SVG animation can set ` +
      'an href to a "javascript:" URL';
  }
  if (ctx.scriptUrl) {
    const kind = ctx.tag === "script" ? `a "data:" or "javascript:" URL` : `a "javascript:" URL`;
    return `Unsafe ${what} in ${kind} in attribute "${attr}": ` +
      "HTML escaping does not make JavaScript safe";
  }
  if (ctx.urlStart && (ctx.tag === "script" || ctx.tag === "base")) {
    // safeUrl() checks the scheme only: any https URL passes, and a script from there runs
    // here, as does every script of the page with a relative source once <base> points there.
    return `Unsafe ${what} in attribute "${attr}" of <${ctx.tag}> before its text names the ` +
      "site: the value could name any site (a SafeUrl too), whose scripts would run on this " +
      `page; write the start of the URL, as in ${attr}="/static/{{…}}"`;
  }
  if (ctx.urlStart && placement === "escape") {
    return `Unsafe ${what} at the start of URL attribute "${attr}": a "javascript:" URL would ` +
      `pass; write {{url …}} with a SafeUrl value, or start the value with a fixed "/" or scheme`;
  }
  return null;
}

/** Whether two contexts are the same. */
export function sameContext(a: HtmlContext, b: HtmlContext): boolean {
  return a.state === b.state && a.tag === b.tag && a.endTag === b.endTag && a.attr === b.attr &&
    a.quote === b.quote && a.urlStart === b.urlStart && a.scriptUrl === b.scriptUrl &&
    a.urlPrefix === b.urlPrefix && a.buf === b.buf && a.slash === b.slash &&
    sameElements(a.foreign, b.foreign);
}

const BETWEEN_ATTRS = new Set<HtmlState>([
  "beforeAttrName",
  "attrName",
  "afterAttrName",
  "tagJoin",
]);

/** Joins the contexts two branches end in; `null` when they differ in a way that matters. */
export function joinContexts(a: HtmlContext, b: HtmlContext): HtmlContext | null {
  if (sameContext(a, b)) return a;
  if (!sameElements(a.foreign, b.foreign)) return null;
  if (
    a.state === "attrValue" && b.state === "attrValue" && a.tag === b.tag && a.attr === b.attr &&
    a.quote === b.quote
  ) {
    // One branch fixed the URL scheme and the other did not: assume it is still open, and
    // that it may be a script URL if either says so or their texts differ.
    return {
      ...a,
      urlStart: a.urlStart || b.urlStart,
      scriptUrl: a.scriptUrl || b.scriptUrl,
      urlPrefix: a.urlPrefix === b.urlPrefix ? a.urlPrefix : "\0",
    };
  }
  if (
    BETWEEN_ATTRS.has(a.state) && BETWEEN_ATTRS.has(b.state) && a.tag === b.tag &&
    a.endTag === b.endTag && (a.slash === b.slash || !slashMatters(a))
  ) {
    // An attribute name may or may not be open: only a space, "/" or ">" may follow.
    return { ...a, state: "tagJoin", attr: "", buf: "", slash: a.slash && b.slash };
  }
  return null;
}

/**
 * The context after a value is printed. Printed text is escaped, so it changes no state, but
 * in a URL whose scheme is still open it makes the scheme unknown: `{{url a}}:{{b}}` could
 * read `javascript:…`.
 */
export function afterOutput(ctx: HtmlContext): HtmlContext {
  return ctx.state === "attrValue" && ctx.urlStart ? { ...ctx, urlPrefix: "\0" } : ctx;
}

// Whether a tag's self-closing "/" changes anything: only for SVG and MathML elements.
function slashMatters(ctx: HtmlContext): boolean {
  return ctx.foreign !== null || ctx.tag === "svg" || ctx.tag === "math";
}

/** Why a template may not end in `ctx`, or `null` when it may. */
export function checkEnd(ctx: HtmlContext): string | null {
  if (ctx.state === "text" && ctx.foreign !== null) {
    // Markup after this template's output (another template's, around a {{{…}}}) would be
    // read as SVG or MathML, not as the HTML it was checked as.
    return `Unclosed ${rootElement(ctx.foreign)}: the template ends inside ` +
      openElements(ctx.foreign);
  }
  if (ctx.state === "text") return null;
  if (ctx.state === "rcdata" || ctx.state === "rawtext") {
    return `Unclosed <${ctx.tag}>: the template ends inside its content`;
  }
  return `Unfinished markup: the template ends inside ${describeContext(ctx)}`;
}

/** `<svg>` or `<math>`: the outermost element of a `foreign` stack, for messages. */
function rootElement(foreign: OpenElement): string {
  return `<${elementName(foreign.root)}>`;
}

/**
 * The elements of a `foreign` stack, for messages: `<svg><g>`; past six, the outermost and the
 * five innermost, `<svg>…(994 more)…<g><g><g><g><g>`, so that a message stays short at any depth.
 */
function openElements(foreign: OpenElement): string {
  const names: string[] = [];
  let e: OpenElement | null = foreign;
  for (; e !== null && names.length < (foreign.depth > 6 ? 5 : 6); e = e.parent) {
    names.push(`<${elementName(e.entry)}>`);
  }
  if (e !== null) {
    names.push(`${rootElement(foreign)}…(${(foreign.depth - 6).toLocaleString("en-US")} more)…`);
  }
  return names.reverse().join("");
}

function elementName(entry: string): string {
  return entry.slice(entry.indexOf(":") + 1);
}

function isHtmlEntry(entry: string): boolean {
  return entry.startsWith("html:");
}

// Whether a start tag inside the element `top` is read as HTML (§13.2.6, the dispatcher).
function readAsHtml(top: string, name: string): boolean {
  return isHtmlEntry(top) || HTML_INTEGRATION.has(top) ||
    (MATHML_TEXT.has(top) && name !== "mglyph" && name !== "malignmark") ||
    (top === ANNOTATION_XML && name === "svg");
}

function isAlnum(c: string | undefined): boolean {
  return c !== undefined && ((c >= "0" && c <= "9") || isAlpha(c));
}

// The named character references that decode to ASCII text (WHATWG HTML §13.5), with and
// without ";" as the table has them. Every other one decodes to text with a non-ASCII
// character, which a URL scheme cannot contain: for the scheme check it may stay as written.
const ASCII_REFERENCES = new Map<string, string>([
  ["AMP", "&"],
  ["AMP;", "&"],
  ["DiacriticalGrave;", "`"],
  ["GT", ">"],
  ["GT;", ">"],
  ["Hat;", "^"],
  ["LT", "<"],
  ["LT;", "<"],
  ["NewLine;", "\n"],
  ["QUOT", '"'],
  ["QUOT;", '"'],
  ["Tab;", "\t"],
  ["UnderBar;", "_"],
  ["VerticalLine;", "|"],
  ["amp", "&"],
  ["amp;", "&"],
  ["apos;", "'"],
  ["ast;", "*"],
  ["bsol;", "\\"],
  ["colon;", ":"],
  ["comma;", ","],
  ["commat;", "@"],
  ["dollar;", "$"],
  ["equals;", "="],
  ["excl;", "!"],
  ["fjlig;", "fj"],
  ["grave;", "`"],
  ["gt", ">"],
  ["gt;", ">"],
  ["lbrace;", "{"],
  ["lbrack;", "["],
  ["lcub;", "{"],
  ["lowbar;", "_"],
  ["lpar;", "("],
  ["lsqb;", "["],
  ["lt", "<"],
  ["lt;", "<"],
  ["midast;", "*"],
  ["num;", "#"],
  ["percnt;", "%"],
  ["period;", "."],
  ["plus;", "+"],
  ["quest;", "?"],
  ["quot", '"'],
  ["quot;", '"'],
  ["rbrace;", "}"],
  ["rbrack;", "]"],
  ["rcub;", "}"],
  ["rpar;", ")"],
  ["rsqb;", "]"],
  ["semi;", ";"],
  ["sol;", "/"],
  ["verbar;", "|"],
  ["vert;", "|"],
]);

// Numeric references to C1 controls mean windows-1252 characters (§13.2.5.80).
const C1_REPLACEMENTS = new Map<number, number>([
  [0x80, 0x20ac],
  [0x82, 0x201a],
  [0x83, 0x0192],
  [0x84, 0x201e],
  [0x85, 0x2026],
  [0x86, 0x2020],
  [0x87, 0x2021],
  [0x88, 0x02c6],
  [0x89, 0x2030],
  [0x8a, 0x0160],
  [0x8b, 0x2039],
  [0x8c, 0x0152],
  [0x8e, 0x017d],
  [0x91, 0x2018],
  [0x92, 0x2019],
  [0x93, 0x201c],
  [0x94, 0x201d],
  [0x95, 0x2022],
  [0x96, 0x2013],
  [0x97, 0x2014],
  [0x98, 0x02dc],
  [0x99, 0x2122],
  [0x9a, 0x0161],
  [0x9b, 0x203a],
  [0x9c, 0x0153],
  [0x9e, 0x017e],
  [0x9f, 0x0178],
]);

/**
 * Decodes the character reference at `text[i]` (an `&`) as the tokenizer does in an attribute
 * value (§13.2.5.72–80: numeric ones with or without ";", named ones by longest match, and
 * without ";" not before "=" or a letter or digit). Returns its text and the index after it;
 * an `&` that starts no reference is returned as is. Returns `null` when the reference runs to
 * the end of `text`, where the text that follows (a value, a block) could still extend it.
 */
function characterReference(
  text: string,
  i: number,
): { value: string; end: number } | null {
  let j = i + 1;
  if (j === text.length) return null;
  if (text[j] === "#") {
    j++;
    const hex = text[j] === "x" || text[j] === "X";
    if (hex) j++;
    const digit = hex ? /[0-9A-Fa-f]/ : /[0-9]/;
    const start = j;
    while (j < text.length && digit.test(text[j])) j++;
    if (j === text.length) return null;
    if (j === start) return { value: text.slice(i, j), end: j };
    const code = parseInt(text.slice(start, j), hex ? 16 : 10);
    if (text[j] === ";") j++;
    const invalid = code === 0 || code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff);
    return {
      value: invalid ? "\ufffd" : String.fromCodePoint(C1_REPLACEMENTS.get(code) ?? code),
      end: j,
    };
  }
  let k = j;
  while (k < text.length && isAlnum(text[k])) k++;
  if (k === j) return { value: "&", end: j };
  if (k === text.length) return null;
  const name = text.slice(j, k) + (text[k] === ";" ? ";" : "");
  for (let length = name.length; length > 0; length--) {
    const match = name.slice(0, length);
    const value = ASCII_REFERENCES.get(match);
    if (value === undefined) continue;
    const next = text[j + length];
    if (!match.endsWith(";") && (next === "=" || isAlnum(next))) break;
    return { value, end: j + length };
  }
  return { value: "&", end: j };
}

/**
 * Advances `ctx` over static text. `onError(index, reason)` is called for text that makes the
 * context unknowable (e.g. `<!--` inside `<script>`); tracking then goes on with a best guess.
 */
export function advance(
  ctx: HtmlContext,
  text: string,
  onError: (index: number, reason: string) => void,
): HtmlContext {
  let { state, tag, endTag, attr, quote, urlStart, scriptUrl, urlPrefix, buf, slash, foreign } =
    ctx;
  const n = text.length;
  // Where the tag being read starts, for errors about it (0 when it started in earlier text).
  let tagAt = 0;

  function emitTag(): void {
    const name = tag;
    const end = endTag;
    const selfClosing = slash;
    state = "text";
    tag = "";
    endTag = false;
    attr = "";
    quote = "";
    urlStart = false;
    scriptUrl = false;
    urlPrefix = "";
    slash = false;
    if (end) closeElement(name);
    else openElement(name, selfClosing);
  }

  // Tree construction, as far as it decides how later text is read (§13.2.6): an HTML start
  // tag may switch to raw text or RCDATA, but inside SVG and MathML the same tags are ordinary
  // elements whose content is markup, except inside the elements that read HTML again.
  function openElement(name: string, selfClosing: boolean): void {
    const top = foreign?.entry;
    if (top !== undefined && !readAsHtml(top, name)) {
      if (top === ANNOTATION_XML) {
        onError(
          tagAt,
          `Cannot tell whether <${name}> inside <annotation-xml> is HTML or MathML: it depends ` +
            "on the encoding attribute; move the markup out of <annotation-xml>",
        );
      } else if (name === "font") {
        onError(
          tagAt,
          `Unsupported <font> inside ${rootElement(foreign!)}: it is read as HTML or not ` +
            "depending on its attributes",
        );
      }
      if (!BREAKOUT.has(name)) {
        if (!selfClosing) {
          foreign = openInside(foreign, `${top.slice(0, top.indexOf(":"))}:${name}`);
        }
        return;
      }
      // This HTML tag ends the SVG or MathML elements around it and is read as HTML.
      popToHtml();
    }
    if (name === "svg" || name === "math") {
      if (!selfClosing) foreign = openInside(foreign, `${name}:${name}`);
    } else {
      if (RAWTEXT.has(name)) {
        state = "rawtext";
        tag = name;
      } else if (RCDATA.has(name)) {
        state = "rcdata";
        tag = name;
      }
      // A "/>" does not close an HTML element.
      if (foreign !== null && !VOID.has(name)) foreign = openInside(foreign, `html:${name}`);
    }
  }

  function closeElement(name: string): void {
    if (foreign === null) return; // in HTML, end tags change nothing the tracker follows
    const open = foreign;
    if (!isHtmlEntry(foreign.entry)) {
      if (name === "br" || name === "p") popToHtml(); // read as HTML, like the start tags
      else {
        // The innermost SVG or MathML element of that name closes, with those inside it; an
        // HTML element on the way makes it an HTML end tag for elements the tracker does not
        // follow.
        let k: OpenElement | null = foreign;
        while (k !== null && !isHtmlEntry(k.entry) && elementName(k.entry) !== name) k = k.parent;
        if (k !== null && !isHtmlEntry(k.entry)) foreign = k.parent;
        else {
          onError(
            tagAt,
            `Cannot follow </${name}> inside ${openElements(open)}: close the elements in order`,
          );
          if (k === null) foreign = null; // the best guess: it closes an element around them
        }
        return;
      }
    }
    // Read as HTML. The tracker follows HTML elements inside SVG and MathML only when they are
    // closed in order: other end tags close elements or are ignored depending on the elements
    // and their kinds, and a wrong guess would misread what comes after <foreignObject>.
    if (foreign === null || VOID.has(name)) {
      // Out of SVG and MathML, or an end tag that closes nothing (</br> is read as <br>).
    } else if (foreign.entry === `html:${name}`) foreign = foreign.parent;
    else if (name !== "p" || openHtml("html:p") !== null) {
      onError(
        tagAt,
        `Cannot follow </${name}> inside ${openElements(open)}: close the elements in order`,
      );
      const k = openHtml(`html:${name}`);
      if (k !== null) foreign = k.parent; // the best guess
    } // else an empty <p> is inserted and closed
  }

  // Pops the SVG and MathML elements that HTML markup ends (§13.2.6.5).
  function popToHtml(): void {
    while (foreign !== null) {
      const top = foreign.entry;
      if (isHtmlEntry(top) || HTML_INTEGRATION.has(top) || MATHML_TEXT.has(top)) break;
      if (top === ANNOTATION_XML) {
        onError(
          tagAt,
          "Cannot tell whether this tag ends <annotation-xml>: it depends on the encoding " +
            "attribute; move the markup out of <annotation-xml>",
        );
        break;
      }
      foreign = foreign.parent;
    }
  }

  // The innermost `entry` among the HTML elements open inside the innermost element that reads
  // HTML, or `null`.
  function openHtml(entry: string): OpenElement | null {
    let e = foreign;
    while (e !== null && isHtmlEntry(e.entry) && e.entry !== entry) e = e.parent;
    return e !== null && e.entry === entry ? e : null;
  }

  // Whether the adjusted current node is an SVG or MathML element (§13.2.5.42).
  function inForeignElement(): boolean {
    return foreign !== null && !isHtmlEntry(foreign.entry);
  }

  function startAttr(c: string): void {
    state = "attrName";
    attr = c.toLowerCase();
  }

  // One character of a URL attribute's value, after character references are decoded.
  function urlChar(c: string): void {
    if (!urlStart) return;
    if (tag === "script" || tag === "base") return sourceChar(c);
    if (c === ":" || c === "/" || c === "?" || c === "#") {
      // The scheme is fixed; javascript: and vbscript: (as the URL parser reads them,
      // §4.4: controls, spaces, tabs and newlines dropped) make everything after it script,
      // and so does data: in a script's source, which the page runs as its own script.
      // A branch that already made it script (`{{#if a}}javascript:{{/if}}`) keeps it so,
      // whatever this branch's text fixes.
      const scheme = urlPrefix.replace(/[\0-\x20]/g, "").toLowerCase();
      scriptUrl = scriptUrl ||
        (c === ":" &&
          (scheme === "javascript" || scheme === "vbscript" || urlPrefix.includes("\0") ||
            (scheme === "data" && tag === "script")));
      urlStart = false;
      urlPrefix = "";
    } else urlPrefix += c;
  }

  // One character of a script's source or of <base href>: the URL stays open until its text
  // names the site the script comes from (scheme and host, or a path that does not start with
  // two slashes, which would name a host: "/" + "/evil.example/x.js"); `urlPrefix` holds all of
  // it. A data:, javascript: or vbscript: URL runs its own text as script.
  function sourceChar(c: string): void {
    // Only a separator, or the character after a first slash, can name the site. A long URL
    // that has not named it stays so: reading it again at each character would be quadratic.
    if (urlPrefix.length > 2048) return;
    const before = urlPrefix.trim();
    urlPrefix += c;
    if (!":/\\?#".includes(c) && before !== "/" && before !== "\\") return;
    // As the URL parser reads it: leading controls and spaces, tabs and newlines dropped.
    let url = urlPrefix.replaceAll("\t", "").replaceAll("\n", "").replaceAll("\r", "");
    let start = 0;
    while (start < url.length && url.charCodeAt(start) >= 1 && url.charCodeAt(start) <= 32) start++;
    url = url.slice(start);
    if (url.includes("\0")) return; // a value or a block made it unknown
    const scheme = /^([a-zA-Z][a-zA-Z0-9+.\-]*):/.exec(url);
    const name = scheme?.[1].toLowerCase();
    if (name === "data" || name === "javascript" || name === "vbscript") scriptUrl = true;
    else if (
      scheme !== null
        ? !/^[/\\]*[^/\\?#]+[/\\?#]/.test(url.slice(scheme[0].length))
        : !/^(?:[/\\]{2}[^/\\?#]+[/\\?#]|[/\\][^/\\]|[?#]|[^/\\?#:]+[/\\?#])/.test(url)
    ) return;
    urlStart = false;
    urlPrefix = "";
  }

  for (let i = 0; i < n; i++) {
    const c = text[i];
    switch (state) {
      case "text":
        if (c === "<") {
          state = "tagOpen";
          tagAt = i;
        }
        break;
      case "rcdata":
      case "rawtext": {
        if (tag === "plaintext") {
          i = n;
          break;
        }
        // The content runs to "</tag" followed by a space, "/" or ">" (§13.2.5.12).
        const close = new RegExp(`</${tag}[\\t\\n\\f\\r />]`, "i");
        const rest = text.slice(i);
        const match = close.exec(rest);
        const end = match === null ? n : i + match.index;
        if (tag === "script") {
          // "<!--" in script data starts the escaped states, where "</script>" may not close.
          const escape = text.slice(i, end).indexOf("<!--");
          if (escape !== -1) onError(i + escape, 'Unsupported "<!--" inside <script>: remove it');
        }
        if (match === null) {
          i = n;
          break;
        }
        tagAt = end;
        i = end + tag.length + 1; // at the name's last character: tagName goes on after it
        state = "tagName";
        endTag = true;
        break;
      }
      case "tagOpen":
        if (c === "!") {
          state = "markupDeclaration";
          buf = "";
        } else if (c === "/") state = "endTagOpen";
        else if (isAlpha(c)) {
          state = "tagName";
          tag = c.toLowerCase();
          endTag = false;
        } else if (c === "?") state = "bogusComment";
        else {
          state = "text";
          i--;
        }
        break;
      case "endTagOpen":
        if (isAlpha(c)) {
          state = "tagName";
          tag = c.toLowerCase();
          endTag = true;
        } else if (c === ">") state = "text";
        else state = "bogusComment";
        break;
      case "markupDeclaration":
        buf += c;
        if (buf === "--") {
          state = "comment";
          buf = "<!--";
        } else if (inForeignElement() && "[CDATA[".startsWith(buf)) {
          // A CDATA section in SVG and MathML; in HTML, a bogus comment (§13.2.5.42).
          if (buf === "[CDATA[") {
            state = "cdata";
            buf = "";
          }
        } else if (!"--".startsWith(buf) && !"doctype".startsWith(buf.toLowerCase())) {
          state = "bogusComment";
          buf = "";
          i--;
        } else if (buf.toLowerCase() === "doctype") {
          state = "bogusComment";
          buf = "";
        }
        break;
      case "comment": {
        // "<!-->" and "<!--->" end at once; otherwise "-->" or "--!>" end (§13.2.5.43–52).
        if (buf === "<!--" && c === ">") {
          state = "text";
          buf = "";
          break;
        }
        if (buf === "<!--" && text.startsWith("->", i)) {
          state = "text";
          buf = "";
          i++;
          break;
        }
        buf = "";
        const rest = text.slice(i);
        const match = /--!?>/.exec(rest);
        if (match === null) {
          i = n;
          break;
        }
        state = "text";
        i += match.index + match[0].length - 1;
        break;
      }
      case "bogusComment": {
        const end = text.indexOf(">", i);
        if (end === -1) i = n;
        else {
          state = "text";
          i = end;
        }
        break;
      }
      case "cdata": {
        const end = text.indexOf("]]>", i);
        if (end === -1) i = n;
        else {
          state = "text";
          i = end + 2;
        }
        break;
      }
      // In the tag states, a "/" outside a value makes a following ">" self-closing
      // (§13.2.5.40); any other character undoes that.
      case "tagName":
        slash = c === "/";
        if (isSpace(c) || c === "/") state = "beforeAttrName";
        else if (c === ">") emitTag();
        else tag += c.toLowerCase();
        break;
      case "beforeAttrName":
        if (c === ">") emitTag();
        else {
          slash = c === "/";
          if (!isSpace(c) && c !== "/") startAttr(c);
        }
        break;
      case "attrName":
        if (c === ">") emitTag();
        else {
          slash = c === "/";
          if (isSpace(c)) state = "afterAttrName";
          else if (c === "/") state = "beforeAttrName";
          else if (c === "=") state = "beforeAttrValue";
          else attr += c.toLowerCase();
        }
        break;
      case "afterAttrName":
        if (c === ">") emitTag();
        else {
          slash = c === "/";
          if (c === "/") state = "beforeAttrName";
          else if (c === "=") state = "beforeAttrValue";
          else if (!isSpace(c)) startAttr(c);
        }
        break;
      case "tagJoin":
        if (c === ">") emitTag();
        else {
          slash = c === "/";
          if (isSpace(c) || c === "/") state = "beforeAttrName";
          else {
            onError(
              i,
              `Ambiguous attribute name after a block: "${c}" may continue the name it left ` +
                "open; add a space before it",
            );
            startAttr(c);
          }
        }
        break;
      case "beforeAttrValue":
        if (isSpace(c)) break;
        urlStart = URL_ATTRS.has(attr);
        scriptUrl = false;
        urlPrefix = "";
        if (c === '"' || c === "'") {
          state = "attrValue";
          quote = c;
        } else if (c === ">") emitTag();
        else {
          state = "attrValue";
          quote = "";
          i--;
        }
        break;
      case "attrValue":
        if (quote === "" ? isSpace(c) : c === quote) {
          state = "beforeAttrName";
          attr = "";
          quote = "";
          urlStart = false;
          scriptUrl = false;
          urlPrefix = "";
        } else if (quote === "" && c === ">") emitTag();
        else if (urlStart && c === "&") {
          // The URL is read after character references are decoded (§13.2.5.72): "&#106;" is
          // a "j" and "&colon;" a ":" that fixes the scheme.
          const reference = characterReference(text, i);
          if (reference === null) {
            // It runs to the end of this text, and what follows could extend it.
            urlPrefix += "\0";
            i = n;
          } else {
            for (const decoded of reference.value) urlChar(decoded);
            i = reference.end - 1;
          }
        } else if (urlStart) urlChar(c);
        break;
    }
  }
  return {
    state,
    tag,
    endTag,
    attr,
    quote,
    urlStart,
    scriptUrl,
    urlPrefix,
    buf,
    slash,
    foreign,
  };
}
