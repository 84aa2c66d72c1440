import assert from "node:assert/strict";
import { describeError, escapeLog } from "../../lib/http/_log_escape.ts";

// Every character that must never reach a log raw: C0, DEL, C1, LINE and PARAGRAPH SEPARATOR,
// and the bidirectional embeddings, overrides and isolates.
// deno-lint-ignore no-control-regex
const CONTROLS = /[\0-\x1f\x7f-\x9f\u2028-\u202e\u2066-\u2069]/;

Deno.test("escapeLog() escapes C0, DEL, C1, U+2028, U+2029 and bidi controls and keeps everything else", () => {
  assert.equal(escapeLog("/users/7"), "/users/7");
  assert.equal(escapeLog("/a\r\nb"), "/a\\x0d\\x0ab");
  assert.equal(escapeLog("\0\t\x1b[31m"), "\\x00\\x09\\x1b[31m");
  assert.equal(escapeLog("\x7f\x80\x85\x9f"), "\\x7f\\x80\\x85\\x9f");
  assert.equal(escapeLog("a\u2028b\u2029c"), "a\\u2028b\\u2029c");
  assert.equal(escapeLog("\xa0café \\ 😀"), "\xa0café \\ 😀");
  // an RLO would show "/admin 200" as "/002 nimda/" and so on: each bidi control is escaped
  assert.equal(
    escapeLog("/a\u202e002 nimda/\u202c \u202a\u202b\u202d\u2066\u2067\u2068\u2069"),
    "/a\\u202e002 nimda/\\u202c \\u202a\\u202b\\u202d\\u2066\\u2067\\u2068\\u2069",
  );
  // the joiners of emoji and scripts are no such characters: kept
  assert.equal(escapeLog("\u200c\u200d👩\u200d💻"), "\u200c\u200d👩\u200d💻");
  for (let c = 0; c < 0x2100; c++) {
    assert.ok(!CONTROLS.test(escapeLog(`x${String.fromCharCode(c)}y`)), c.toString(16));
  }
});

Deno.test("describeError() keeps a forged line in an error message on the message's line", () => {
  const error = new Error("no user \r\n2025-01-01T00:00:00.000Z GET /admin 200 1ms\u2028x", {
    cause: new TypeError("bad header \nvalue"),
  });
  const text = describeError(error);
  const lines = text.split("\n");
  assert.equal(
    lines[0],
    "Error: no user \\x0d\\x0a2025-01-01T00:00:00.000Z GET /admin 200 1ms\\u2028x",
  );
  for (const line of lines.slice(1)) {
    assert.match(line, /^( {4}at |Caused by: TypeError: bad header \\x0avalue$)/, line);
  }
  assert.ok(lines.some((line) => line.startsWith("Caused by: ")));
  assert.ok(!/[\r\u2028]/.test(text));
});

Deno.test("describeError() escapes thrown values that are not errors and odd stacks", () => {
  assert.equal(describeError("a\nb"), "a\\x0ab");
  assert.equal(describeError({ x: "a\nb" }), '{"x":"a\\nb"}');
  const odd = new Error("m");
  odd.stack = "custom\nstack";
  assert.equal(describeError(odd), "custom\\x0astack");
  const hostile = new Error("m");
  Object.defineProperty(hostile, "stack", { value: undefined });
  hostile.toString = () => {
    throw new Error("no");
  };
  assert.equal(describeError(hostile), "[object Error]");
});
