// The Content-Type check of request bodies decoded as JSON (ctx.decode): a missing
// Content-Type is accepted (clients such as curl -d and fetch with a string body send none or
// one that is not meant), any JSON media type (application/json, or a +json suffix of RFC 6839
// §3.1) is accepted, and anything else is answered 415.
import { HttpError } from "../http/http_error.ts";

/** The media type json.decode reads, as a 415 names it. */
export const JSON_MEDIA_TYPE = "application/json";

/**
 * Throws an `HttpError` 415 (problem+json naming the accepted type) unless `contentType` is
 * absent or a JSON media type.
 */
export function expectJson(contentType: string | null | undefined): void {
  if (contentType === null || contentType === undefined) return;
  const semicolon = contentType.indexOf(";");
  const essence = (semicolon < 0 ? contentType : contentType.slice(0, semicolon)).trim()
    .toLowerCase();
  const slash = essence.indexOf("/");
  if (essence === JSON_MEDIA_TYPE || (slash > 0 && essence.endsWith("+json"))) return;
  throw new HttpError(
    415,
    `Expected a JSON body (Content-Type ${JSON_MEDIA_TYPE} or a +json type), got ${
      JSON.stringify(contentType)
    }`,
    { problem: { accept: JSON_MEDIA_TYPE }, headers: { "accept-post": JSON_MEDIA_TYPE } },
  );
}
