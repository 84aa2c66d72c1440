// The client side of the real-time benchmark (see run.ts), on Node:
//   node bench/realtime/clients.mjs <ws|sio> <port> <subscribers> <messages>
// Opens the subscribers (WebSocket /ws, or Socket.IO), waits until each says it is
// subscribed, then publishes the messages through one publisher connection (WebSocket /pub,
// or a Socket.IO client with role=pub) as fast as it can, each stamped with its send time.
// Prints one JSON line: messages/s fully delivered, deliveries/s, p50 and p99 latency (ms).
import { WebSocket } from "ws";
import { io } from "socket.io-client";

const [protocol, port, subscribersArg, messagesArg] = process.argv.slice(2);
const subscribers = Number(subscribersArg);
const messages = Number(messagesArg);
const base = `127.0.0.1:${port}`;
const now = () => performance.timeOrigin + performance.now();
const latencies = new Float64Array(subscribers * messages);
let delivered = 0;
let last = 0;
let done;
const finished = new Promise((resolve) => done = resolve);

function receive(text) {
  const space = text.indexOf(" ");
  const at = now();
  latencies[delivered++] = at - Number(text.slice(space + 1));
  last = at;
  if (delivered === latencies.length) done();
}

function openSubscriber() {
  return new Promise((resolve, reject) => {
    if (protocol === "sio") {
      const socket = io(`http://${base}`, {
        transports: ["websocket"],
        forceNew: true,
      });
      socket.once("ready", () => resolve(socket));
      socket.on("m", receive);
      socket.once("connect_error", reject);
    } else {
      const socket = new WebSocket(`ws://${base}/ws`);
      socket.on("message", (data) => {
        const text = String(data);
        if (text === "ready") resolve(socket);
        else receive(text);
      });
      socket.once("error", reject);
    }
  });
}

function openPublisher() {
  return new Promise((resolve, reject) => {
    if (protocol === "sio") {
      const socket = io(`http://${base}`, {
        transports: ["websocket"],
        forceNew: true,
        query: { role: "pub" },
      });
      socket.once("connect", () => resolve((text) => socket.emit("m", text)));
      socket.once("connect_error", reject);
    } else {
      const socket = new WebSocket(`ws://${base}/pub`);
      socket.once("open", () => resolve((text) => socket.send(text)));
      socket.once("error", reject);
    }
  });
}

const sockets = [];
for (let i = 0; i < subscribers; i += 50) {
  const group = [];
  for (let j = i; j < Math.min(i + 50, subscribers); j++) {
    group.push(openSubscriber());
  }
  sockets.push(...await Promise.all(group));
}
const publish = await openPublisher();
const start = now();
for (let i = 0; i < messages; i++) {
  publish(`${i} ${now()}`);
  if (i % 20 === 19) await new Promise((resolve) => setImmediate(resolve));
}
const timeout = setTimeout(done, 60_000);
await finished;
clearTimeout(timeout);
const seconds = (last - start) / 1000;
const sorted = latencies.subarray(0, delivered).sort();
const at = (q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN;
console.log(JSON.stringify({
  delivered,
  expected: subscribers * messages,
  messagesPerSecond: Math.round(messages / seconds),
  deliveriesPerSecond: Math.round(delivered / seconds),
  p50: Number(at(0.5).toFixed(2)),
  p99: Number(at(0.99).toFixed(2)),
}));
process.exit(0);
