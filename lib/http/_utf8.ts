// The UTF-8 length of a text as far as a comparison with a bound needs it, for topics (message
// and topic limits), compress() (its threshold) and sanitizeFilename() (the 255-byte name).
const encoder = /* @__PURE__ */ new TextEncoder();

/**
 * The UTF-8 length of `text`, or a bound that decides the comparison with `max`: every UTF-16
 * code unit takes one to three bytes, so only a text in between is encoded. The result is
 * greater than `max` exactly when the UTF-8 length is.
 */
export function utf8Length(text: string, max: number): number {
  if (text.length > max || text.length * 3 <= max) return text.length;
  return encoder.encode(text).byteLength;
}
