/**
 * The HTML context tracker: follows the static text of a template through the states of the
 * HTML tokenizer (WHATWG HTML §13.2.5, simplified to what escaping safety needs) so that the
 * compiler knows, at every `{{…}}`, whether HTML escaping is enough there.
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
});

// Elements whose content the tokenizer reads as raw text (§13.2.5.3, §13.2.5.5) or RCDATA.
const SCRIPT_OR_STYLE = new Set(["script", "style"]);
const RAWTEXT = new Set(["script", "style", "xmp", "iframe", "noembed", "noframes", "plaintext"]);
const RCDATA = new Set(["textarea", "title"]);
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
      return `Unsafe ${what} inside <${ctx.tag}>: its content is raw text`;
    case "comment":
    case "bogusComment":
    case "markupDeclaration":
      return `Cannot place ${what} inside an HTML comment or <!…> declaration`;
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
  if (ctx.scriptUrl) {
    return `Unsafe ${what} in a "javascript:" URL in attribute "${attr}": ` +
      "HTML escaping does not make JavaScript safe";
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
    a.urlPrefix === b.urlPrefix && a.buf === b.buf;
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
    a.endTag === b.endTag
  ) {
    // An attribute name may or may not be open: only a space, "/" or ">" may follow.
    return { ...a, state: "tagJoin", attr: "", buf: "" };
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

/** Why a template may not end in `ctx`, or `null` when it may. */
export function checkEnd(ctx: HtmlContext): string | null {
  if (ctx.state === "text") return null;
  if (ctx.state === "rcdata" || ctx.state === "rawtext") {
    return `Unclosed <${ctx.tag}>: the template ends inside its content`;
  }
  return `Unfinished markup: the template ends inside ${describeContext(ctx)}`;
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
  let { state, tag, endTag, attr, quote, urlStart, scriptUrl, urlPrefix, buf } = ctx;
  const n = text.length;

  function emitTag(): void {
    if (!endTag && RAWTEXT.has(tag)) state = "rawtext";
    else if (!endTag && RCDATA.has(tag)) state = "rcdata";
    else {
      state = "text";
      tag = "";
    }
    endTag = false;
    attr = "";
    quote = "";
    urlStart = false;
    scriptUrl = false;
    urlPrefix = "";
  }

  function startAttr(c: string): void {
    state = "attrName";
    attr = c.toLowerCase();
  }

  for (let i = 0; i < n; i++) {
    const c = text[i];
    switch (state) {
      case "text":
        if (c === "<") state = "tagOpen";
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
        i = end + tag.length + 1; // at the character after the name
        state = "tagName";
        endTag = true;
        i--; // reconsume it in tagName
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
      case "tagName":
        if (isSpace(c) || c === "/") state = "beforeAttrName";
        else if (c === ">") emitTag();
        else tag += c.toLowerCase();
        break;
      case "beforeAttrName":
        if (isSpace(c) || c === "/") break;
        if (c === ">") emitTag();
        else startAttr(c);
        break;
      case "attrName":
        if (isSpace(c)) state = "afterAttrName";
        else if (c === "/") state = "beforeAttrName";
        else if (c === ">") emitTag();
        else if (c === "=") state = "beforeAttrValue";
        else attr += c.toLowerCase();
        break;
      case "afterAttrName":
        if (isSpace(c)) break;
        if (c === "/") state = "beforeAttrName";
        else if (c === "=") state = "beforeAttrValue";
        else if (c === ">") emitTag();
        else startAttr(c);
        break;
      case "tagJoin":
        if (isSpace(c) || c === "/") state = "beforeAttrName";
        else if (c === ">") emitTag();
        else {
          onError(
            i,
            `Ambiguous attribute name after a block: "${c}" may continue the name it left open; ` +
              "add a space before it",
          );
          startAttr(c);
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
        else if (urlStart && (c === ":" || c === "/" || c === "?" || c === "#")) {
          // The scheme is fixed; javascript: and vbscript: (as the URL parser reads them,
          // §4.4: controls, spaces, tabs and newlines dropped) make everything after it script.
          const scheme = urlPrefix.replace(/[\0-\x20]/g, "").toLowerCase();
          scriptUrl = c === ":" &&
            (scheme === "javascript" || scheme === "vbscript" || urlPrefix.includes("\0"));
          urlStart = false;
          urlPrefix = "";
        } else if (urlStart) urlPrefix += c;
        break;
    }
  }
  return { state, tag, endTag, attr, quote, urlStart, scriptUrl, urlPrefix, buf };
}
