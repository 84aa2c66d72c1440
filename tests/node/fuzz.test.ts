// The short fuzz run on Node: the fuzz app (tests/fuzz/app.js) served by the npm build in a
// child process (fuzz_server.mjs), 2,000 requests or 20 s, with the generator, oracle and
// report that tests/fuzz/fuzz_test.ts uses on Deno. The seed changes every run unless
// WEFT_FUZZ_SEED is set; failing cases are written to .ci/out/fuzz/ for
// `deno task fuzz --replay <file>`.
import * as net from "node:net";
import { expect, test } from "vitest";
import { shortFuzz, startFuzzServer } from "../fuzz/servers.ts";

const seed = Number(process.env.WEFT_FUZZ_SEED ?? Math.floor(Math.random() * 2 ** 31));

test(
  "fuzzing serve() on Node with raw HTTP/1.1 and HTTP/2 finds no malformed answer, no 5xx and no crash",
  () => shortFuzz("node", seed, "../../.ci/out/fuzz", (name) => process.env[name]),
  90_000,
);

test(
  "an accepted upgrade pipelined behind a request whose answer is still being made waits for it",
  async () => {
    const { server, stop } = await startFuzzServer("node", 60_000);
    try {
      const socket = net.connect(server.port, "127.0.0.1");
      socket.on("error", () => {});
      const received: Buffer[] = [];
      socket.on("data", (chunk: Buffer) => received.push(chunk));
      // A static file with ranges (answered after a file-system read), then a valid handshake
      // in the same packet: the 206 must come first, then the 101.
      socket.write(
        "GET /static/link_inside.txt HTTP/1.1\r\nHost: 127.0.0.1\r\nRange: bytes=1-2, 3-4\r\n\r\n" +
          "GET /ws HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: upgrade\r\n" +
          "Sec-WebSocket-Key: ZekLJhALy8nEsrch54UsJQ==\r\nSec-WebSocket-Version: 13\r\n\r\n",
      );
      const both = new Promise<"both">((resolve) => {
        const check = () => {
          if (/HTTP\/1\.1 101 /.test(Buffer.concat(received).toString("latin1"))) resolve("both");
        };
        socket.on("data", check);
      });
      const deadline = new Promise<"timeout">((resolve) => setTimeout(resolve, 5_000, "timeout"));
      const outcome = await Promise.race([both, deadline]);
      socket.destroy();
      const text = Buffer.concat(received).toString("latin1");
      expect(outcome, `the server to answer both requests: ${text}`).toBe("both");
      expect(text.match(/HTTP\/1\.1 \d{3} /g)?.[0], text).not.toBe("HTTP/1.1 101 ");
      expect(text.match(/HTTP\/1\.1 \d{3} /g)?.length, text).toBe(2);
      expect(server.alive(), server.output()).toBe(true);
    } finally {
      await stop();
    }
  },
  90_000,
);

// Found by the fuzzer: an upgrade the app refuses, pipelined behind another request, crashed
// the process (ERR_HTTP_SOCKET_ASSIGNED).
test(
  "a refused upgrade pipelined behind another request is answered and leaves the server alive",
  async () => {
    const { server, stop } = await startFuzzServer("node", 60_000);
    try {
      const socket = net.connect(server.port, "127.0.0.1");
      socket.on("error", () => {});
      const received: Buffer[] = [];
      socket.on("data", (chunk: Buffer) => received.push(chunk));
      const closed = new Promise<void>((resolve) => socket.on("close", () => resolve()));
      socket.write(
        "GET / HTTP/1.1\r\nHost: x\r\n\r\n" +
          "GET /ws HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: h2c\r\n\r\n",
      );
      const deadline = new Promise<"timeout">((resolve) => setTimeout(resolve, 5_000, "timeout"));
      const outcome = await Promise.race([closed, deadline]);
      socket.destroy();
      expect(outcome, "the server to answer both requests and close").not.toBe("timeout");
      const text = Buffer.concat(received).toString("latin1");
      expect(text.match(/HTTP\/1\.1 \d{3} /g)?.length, text).toBe(2);
      expect(server.alive(), server.output()).toBe(true);
    } finally {
      await stop();
    }
  },
  90_000,
);
