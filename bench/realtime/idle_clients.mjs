// Idle connections for the memory part of the real-time benchmark (see run.ts):
//   node bench/realtime/idle_clients.mjs <ws|sse> <port> <count>
// Opens `count` WebSockets (/ws) or event streams (/events), prints "open", and holds them
// until it is killed.
import http from "node:http";
import { WebSocket } from "ws";

const [kind, port, countArg] = process.argv.slice(2);
const count = Number(countArg);
const held = [];

function open() {
  return new Promise((resolve, reject) => {
    if (kind === "ws") {
      const socket = new WebSocket(`ws://127.0.0.1:${port}/ws`);
      socket.once("message", () => resolve(socket)); // "ready"
      socket.once("error", reject);
    } else {
      const request = http.get(`http://127.0.0.1:${port}/events`, {
        agent: false,
      }, (res) => {
        res.once("data", () => resolve(request)); // the opening comment
      });
      request.once("error", reject);
    }
  });
}

for (let i = 0; i < count; i += 100) {
  const group = [];
  for (let j = i; j < Math.min(i + 100, count); j++) group.push(open());
  held.push(...await Promise.all(group));
}
console.log("open");
setInterval(() => {}, 1 << 30);
