// The Weft server of the real-time benchmark on Deno (see run.ts):
//   deno run -A bench/realtime/server_deno.ts <inprocess|redis> <port> [redis-url]
// GET /ws: a subscriber of "feed" (says "ready" once subscribed); GET /pub: every text message
// is published to "feed"; GET /events: an idle event stream attached to "feed".
import { createTopics, get, router, serve, sse, websocket } from "../../mod.ts";
import { redisTransport } from "../../lib/realtime/redis.ts";

const [mode, port, url] = Deno.args;
const topics = createTopics({
  transport: mode === "redis" ? await redisTransport({ url }) : undefined,
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
      onClose: (socket) => socket.ctx.get<() => void>("stop")?.(),
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
  onListen: () => console.log("listening"),
});
