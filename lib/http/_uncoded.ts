// The refusal of a request body in a content coding (RFC 9110 §8.4), by the readers that
// interpret a body (ctx.decode(), weft/multipart): Weft never decompresses request bodies, and a
// reader that took a gzip body for JSON or a form would blame the client's syntax.
import { HttpError } from "./http_error.ts";

/**
 * Throws an `HttpError` 415 with `Accept-Encoding: identity` (RFC 7694 §3: no coding is
 * accepted in requests) unless `contentEncoding` is absent or names no coding but `identity`.
 */
export function expectUncoded(contentEncoding: string | null): void {
  if (contentEncoding === null) return;
  for (const member of contentEncoding.split(",")) {
    const coding = member.trim().toLowerCase();
    if (coding === "" || coding === "identity") continue;
    throw new HttpError(
      415,
      `The request body is in the content coding ${
        JSON.stringify(member.trim())
      }; send it without a Content-Encoding`,
      { headers: { "accept-encoding": "identity" } },
    );
  }
}
