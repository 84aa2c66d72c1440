// Percent-decoding of a request path, segment by segment, as the router matches it: each
// segment is decoded once, with "/" and "%" kept encoded (as %2F and %25) so that segment
// boundaries survive; param values are restored from that form.

const ENCODED = /%2F|%25/gi;

/**
 * Decodes `path` for matching; throws URIError on a malformed escape or invalid UTF-8.
 *
 * @param path The path as sent, without the query.
 * @returns The decoded path, "/" and "%" still encoded.
 */
export function decodePath(path: string): string {
  if (!path.includes("%")) return path;
  const parts = path.split("/");
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i];
    if (part.includes("%")) {
      parts[i] = decodeURIComponent(part).replaceAll("%", "%25").replaceAll("/", "%2F");
    }
  }
  return parts.join("/");
}

/**
 * Turns a segment of a decoded path into the param value it stands for.
 *
 * @param value A segment (or, for a wildcard, segments) of {@linkcode decodePath}'s result.
 * @returns The value with "/" and "%" decoded too.
 */
export function restoreParam(value: string): string {
  return value.includes("%")
    ? value.replace(ENCODED, (m) => m[1] === "2" && m[2] === "5" ? "%" : "/")
    : value;
}
