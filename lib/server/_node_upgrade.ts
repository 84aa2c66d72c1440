// Answering an HTTP/1.1 request with `Upgrade`: a WebSocket handshake when the app accepted
// it, an HTTP/1.1 answer otherwise. Loaded by _node_http.ts on the first upgrade a server gets,
// so that apps that never see one do not load it, and bundlers that split code put it in a
// chunk of its own (the Node core size budget, scripts/size_check.ts). It imports no value of
// the eager modules: what it uses of them comes as an `Upgrading`, and it finds what
// upgradeWebSocket() (_node_ws.ts) left on a request or response under registered symbols.
import type { Buffer } from "node:buffer";
import type * as http from "node:http";
import type { Socket } from "node:net";
import type { ConnInfo } from "./types.ts";
import type { problem } from "../http/problem.ts";
import type { Lazy, lazy } from "./_node_lazy.ts";
import type { PendingSocket, SocketRegistry, Upgrade } from "./_node_ws.ts";

/** Called with an upgrade's request and connection facts before the app runs. */
export type Mark = (request: Request, info: ConnInfo) => void;

// _node_ws.ts's keys, made again from the registry: imported, they would put that module, which
// only apps that accept WebSockets use, in a chunk that every app loads.
const UPGRADE = Symbol.for("weft.upgrade");
const PENDING = Symbol.for("weft.pendingSocket");

/**
 * What answering an upgrade uses of the eager modules (_node_http.ts and its imports), for a
 * server whose state is `S`.
 */
export interface Upgrading<S extends SocketRegistry> {
  /** handle() for a node:http request. */
  readonly dispatch: (
    state: S,
    incoming: http.IncomingMessage,
    method: string,
    closer: Socket,
    mark: Mark,
  ) => Response | Promise<Response> | undefined;
  /** Answers over HTTP/1.1 and closes the connection (answerAndClose() of _node_http.ts). */
  readonly answerAndClose: (
    incoming: http.IncomingMessage,
    socket: Socket,
    response: Response,
  ) => void;
  readonly settle: (
    state: S,
    result: Response | Promise<Response>,
    done: (response: Response) => void,
  ) => void;
  /** The response node:http is writing on a socket, if any. */
  readonly writing: (socket: Socket | null) => http.ServerResponse | null | undefined;
  readonly problem: typeof problem;
  /** lazy() of _node_lazy.ts, for the WebSocket handshake. */
  readonly lazy: typeof lazy;
}

// `ws`, with the handshake that uses it, loads on the first upgrade an app accepts.
let handshakes: Lazy<typeof import("./_node_ws_handshake.ts")> | undefined;

/** Marks a request and its ConnInfo as an upgrade that upgradeWebSocket() may accept. */
function markUpgrade(request: Request, info: ConnInfo, upgrade: Upgrade): void {
  (request as unknown as Record<symbol, Upgrade>)[UPGRADE] = upgrade;
  (info as unknown as Record<symbol, Upgrade>)[UPGRADE] = upgrade;
}

/**
 * Completes the handshake when `response` is the 101 that upgradeWebSocket() made for this
 * upgrade; returns false otherwise (the caller answers over HTTP/1.1). When the handshake
 * cannot be loaded, `unavailable` answers instead.
 */
function acceptWebSocket(
  upgrade: Upgrade,
  response: Response,
  handshakes: Lazy<typeof import("./_node_ws_handshake.ts")>,
  unavailable: () => void,
): boolean {
  const pending = (response as unknown as Record<symbol, PendingSocket | undefined>)[PENDING];
  if (pending === undefined || pending.upgrade !== upgrade) return false;
  const accept = ({ handshake }: typeof import("./_node_ws_handshake.ts")) =>
    handshake(upgrade, response, pending.options, (ws) => pending.bind(ws));
  const module = handshakes.value;
  if (module === undefined) handshakes.load().then(accept, unavailable);
  else accept(module);
  return true;
}

/** Runs the app for an upgrade request of a server of `state` and answers it. */
export function onUpgrade<S extends SocketRegistry>(
  state: S,
  { answerAndClose, dispatch, lazy, problem, settle, writing }: Upgrading<S>,
  incoming: http.IncomingMessage,
  socket: Socket,
  head: Buffer,
): void {
  const upgrade: Upgrade = { incoming, socket, head, registry: state };
  const method = incoming.method ?? "GET";
  // Without a callback the app answers with a response or a promise of one.
  const mark = (request: Request, info: ConnInfo) => markUpgrade(request, info, upgrade);
  // node:http ends the body of a request with Upgrade at once (what follows the head belongs to
  // the upgraded connection): one that carries a body would reach the app empty, so it is
  // refused, as Deno.serve refuses it (a WebSocket handshake is a GET without one).
  const { "content-length": length, "transfer-encoding": coding } = incoming.headers;
  const result = coding !== undefined || (length !== undefined && length !== "0")
    ? problem({ status: 400, detail: "A request with Upgrade cannot carry a body here" })
    : dispatch(state, incoming, method, socket, mark) as Response | Promise<Response>;
  // An upgrade pipelined behind another request gets the socket while that request's response
  // still holds it: whatever the answer (a 101 or a refusal), it waits for that response to
  // finish, so that the responses leave in the order of the requests (assigning the socket
  // earlier would also throw ERR_HTTP_SOCKET_ASSIGNED).
  settle(state, result, (response) => {
    // Not a WebSocket (an h2c upgrade offer, or the app refused), or the handshake could not
    // be loaded: an answer over HTTP/1.1, then the connection closes.
    const proceed = () => {
      handshakes ??= lazy("the WebSocket handshake (ws)", () => import("./_node_ws_handshake.ts"));
      const unavailable = () => answerAndClose(incoming, socket, problem({ status: 500 }));
      if (!acceptWebSocket(upgrade, response, handshakes, unavailable)) {
        answerAndClose(incoming, socket, response);
      }
    };
    const busy = writing(socket);
    if (busy) busy.once("close", proceed);
    else proceed();
  });
}
