// Escaping what Weft writes to logs. Request-derived text (a path, a method, an error message
// that quotes a header or a decoded param) may carry CR, LF or other controls that would start
// a forged log line or drive a terminal, so every log line goes through escapeLog().

// C0 controls, DEL, C1 controls, U+2028 and U+2029, and the bidirectional embeddings, overrides
// and isolates (U+202A–U+202E, U+2066–U+2069): these reorder what a terminal or a log viewer
// shows after them, so that a path with an RLO could display as another path or status
// ("Trojan Source", CVE-2021-42574). Deno puts the raw UTF-8 of a request target into the URL as
// characters, not percent-encoded, so a path can carry them. One character class, linear on any
// input; everything in it past U+00FF has four hex digits.
// deno-lint-ignore no-control-regex -- matching control characters is the point
const CONTROLS = /[\0-\x1f\x7f-\x9f\u2028-\u202e\u2066-\u2069]/g;

/**
 * Escapes C0 controls, DEL, C1 controls, U+2028 and U+2029 and the bidirectional embeddings,
 * overrides and isolates as `\xHH` or `\uHHHH`.
 */
export function escapeLog(value: string): string {
  return value.replace(CONTROLS, (c) => {
    const hex = c.charCodeAt(0).toString(16); // 1 to 2 digits up to U+00FF, then 4
    return hex.length > 2 ? "\\u" + hex : "\\x" + hex.padStart(2, "0");
  });
}

/**
 * Describes a thrown value for a log: for an Error, its `name: message` escaped onto one line,
 * then its stack frames one per line (each escaped), then its causes the same way.
 */
export function describeError(error: unknown, depth = 0): string {
  if (!(error instanceof Error)) return escapeLog(stringify(error));
  const head = stringify(error);
  const stack = typeof error.stack === "string" ? error.stack : head;
  let text: string;
  if (stack.startsWith(head)) {
    // V8 stacks are the `name: message` header, then one "    at …" line per frame.
    text = escapeLog(head) + stack.slice(head.length).split("\n").map(escapeLog).join("\n");
  } else {
    text = escapeLog(stack);
  }
  if (error.cause !== undefined && depth < 4) {
    text += `\nCaused by: ${describeError(error.cause, depth + 1)}`;
  }
  return text;
}

function stringify(value: unknown): string {
  try {
    if (typeof value === "object" && value !== null && !(value instanceof Error)) {
      return JSON.stringify(value) ?? String(value);
    }
    return String(value);
  } catch {
    return Object.prototype.toString.call(value);
  }
}
