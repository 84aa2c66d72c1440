import assert from "node:assert/strict";
import { appendVary, editHeaders, parseList } from "../../lib/middleware/_headers.ts";

Deno.test("parseList() trims members and skips empty ones", () => {
  assert.deepEqual(parseList(" a ,, b\t,c , "), ["a", "b", "c"]);
  assert.deepEqual(parseList(" ".repeat(65_536) + ","), []);
});

Deno.test("appendVary() adds a field once, whatever its case", () => {
  const headers = new Headers({ vary: "Accept-Encoding" });
  appendVary(headers, "Origin");
  appendVary(headers, "origin");
  appendVary(headers, "ACCEPT-ENCODING");
  assert.equal(headers.get("vary"), "Accept-Encoding, Origin");
});

Deno.test("appendVary() keeps Vary: * and lets * replace a list (RFC 9110 §12.5.5)", () => {
  const star = new Headers({ vary: "*" });
  appendVary(star, "Origin");
  assert.equal(star.get("vary"), "*");
  const list = new Headers({ vary: "Origin" });
  appendVary(list, "*");
  assert.equal(list.get("vary"), "*");
});

Deno.test("appendVary() adds each member of a list", () => {
  const headers = new Headers({ vary: "Origin" });
  appendVary(headers, "accept, Origin ,Cookie");
  assert.equal(headers.get("vary"), "Origin, accept, Cookie");
});

Deno.test("editHeaders() edits a copy of a response whose headers are immutable", async () => {
  const mutable = new Response("a");
  assert.equal(editHeaders(mutable, (h) => h.set("x-a", "1")), mutable);
  assert.equal(mutable.headers.get("x-a"), "1");
  const redirect = Response.redirect("http://localhost/b", 302);
  const copy = editHeaders(redirect, (h) => h.set("x-a", "1"));
  assert.notEqual(copy, redirect);
  assert.equal(copy.status, 302);
  assert.equal(copy.headers.get("location"), "http://localhost/b");
  assert.equal(copy.headers.get("x-a"), "1");
  await copy.body?.cancel();
});

Deno.test("editHeaders() lets an error that is not the immutable-headers TypeError through", () => {
  assert.throws(
    () =>
      editHeaders(new Response("a"), () => {
        throw new RangeError("from the edit");
      }),
    RangeError,
  );
});
