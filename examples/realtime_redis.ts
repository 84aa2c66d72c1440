/**
 * A live feed shared by several processes through Redis: run two (or more) of these on
 * different ports against one Redis, and a message published through any of them reaches the
 * WebSocket and event-stream clients of all of them.
 *
 * ```sh
 * redis-server --port 6379 --save "" --appendonly no &
 * PORT=8001 deno run -A examples/realtime_redis.ts &
 * PORT=8002 deno run -A examples/realtime_redis.ts &
 * curl -N http://127.0.0.1:8002/events &            # an event-stream client on one process
 * curl -X POST --data 'hello' http://127.0.0.1:8001/publish   # published through the other
 * ```
 *
 * Routes: `GET /ws` (WebSocket) and `GET /events` (server-sent events) receive every message
 * of the `feed` topic, each starting with a `hello` message naming the process; `POST /publish`
 * publishes its body, or with `Content-Type: application/json` a JSON array of strings, in
 * order. Environment: `PORT` (8000), `REDIS_URL` (`redis://127.0.0.1:6379`).
 *
 * @module
 */
import {
  createTopics,
  get,
  post,
  router,
  serve,
  sse,
  TopicsUnavailableError,
  websocket,
} from "../mod.ts";
import { redisTransport } from "../lib/realtime/redis.ts";

const port = Number(Deno.env.get("PORT") ?? 8000);
const url = Deno.env.get("REDIS_URL") ?? "redis://127.0.0.1:6379";
const name = `${Deno.pid}`;
const stop = new AbortController();
const topics = createTopics({ transport: await redisTransport({ url }) });

const app = router([
  get(
    "/ws",
    websocket({
      async onOpen(socket) {
        topics.attach(socket, ["feed"]); // the subscription ends as the socket closes
        await topics.ready("feed"); // Redis acknowledged the subscription: the feed flows
        socket.send(`hello ${name}`);
      },
    }),
  ),
  get("/events", (ctx) =>
    sse(ctx, async (stream) => {
      topics.attach(stream, ["feed"]);
      await topics.ready("feed");
      stream.send({ event: "hello", data: name });
      await stream.closed; // the server's shutdown ends the stream
    })),
  post("/publish", async (ctx) => {
    const body = new TextDecoder().decode(await ctx.body());
    let messages: unknown = [body];
    if (ctx.header("content-type") === "application/json") {
      try {
        messages = JSON.parse(body);
      } catch {
        messages = undefined;
      }
    }
    if (!Array.isArray(messages) || !messages.every((m) => typeof m === "string")) {
      return ctx.json({ error: "expected a JSON array of strings" }, { status: 400 });
    }
    try {
      // Called in order without waiting: one publisher's messages keep the order of its calls.
      await Promise.all(messages.map((message) => topics.publish("feed", message)));
    } catch (error) {
      if (error instanceof TopicsUnavailableError) {
        return ctx.json({ error: error.message }, { status: 503 });
      }
      throw error;
    }
    return ctx.json({ published: messages.length, by: name });
  }),
]);

const server = serve(app, {
  port,
  hostname: "127.0.0.1",
  signal: stop.signal,
  onListen: (addr) => console.log(`listening on http://${addr.hostname}:${addr.port} (${name})`),
});
Deno.addSignalListener("SIGTERM", () => stop.abort());
await server.finished;
await topics.close();
