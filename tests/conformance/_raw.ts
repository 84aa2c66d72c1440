// A raw HTTP exchange over TCP for the conformance cases, on both runtimes (node:net): what a
// client such as curl would hide (framing, a cut body, a request no fetch() can send) shows here.
import { Buffer } from "node:buffer";
import * as net from "node:net";

/**
 * Sends `request` (a string as Latin-1, one byte per character) and returns everything that
 * came back once the server closed, read as Latin-1, within `ms`. The client keeps its side open
 * unless `halfClose`: Deno.serve drops an answer not yet written to a client that has ended its
 * side.
 */
export function rawExchange(
  port: number,
  request: string | Uint8Array,
  { halfClose = false, ms = 5_000 } = {},
): Promise<string> {
  return new Promise<string>((resolve, reject) => {
    const chunks: Buffer[] = [];
    const bytes = typeof request === "string" ? Buffer.from(request, "latin1") : request;
    const socket = net.connect(port, "127.0.0.1", () => {
      if (halfClose) socket.end(bytes);
      else socket.write(bytes);
    });
    const timer = setTimeout(() => {
      socket.destroy();
      const what = typeof request === "string"
        ? ` to ${JSON.stringify(request.slice(0, 200))}`
        : "";
      reject(new Error(`no answer${what} within ${ms / 1000} s`));
    }, ms);
    socket.on("data", (chunk: Buffer) => chunks.push(chunk));
    socket.on("error", () => {});
    socket.on("close", () => {
      clearTimeout(timer);
      resolve(Buffer.concat(chunks).toString("latin1"));
    });
  });
}
