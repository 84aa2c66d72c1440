// The soak test's clients: a mixed open-loop load (HTTP/1.1 keep-alive, h2c, WebSocket echo,
// static files with Range and If-None-Match, JSON decode) at a fixed rate, and hostile clients
// in the background (slowloris headers, abandoned chunked bodies, oversized headers). Every
// loop is bounded by the run's deadline; every socket is closed by stop().
import { Buffer } from "node:buffer";
import * as http from "node:http";
import * as http2 from "node:http2";
import * as net from "node:net";

/** What the mix needs to know about the server. */
export interface Target {
  port: number;
  /** ETag of /static/hello.txt, for 304s. */
  etag: string;
}

type Shot = (target: Target) => Promise<string | null>; // null: ok; else what went wrong

const ORDER = JSON.stringify({ id: 7, item: "soak", tags: ["a", "b"] });

function h1(
  agent: http.Agent,
  target: Target,
  path: string,
  init: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<{ status: number; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = http.request({
      host: "127.0.0.1",
      port: target.port,
      path,
      method: init.method ?? "GET",
      headers: init.headers,
      agent,
      timeout: 10_000,
    }, (res) => {
      const parts: Buffer[] = [];
      res.on("data", (chunk: Buffer) => parts.push(chunk));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(parts) }));
      res.on("error", reject);
    });
    req.on("timeout", () => req.destroy(new Error("timeout")));
    req.on("error", reject);
    req.end(init.body);
  });
}

function expect(status: number, want: number, body?: Buffer, length?: number): string | null {
  if (status !== want) return `status ${status}, wanted ${want}`;
  if (body !== undefined && length !== undefined && body.length !== length) {
    return `body of ${body.length} bytes, wanted ${length}`;
  }
  return null;
}

/** The HTTP/1.1 part of the mix, by name, with weights. */
export function http1Shots(agent: http.Agent): [string, number, Shot][] {
  return [
    ["h1 json", 4, async (t) => {
      const r = await h1(agent, t, "/hello/soak");
      return expect(r.status, 200, r.body, 16);
    }],
    ["h1 params", 2, async (t) => {
      const r = await h1(agent, t, "/users/1/posts/2");
      return expect(r.status, 200);
    }],
    ["h1 static 304", 2, async (t) => {
      const r = await h1(agent, t, "/static/hello.txt", { headers: { "if-none-match": t.etag } });
      return expect(r.status, 304, r.body, 0);
    }],
    ["h1 static range", 2, async (t) => {
      const r = await h1(agent, t, "/static/big.bin", { headers: { range: "bytes=1000-1999" } });
      return expect(r.status, 206, r.body, 1000);
    }],
    ["h1 decode", 2, async (t) => {
      const r = await h1(agent, t, "/decode", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: ORDER,
      });
      return expect(r.status, 200, r.body, ORDER.length);
    }],
  ];
}

/** An h2c session with the HTTP/2 part of the mix; reconnects when the session ends. */
export class H2Client {
  #port: number;
  #session: http2.ClientHttp2Session | undefined;

  constructor(port: number) {
    this.#port = port;
  }

  #connect(): http2.ClientHttp2Session {
    if (this.#session === undefined || this.#session.closed || this.#session.destroyed) {
      const session = http2.connect(`http://127.0.0.1:${this.#port}`);
      session.on("error", () => {});
      this.#session = session;
    }
    return this.#session;
  }

  request(
    path: string,
    headers: Record<string, string> = {},
  ): Promise<{ status: number; length: number }> {
    return new Promise((resolve, reject) => {
      const stream = this.#connect().request({ ":path": path, ...headers });
      let status = 0;
      let length = 0;
      const timer = setTimeout(() => stream.close(http2.constants.NGHTTP2_CANCEL), 10_000);
      stream.on("response", (h) => status = Number(h[":status"]));
      stream.on("data", (chunk: Buffer) => length += chunk.length);
      stream.on("end", () => {
        clearTimeout(timer);
        resolve({ status, length });
      });
      stream.on("error", (error) => {
        clearTimeout(timer);
        reject(error);
      });
      stream.on("close", () => {
        clearTimeout(timer);
        if (status === 0) reject(new Error(`h2 stream closed with code ${stream.rstCode}`));
      });
      stream.end();
    });
  }

  shots(): [string, number, Shot][] {
    return [
      ["h2 json", 3, async () => {
        const r = await this.request("/hello/h2");
        return r.status === 200 && r.length === 14 ? null : `status ${r.status}, ${r.length} bytes`;
      }],
      ["h2 static range", 1, async () => {
        const r = await this.request("/static/big.bin", { range: "bytes=0-4095" });
        return r.status === 206 && r.length === 4096
          ? null
          : `status ${r.status}, ${r.length} bytes`;
      }],
      ["h2 static 304", 1, async (t) => {
        const r = await this.request("/static/hello.txt", { "if-none-match": t.etag });
        return r.status === 304 ? null : `status ${r.status}`;
      }],
    ];
  }

  close(): void {
    this.#session?.destroy();
  }
}

/** WebSocket echo round trips over a few long-lived sockets, with one new socket now and then. */
export class WsClients {
  #port: number;
  #sockets: WebSocket[] = [];
  #next = 0;
  #opened = 0;

  constructor(port: number) {
    this.#port = port;
  }

  #open(): Promise<WebSocket> {
    return new Promise((resolve, reject) => {
      const ws = new WebSocket(`ws://127.0.0.1:${this.#port}/ws`);
      const timer = setTimeout(() => {
        ws.close();
        reject(new Error("WebSocket open timeout"));
      }, 10_000);
      ws.onopen = () => {
        clearTimeout(timer);
        resolve(ws);
      };
      ws.onerror = () => {
        clearTimeout(timer);
        reject(new Error("WebSocket error"));
      };
    });
  }

  async #roundTrip(ws: WebSocket): Promise<string | null> {
    const text = `soak ${this.#opened}-${Math.random()}`;
    const reply = await new Promise<string>((resolve, reject) => {
      // a listener left behind by a timed-out echo would run on every later message of the socket
      const timer = setTimeout(() => {
        ws.removeEventListener("message", onMessage);
        reject(new Error("echo timeout"));
      }, 10_000);
      const onMessage = (event: MessageEvent) => {
        if (event.data !== text) return;
        clearTimeout(timer);
        ws.removeEventListener("message", onMessage);
        resolve(event.data);
      };
      ws.addEventListener("message", onMessage);
      ws.send(text);
    });
    return reply === text ? null : "wrong echo";
  }

  shots(): [string, number, Shot][] {
    return [
      ["ws echo", 3, async () => {
        if (this.#sockets.length < 4) {
          this.#opened++;
          this.#sockets.push(await this.#open());
        }
        const ws = this.#sockets[this.#next++ % this.#sockets.length];
        if (ws.readyState !== WebSocket.OPEN) {
          this.#sockets.splice(this.#sockets.indexOf(ws), 1);
          return "socket closed under load";
        }
        return await this.#roundTrip(ws);
      }],
      ["ws open-echo-close", 1, async () => {
        this.#opened++;
        const ws = await this.#open();
        try {
          return await this.#roundTrip(ws);
        } finally {
          ws.close(1000);
        }
      }],
    ];
  }

  close(): void {
    for (const ws of this.#sockets) ws.close(1000);
    this.#sockets = [];
  }
}

/**
 * Picks shots by weight, deterministically: every run of `wheel.length` picks holds each shot
 * `weight` times, in an order that mixes them (a stride prime to the wheel's length visits every
 * slot once). `offset` starts a process elsewhere on the wheel.
 */
export function schedule(shots: [string, number, Shot][], offset = 0): () => [string, Shot] {
  const wheel: [string, Shot][] = shots.flatMap(([name, weight, shot]) =>
    Array.from({ length: weight }, () => [name, shot] as [string, Shot])
  );
  const gcd = (a: number, b: number): number => b === 0 ? a : gcd(b, a % b);
  let stride = 7;
  while (gcd(stride, wheel.length) !== 1) stride++;
  let i = offset % wheel.length;
  return () => wheel[i = (i + stride) % wheel.length];
}

/** Hostile clients that keep a few bad connections going until stop(). */
export class Hostile {
  #port: number;
  #sockets = new Set<net.Socket>();
  #timers: ReturnType<typeof setInterval>[] = [];
  counts = { slowloris: 0, abandoned: 0, oversized: 0, oversizedAnswered: 0 };

  constructor(port: number) {
    this.#port = port;
  }

  #socket(): net.Socket {
    const socket = net.connect(this.#port, "127.0.0.1");
    // read what arrives (and drop it), so that a connection the server ends is seen to close
    // and a slowloris connection cut by headersTimeout is replaced
    socket.resume();
    socket.on("error", () => {});
    socket.on("close", () => this.#sockets.delete(socket));
    this.#sockets.add(socket);
    return socket;
  }

  start(): void {
    // 1. slowloris: 8 connections that send one header line a second and never finish
    this.#timers.push(setInterval(() => {
      let open = 0;
      for (const s of this.#sockets) if ((s as { slow?: boolean }).slow) open++;
      for (; open < 8; open++) {
        const s = this.#socket() as net.Socket & { slow?: boolean };
        s.slow = true;
        this.counts.slowloris++;
        s.write("GET /hello/slow HTTP/1.1\r\nHost: x\r\n");
      }
      for (const s of this.#sockets) {
        if ((s as { slow?: boolean }).slow && !s.destroyed) s.write(`X-Drip-${Date.now()}: 1\r\n`);
      }
    }, 1_000));
    // 2. a chunked body begun and abandoned, twice a second
    this.#timers.push(setInterval(() => {
      const s = this.#socket();
      this.counts.abandoned++;
      s.write(
        "POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n10\r\nhalf a chun",
      );
      setTimeout(() => s.destroy(), 300 + Math.floor(Math.random() * 1_000));
    }, 500));
    // 3. a 32 KiB header, twice a second (431 or a close)
    this.#timers.push(setInterval(() => {
      const s = this.#socket();
      this.counts.oversized++;
      s.on("data", () => {
        this.counts.oversizedAnswered++;
        s.destroy();
      });
      s.write(`GET /hello/big HTTP/1.1\r\nHost: x\r\nX-Big: ${"v".repeat(32 * 1024)}\r\n\r\n`);
      setTimeout(() => s.destroy(), 2_000);
    }, 500));
  }

  stop(): void {
    for (const timer of this.#timers) clearInterval(timer);
    for (const s of this.#sockets) s.destroy();
    this.#sockets.clear();
  }
}
