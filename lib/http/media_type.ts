/**
 * Content types from file names (docs/architecture.md, decision 6): the generated mime-db
 * table with the spec's additions; anything unknown is `application/octet-stream`. The table
 * lives in `mime_table.ts`, so only apps that serve files load it.
 *
 * @module
 */
import { MIME_TYPES } from "./mime_table.ts";

/** The type of files whose extension is unknown. */
export const DEFAULT_MEDIA_TYPE = "application/octet-stream";

/**
 * Returns the lower-case extension of a path's last segment without the dot, or `""` when it
 * has none. As in Python's `os.path.splitext`, leading dots do not start an extension
 * (`.bashrc` has none).
 *
 * @param path A file path or URL path.
 * @returns The extension, lower case.
 *
 * @example
 * ```ts
 * import { extensionOf } from "./media_type.ts";
 * import assert from "node:assert/strict";
 *
 * assert.equal(extensionOf("/static/app.min.JS"), "js");
 * assert.equal(extensionOf("/home/.bashrc"), "");
 * assert.equal(extensionOf("/dir.d/README"), "");
 * ```
 */
export function extensionOf(path: string): string {
  const slash = Math.max(path.lastIndexOf("/"), path.lastIndexOf("\\"));
  let nameStart = slash + 1;
  while (path.charCodeAt(nameStart) === 0x2e) nameStart++; // leading dots
  const dot = path.lastIndexOf(".");
  return dot < nameStart ? "" : path.slice(dot + 1).toLowerCase();
}

/**
 * Returns the bare media type for a file name, exactly as the spec's table gives it (no
 * `charset` parameter): `.js` is `application/javascript`, `.md` is `text/markdown`.
 *
 * @param path A file path or URL path.
 * @returns The media type; `application/octet-stream` when the extension is unknown.
 *
 * @example
 * ```ts
 * import { contentType } from "./media_type.ts";
 * import assert from "node:assert/strict";
 *
 * assert.equal(contentType("app.js"), "application/javascript");
 * assert.equal(contentType("logo.svg"), "image/svg+xml");
 * assert.equal(contentType("font.woff2"), "font/woff2");
 * assert.equal(contentType("data.unknown"), "application/octet-stream");
 * ```
 */
export function contentType(path: string): string {
  return MIME_TYPES[extensionOf(path)] ?? DEFAULT_MEDIA_TYPE;
}

/**
 * Returns the media type for a file name with `; charset=utf-8` added to textual types
 * (`text/*`, JavaScript, JSON, XML and their `+json`/`+xml` suffixes), for servers that want
 * browsers to decode text as UTF-8.
 *
 * @param path A file path or URL path.
 * @returns The media type, with a charset parameter where it applies.
 *
 * @example
 * ```ts
 * import { contentTypeWithCharset } from "./media_type.ts";
 * import assert from "node:assert/strict";
 *
 * assert.equal(contentTypeWithCharset("index.html"), "text/html; charset=utf-8");
 * assert.equal(contentTypeWithCharset("image.png"), "image/png");
 * ```
 */
export function contentTypeWithCharset(path: string): string {
  const type = contentType(path);
  return isTextual(type) ? `${type}; charset=utf-8` : type;
}

function isTextual(type: string): boolean {
  return type.startsWith("text/") || type === "application/javascript" ||
    type === "application/json" || type === "application/xml" || type.endsWith("+json") ||
    type.endsWith("+xml");
}
