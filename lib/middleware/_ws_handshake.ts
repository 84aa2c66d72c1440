// The opening handshake of RFC 6455 §4.2.1, checked by Weft before the runtime sees the
// request (Deno alone answers some malformed handshakes with 101 and others with a 500), and
// subprotocol negotiation (§4.2.2 item 5.5).
import { problem } from "../http/problem.ts";
import { parseList } from "./_headers.ts";

/** What a request is, as far as the WebSocket handshake goes. */
export type Handshake =
  /** No WebSocket handshake at all (no `Upgrade: websocket`, no `Sec-WebSocket-*`). */
  | { kind: "none" }
  /** A handshake Weft refuses: 400, or 426 for a version other than 13. */
  | { kind: "refused"; response: Response }
  /** A valid handshake and the subprotocol chosen, if any. */
  | { kind: "valid"; protocol: string | undefined };

const NONE: Handshake = { kind: "none" };

// RFC 6455 §4.1: the key is base64 of exactly 16 bytes, so 22 characters and "==". The last
// character before the padding carries two bits of data and four zero bits: only A, Q, g, w.
const KEY = /^[A-Za-z0-9+/]{21}[AQgw]==$/;

/** The headers every 426 carries: RFC 9110 §15.5.22 and §7.8, RFC 6455 §4.4. */
const UPGRADE_REQUIRED_HEADERS = {
  upgrade: "websocket",
  connection: "Upgrade",
  "sec-websocket-version": "13",
} as const;

function hasToken(value: string | null, token: string): boolean {
  if (value === null) return false;
  for (const element of parseList(value)) {
    if (element.toLowerCase() === token) return true;
  }
  return false;
}

function refuse(status: 400 | 426, detail: string): Handshake {
  return {
    kind: "refused",
    response: status === 426
      ? problem({ status, detail }, UPGRADE_REQUIRED_HEADERS)
      : problem({ status, detail }),
  };
}

/** The 426 answer to a request that is not a WebSocket handshake at all. */
export function upgradeRequired(): Response {
  return problem({
    status: 426,
    detail: "This resource only accepts WebSocket connections over HTTP/1.1",
  }, UPGRADE_REQUIRED_HEADERS);
}

/**
 * Checks a request against RFC 6455 §4.2.1 and picks the subprotocol: the first of
 * `protocols` (the server's order of preference) that the client offered.
 */
export function checkHandshake(request: Request, protocols: readonly string[]): Handshake {
  const headers = request.headers;
  const upgrade = headers.get("upgrade");
  const key = headers.get("sec-websocket-key");
  const version = headers.get("sec-websocket-version");
  // 1. a handshake at all: Upgrade names websocket, or the client sent a key or a version
  const websocket = hasToken(upgrade, "websocket");
  if (!websocket && key === null && version === null) return NONE;
  // 2. the method, then the fields of §4.2.1 in its order
  if (request.method !== "GET") {
    return refuse(400, `A WebSocket handshake must use GET, not ${request.method}`);
  }
  if (!websocket) return refuse(400, 'The Upgrade header must contain "websocket"');
  if (!hasToken(headers.get("connection"), "upgrade")) {
    return refuse(400, 'The Connection header must contain "Upgrade"');
  }
  // 3. the version before the key: a client of another version may format its key differently
  if (version !== "13") {
    return refuse(
      426,
      version === null
        ? "The Sec-WebSocket-Version header is missing; this server speaks version 13"
        : "This server speaks WebSocket version 13 only",
    );
  }
  if (key === null) return refuse(400, "The Sec-WebSocket-Key header is missing");
  if (!KEY.test(key)) {
    return refuse(400, "The Sec-WebSocket-Key header is not the base64 encoding of 16 bytes");
  }
  // 4. subprotocol: none unless the client offered one the server speaks (§4.2.2 item 5.5)
  let protocol: string | undefined;
  if (protocols.length > 0) {
    const offered = headers.get("sec-websocket-protocol");
    if (offered !== null) {
      const list = parseList(offered);
      protocol = protocols.find((name) => list.includes(name));
    }
  }
  return { kind: "valid", protocol };
}
