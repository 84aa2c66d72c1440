// The options of staticFiles() that serve directories and single-page apps: the index file
// name, the fallback file's key, and whether a request is a browser navigation (its Accept
// lists text/html).
import { fileSegments } from "../http/file_path.ts";

export function fileName(name: string, value: unknown): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== "string" || value === "" || value === "." || value === "..") {
    throw new TypeError(
      `Cannot create staticFiles(): ${name} must be a file name, got ${JSON.stringify(value)}`,
    );
  }
  if (/[/\\\0]/.test(value)) {
    throw new TypeError(
      `Cannot create staticFiles(): ${name} must be a plain file name: ${JSON.stringify(value)}`,
    );
  }
  return value;
}

export function fallbackKey(value: unknown): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== "string") {
    throw new TypeError("Cannot create staticFiles(): fallback must be a path below the root");
  }
  const segments = fileSegments(encodeURI(value.startsWith("/") ? value : `/${value}`), {
    decode: true,
  });
  if (typeof segments === "string") {
    throw new TypeError(
      `Cannot create staticFiles(): fallback must name a file below the root: ${value}`,
    );
  }
  return "/" + segments.join("/");
}

// Whether an Accept header lists text/html (RFC 9110 §12.5.1; `*/*` alone does not count: a
// fetch() call sends it and wants no HTML page).
export function acceptsHtml(accept: string | null): boolean {
  if (accept === null) return false;
  for (const range of accept.toLowerCase().split(",")) {
    const semi = range.indexOf(";");
    if ((semi === -1 ? range : range.slice(0, semi)).trim() !== "text/html") continue;
    return !/;\s*q\s*=\s*0(?:\.0*)?\s*(?:;|$)/.test(range); // text/html;q=0 refuses it
  }
  return false;
}
