// The Node servers of the real-time benchmark (see run.ts), same routes as server_deno.ts:
//   node bench/realtime/servers.mjs <kind> <port> [redis-url]
// kinds: weft-inprocess, weft-redis (the npm build of Weft), ws-ioredis (the same fan-out
// written by hand on ws and ioredis), socketio-redis (Socket.IO with its Redis adapter; its
// clients speak Socket.IO, see sio_clients.mjs).
import http from "node:http";
import { Redis } from "ioredis";
import { WebSocketServer } from "ws";

const [kind, port, url] = process.argv.slice(2);
const listening = () => console.log("listening");

if (kind === "weft-inprocess" || kind === "weft-redis") {
  const { createTopics, get, router, serve, sse, websocket } = await import(
    "weft"
  );
  const { redisTransport } = await import("weft/redis");
  const topics = createTopics({
    transport: kind === "weft-redis" ? await redisTransport({ url }) : undefined,
  });
  const app = router([
    get(
      "/ws",
      websocket({
        async onOpen(socket) {
          socket.ctx.set("stop", topics.attach(socket, ["feed"]));
          await topics.ready("feed");
          socket.send("ready");
        },
        onClose: (socket) => socket.ctx.get("stop")?.(),
      }, { idleTimeout: 0 }),
    ),
    get(
      "/pub",
      websocket({
        onMessage(_socket, frame) {
          if (frame.type === "text") {
            topics.publish("feed", frame.text).catch(() => {});
          }
        },
      }, { idleTimeout: 0 }),
    ),
    get("/events", (ctx) =>
      sse(ctx, async (stream) => {
        topics.attach(stream, ["feed"]);
        await stream.closed;
      })),
  ]);
  serve(app, {
    port: Number(port),
    hostname: "127.0.0.1",
    onListen: listening,
  });
} else if (kind === "ws-ioredis") {
  // What one writes by hand: a set of sockets, one subscriber connection, a loop.
  const pub = new Redis(url);
  const sub = new Redis(url);
  const clients = new Set();
  await sub.subscribe("weft:feed");
  sub.on("message", (_channel, message) => {
    for (const ws of clients) ws.send(message);
  });
  const server = http.createServer((_req, res) => res.writeHead(404).end());
  const wss = new WebSocketServer({ noServer: true });
  server.on("upgrade", (req, socket, head) => {
    wss.handleUpgrade(req, socket, head, (ws) => {
      if (req.url === "/ws") {
        clients.add(ws);
        ws.on("close", () => clients.delete(ws));
        ws.send("ready");
      } else {
        ws.on("message", (data) => pub.publish("weft:feed", String(data)));
      }
    });
  });
  server.listen(Number(port), "127.0.0.1", listening);
} else if (kind === "socketio-redis") {
  const { Server } = await import("socket.io");
  const { createAdapter } = await import("@socket.io/redis-adapter");
  const pub = new Redis(url);
  const sub = pub.duplicate();
  const io = new Server({ adapter: createAdapter(pub, sub) });
  io.on("connection", (socket) => {
    if (socket.handshake.query.role === "pub") {
      socket.on("m", (message) => io.to("feed").emit("m", message));
    } else {
      socket.join("feed");
      socket.emit("ready");
    }
  });
  const server = http.createServer();
  io.attach(server);
  server.listen(Number(port), "127.0.0.1", listening);
} else {
  console.error(`unknown kind ${kind}`);
  process.exit(2);
}
