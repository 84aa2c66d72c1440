// The graceful-shutdown app (tests/shutdown/app.js) on the npm build:
//   node tests/node/shutdown_server.mjs
import process from "node:process";
import * as weft from "weft";
import { shutdownApp } from "../shutdown/app.js";

const { app, onSignals } = shutdownApp(weft, (line) => console.log(line));
const server = weft.serve(app, {
  port: 0,
  hostname: "127.0.0.1",
  onListen: () => {},
});
onSignals(server, (signal, listener) => process.on(signal, listener), (code) => process.exit(code));
// Signal handlers are installed asynchronously: "ready" waits a moment so that a SIGTERM sent
// right after it is not the runtime's default (death by signal).
setTimeout(() => console.log(`ready ${server.addr.port}`), 100);
