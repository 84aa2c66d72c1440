// Percent-decoding of a request path, segment by segment, as the router matches it: each
// segment is decoded once, with "/" and "%" kept encoded (as %2F and %25) so that segment
// boundaries survive; param values are restored from that form.

const ENCODED = /%2F|%25/gi;

/**
 * Decodes `path` for matching, and resolves its dot segments ("/../", "/%2e%2e/") as a URL
 * parser does, so that serve() matches what app.fetch() does (a Request's URL has none) and
 * no param holds ".."; throws URIError on a malformed escape or invalid UTF-8.
 *
 * @param path The path as sent, without the query.
 * @returns The decoded path, "/" and "%" still encoded.
 */
export function decodePath(path: string): string {
  if (path.includes("%")) {
    const parts = path.split("/");
    for (let i = 0; i < parts.length; i++) {
      const part = parts[i];
      if (part.includes("%")) {
        parts[i] = decodeURIComponent(part).replaceAll("%", "%25").replaceAll("/", "%2F");
      }
    }
    path = parts.join("/");
  }
  return path.includes("/.") ? removeDotSegments(path) : path;
}

/**
 * Removes the dot segments of `path` as a URL parser does (RFC 3986 §5.2.4): "/a/./b" is
 * "/a/b", "/a/b/../c" is "/a/c", "/a/.." is "/", and nothing climbs above the root.
 *
 * @param path A path that starts with "/".
 * @returns The path without "." and ".." segments.
 */
export function removeDotSegments(path: string): string {
  const segments = path.split("/");
  const last = segments.length - 1;
  const out: string[] = [];
  for (let i = 1; i <= last; i++) {
    const segment = segments[i];
    if (segment === "..") out.pop();
    // a dot segment at the end leaves a slash: "/a/.." is "/a/"
    if (segment !== "." && segment !== "..") out.push(segment);
    else if (i === last) out.push("");
  }
  return "/" + out.join("/");
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
