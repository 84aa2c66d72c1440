// Escaping what Weft writes to logs. Request-derived text (a path, a method, an error message
// that quotes a header or a decoded param) may carry CR, LF or other controls that would start
// a forged log line or drive a terminal, so every log line goes through escapeLog().

/** Escapes C0 controls, DEL, C1 controls, U+2028 and U+2029 as `\xHH` or `\uHHHH`. */
export function escapeLog(value: string): string {
  let out = "";
  let from = 0;
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if (c >= 0x20 && c < 0x7f) continue;
    if (c > 0x9f && c !== 0x2028 && c !== 0x2029) continue;
    out += value.slice(from, i) + (c > 0xff ? `\\u${c.toString(16)}` : `\\x${hex2(c)}`);
    from = i + 1;
  }
  return from === 0 ? value : out + value.slice(from);
}

function hex2(c: number): string {
  return (c < 0x10 ? "0" : "") + c.toString(16);
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
