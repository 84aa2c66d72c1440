// Parses what a server wrote back on one HTTP/1.1 connection and says whether it is
// well-formed (RFC 9112): a status line, header fields, and a body framed by exactly one of
// Content-Length, chunked Transfer-Encoding or the end of the connection.
import type { SentRequest } from "./http1_cases.ts";

/** One parsed response. */
export interface ParsedResponse {
  status: number;
  headers: [string, string][];
  body: Uint8Array;
}

/** The parse of a connection's bytes so far. */
export interface ParseResult {
  responses: ParsedResponse[];
  /** Whether a 101 ended the HTTP part of the connection. */
  upgraded: boolean;
  /** Set when the bytes cannot be a valid response stream. */
  error?: string;
  /** True when a response is incomplete (more bytes, or the close, would finish it). */
  partial: boolean;
  /** Bytes left after the responses for the requests sent. */
  extra: number;
}

const STATUS_LINE = /^HTTP\/1\.[01] (\d{3})(?: [\t -~\x80-\xff]*)?$/;
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

function indexOfCrlfCrlf(bytes: Uint8Array, from: number): number {
  for (let i = from; i + 3 < bytes.length; i++) {
    if (bytes[i] === 13 && bytes[i + 1] === 10 && bytes[i + 2] === 13 && bytes[i + 3] === 10) {
      return i;
    }
  }
  return -1;
}

function indexOfCrlf(bytes: Uint8Array, from: number): number {
  for (let i = from; i + 1 < bytes.length; i++) {
    if (bytes[i] === 13 && bytes[i + 1] === 10) return i;
  }
  return -1;
}

function latin1(bytes: Uint8Array): string {
  let s = "";
  for (let i = 0; i < bytes.length; i++) s += String.fromCharCode(bytes[i]);
  return s;
}

/**
 * Parses the responses to `requests` from `bytes`; `closed` says whether the server closed the
 * connection (which ends a body framed by the close, and makes any partial response an error).
 */
export function parseResponses(
  bytes: Uint8Array,
  requests: readonly SentRequest[],
  closed: boolean,
): ParseResult {
  const responses: ParsedResponse[] = [];
  let at = 0;
  const result = (extra: Partial<ParseResult>): ParseResult => ({
    responses,
    upgraded: false,
    partial: false,
    extra: 0,
    ...extra,
  });
  while (responses.length < requests.length) {
    if (at === bytes.length) return result({ partial: false });
    const request = requests[responses.length];
    const headEnd = indexOfCrlfCrlf(bytes, at);
    if (headEnd === -1) {
      if (bytes.length - at > 64 * 1024) return result({ error: "response head over 64 KiB" });
      return closed
        ? result({
          error: `connection closed inside a response head: ${
            JSON.stringify(latin1(bytes.subarray(at, at + 80)))
          }`,
        })
        : result({ partial: true });
    }
    const [statusLine, ...lines] = latin1(bytes.subarray(at, headEnd)).split("\r\n");
    const match = STATUS_LINE.exec(statusLine);
    if (match === null) {
      return result({ error: `bad status line ${JSON.stringify(statusLine.slice(0, 80))}` });
    }
    const status = Number(match[1]);
    const headers: [string, string][] = [];
    for (const line of lines) {
      const colon = line.indexOf(":");
      const name = line.slice(0, colon);
      if (colon <= 0 || !TOKEN.test(name)) {
        return result({ error: `bad header line ${JSON.stringify(line.slice(0, 80))}` });
      }
      const value = line.slice(colon + 1).trim();
      if (/[\0\r\n]/.test(value)) return result({ error: `bad header value in ${name}` });
      headers.push([name.toLowerCase(), value]);
    }
    at = headEnd + 4;
    if (status < 100 || status > 599) return result({ error: `status ${status} out of range` });
    if (status === 101) {
      responses.push({ status, headers, body: new Uint8Array(0) });
      return result({ upgraded: true });
    }
    if (status >= 100 && status < 200) continue; // interim (100 Continue); the final one follows
    const get = (name: string) => headers.filter(([n]) => n === name).map(([, v]) => v);
    const te = get("transfer-encoding");
    const cl = get("content-length");
    if (te.length > 0 && cl.length > 0) {
      return result({ error: "both Transfer-Encoding and Content-Length" });
    }
    // A request the server could not parse is not known to be HEAD: its error response, sent
    // before closing, may carry a body.
    const parseError = status >= 400 && get("connection").some((v) => /close/i.test(v));
    if (request.method === "HEAD" && parseError && !closed && bytes.length === at) {
      return result({ partial: true }); // the close will tell whether a body follows
    }
    const bodyless = (request.method === "HEAD" && !(parseError && bytes.length > at)) ||
      status === 204 || status === 304;
    if (status === 204 && (cl.length > 0 || te.length > 0)) {
      // RFC 9110 §8.6: a server must not send Content-Length in a 204
      return result({ error: "204 with a Content-Length or Transfer-Encoding" });
    }
    let body: Uint8Array = new Uint8Array(0);
    if (bodyless) {
      // no body, whatever the headers say
    } else if (te.length > 0) {
      if (te.join(",").toLowerCase().split(",").map((s) => s.trim()).at(-1) !== "chunked") {
        return result({ error: `Transfer-Encoding ${te.join(",")} without chunked last` });
      }
      const parts: Uint8Array[] = [];
      for (;;) {
        const lineEnd = indexOfCrlf(bytes, at);
        if (lineEnd === -1) {
          return closed
            ? result({ error: "connection closed inside a chunk size" })
            : result({ partial: true });
        }
        const sizeText = latin1(bytes.subarray(at, lineEnd)).split(";")[0].trim();
        if (!/^[0-9a-fA-F]{1,15}$/.test(sizeText)) {
          return result({ error: `bad chunk size ${JSON.stringify(sizeText)}` });
        }
        const size = parseInt(sizeText, 16);
        at = lineEnd + 2;
        if (size === 0) {
          // trailers, then CRLF
          const end = latin1(bytes.subarray(at, at + 2)) === "\r\n"
            ? at - 2
            : indexOfCrlfCrlf(bytes, at);
          if (end === -1 || bytes.length < at + 2) {
            return closed
              ? result({ error: "connection closed inside the last chunk" })
              : result({ partial: true });
          }
          at = end + 4;
          break;
        }
        if (bytes.length < at + size + 2) {
          return closed
            ? result({ error: "connection closed inside a chunk" })
            : result({ partial: true });
        }
        if (bytes[at + size] !== 13 || bytes[at + size + 1] !== 10) {
          return result({ error: "chunk not followed by CRLF" });
        }
        parts.push(bytes.subarray(at, at + size));
        at += size + 2;
      }
      body = Uint8Array.from(parts.flatMap((p) => Array.from(p)));
    } else if (cl.length > 0) {
      const values = new Set(cl.flatMap((v) => v.split(",").map((s) => s.trim())));
      if (values.size !== 1) return result({ error: `conflicting Content-Length ${cl.join(",")}` });
      const [text] = values;
      if (!/^\d{1,15}$/.test(text)) return result({ error: `bad Content-Length ${text}` });
      const length = Number(text);
      if (bytes.length < at + length) {
        return closed
          ? result({
            error: `connection closed after ${
              bytes.length - at
            } of ${length} body bytes (Content-Length)`,
          })
          : result({ partial: true });
      }
      body = bytes.subarray(at, at + length);
      at += length;
    } else {
      // framed by the close (RFC 9112 §6.3 item 8)
      if (!closed) return result({ partial: true });
      body = bytes.subarray(at);
      at = bytes.length;
    }
    responses.push({ status, headers, body });
  }
  return result({ extra: bytes.length - at });
}
