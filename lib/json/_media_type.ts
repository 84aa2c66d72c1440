// The Content-Type check of request bodies decoded as JSON (ctx.decode): a missing
// Content-Type is accepted (clients such as curl -d and fetch with a string body send none or
// one that is not meant), any JSON media type (application/json, or a +json suffix of RFC 6839
// §3.1) is accepted, and anything else is answered 415, as is a body in a content coding.
import { HttpError } from "../http/http_error.ts";
import { expectUncoded } from "../http/_uncoded.ts";

/** The media type json.decode reads, as a 415 names it. */
export const JSON_MEDIA_TYPE = "application/json";

/**
 * Throws an `HttpError` 415 unless the request's body is uncoded (no `Content-Encoding` but
 * `identity`; the 415 then says `Accept-Encoding: identity`) and its `Content-Type` is absent or
 * a JSON media type (the 415 then names the accepted type).
 */
export function expectJson(headers: Headers | null | undefined): void {
  if (headers === null || headers === undefined) return;
  expectUncoded(headers.get("content-encoding"));
  const contentType = headers.get("content-type");
  if (contentType === null) return;
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
