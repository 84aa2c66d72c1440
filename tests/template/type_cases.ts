// Calls of generated `render()` functions with wrong data. Each `// @ts-expect-error` line is
// an error the type checker must find: `deno check` (and `deno test`, which checks this file
// through types_test.ts) fails on an unused directive, and types_test.ts checks a copy with the
// directives removed, which must fail with exactly one error per directive.
import { safeUrl, unsafeHtml } from "../../lib/template/mod.ts";
import * as conditionals from "./golden/conditionals.ts";
import * as loops from "./golden/loops.ts";
import * as partials from "./golden/partials.ts";
import * as rawAndUrls from "./golden/raw_and_urls.ts";
import * as basic from "./golden/basic.ts";
import * as nav from "./golden/parts/nav.ts";

const urls = {
  homepage: safeUrl("/"),
  siteName: "Weft",
  avatar: safeUrl("/a.png"),
  query: "q",
  userId: 1,
  formAction: safeUrl("/f"),
  body: unsafeHtml("<b>x</b>"),
};

/** Never called: only type-checked. */
export function typeCases(): void {
  // An object where a value is printed.
  basic.render({
    // @ts-expect-error { first: string } is not Printable
    post: { id: 1, title: { first: "a" }, author: { name: "n" }, views: 1, body: "" },
  });
  // A required field missing.
  // @ts-expect-error post.author is missing
  basic.render({ post: { id: 1, title: "t", views: 1, body: "" } });
  // null where a value is printed.
  // @ts-expect-error null is not Printable
  basic.render({ post: { id: null, title: "t", author: { name: "n" }, views: 1, body: "" } });
  // An array where a value is printed.
  // @ts-expect-error string[] is not Printable
  loops.render({ title: ["a"], items: [], sections: [] });
  // Not a list for #each.
  // @ts-expect-error "abc" is not a readonly array
  loops.render({ title: "t", items: "abc", sections: [] });
  // A list element without the fields the body uses.
  // @ts-expect-error items[].price is missing
  loops.render({ title: "t", items: [{ name: "a", tags: [] }], sections: [] });
  // Elements of a printed list must be printable.
  // @ts-expect-error { x: 1 } is not Printable
  loops.render({ title: "t", items: [], sections: [{ x: 1 }] });
  // Data of an included partial is required by the caller.
  // @ts-expect-error links (from parts/nav.html) is missing
  partials.render({ title: "t", cards: [] });
  // A plain string where raw output expects SafeHtml.
  // @ts-expect-error string is not SafeHtml
  rawAndUrls.render({ ...urls, body: "<b>x</b>" });
  // A plain string where {{url}} expects SafeUrl.
  // @ts-expect-error string is not SafeUrl
  rawAndUrls.render({ ...urls, homepage: "javascript:alert(1)" });
  // SafeHtml and SafeUrl are different brands.
  // @ts-expect-error SafeHtml is not SafeUrl
  rawAndUrls.render({ ...urls, avatar: unsafeHtml("x") });
  // A value printed inside the then-branch of an #if of it is still a value.
  // @ts-expect-error { a: 1 } is not Printable
  conditionals.render({ notice: { a: 1 }, count: 1 });
  // The optional fields may be omitted, but not the required ones.
  // @ts-expect-error count is missing
  conditionals.render({});
  // render() returns SafeHtml, a string subtype: no numbers.
  // @ts-expect-error SafeHtml is not a number
  const n: number = nav.render({ links: [] });

  // And the right data is accepted (these lines must type-check).
  const html: string = nav.render({ links: [{ path: "p", label: 1n }] });
  rawAndUrls.render({ ...urls, body: nav.render({ links: [] }) });
  conditionals.render({ count: true, user: undefined, busy: {}, active: [] });
  loops.render({ title: 1, items: [{ name: "n", price: 2, tags: [false] }], sections: [] });
  void n, html;
}
