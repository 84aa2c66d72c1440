// The WebSocket handshake through `ws`, in a module of its own that lib/server/_node_ws.ts loads
// on the first upgrade an app accepts: apps that never accept a WebSocket load neither it nor
// `ws`, and bundlers that split code put both in a chunk of their own (the Node core size
// budget, scripts/size_check.ts).
import type { Buffer } from "node:buffer";
import type * as http from "node:http";
import type { Socket } from "node:net";
// @ts-types="@types/ws"
import * as Ws from "ws";
import type { RuntimeUpgradeOptions } from "./types.ts";

const WebSocketServer = (Ws as typeof Ws & { default?: typeof Ws }).WebSocketServer ??
  (Ws as typeof Ws & { default?: typeof Ws }).default?.WebSocketServer;

// The 101 response's own fields, which `ws` writes.
const WS_OWN = new Set(["connection", "upgrade", "sec-websocket-accept", "sec-websocket-protocol"]);

/**
 * Completes the handshake of an upgrade with `ws` in `noServer` mode: the 101 goes out with
 * every header `response` carries, and `bind` receives the open socket.
 */
export function handshake(
  upgrade: { incoming: http.IncomingMessage; socket: Socket; head: Buffer },
  response: Response,
  options: RuntimeUpgradeOptions,
  bind: (ws: Ws.WebSocket) => void,
): void {
  const wss = new WebSocketServer({
    noServer: true,
    maxPayload: options.maxMessageBytes,
    perMessageDeflate: false,
    clientTracking: false,
    handleProtocols: () => options.protocol ?? false,
  });
  wss.on("headers", (lines: string[]) => {
    for (const [name, value] of response.headers) {
      if (!WS_OWN.has(name)) lines.push(`${name}: ${value}`);
    }
  });
  wss.handleUpgrade(upgrade.incoming, upgrade.socket, upgrade.head, bind);
}
