// The graceful-shutdown app (app.js) on Deno's serve():
//   deno run -A tests/shutdown/server_deno.ts
import * as weft from "../../mod.ts";
import { shutdownApp } from "./app.js";

const { app, onSignals } = shutdownApp(weft, (line) => console.log(line));
const server = weft.serve(app, {
  port: 0,
  hostname: "127.0.0.1",
  onListen: () => {},
});
onSignals(
  server,
  (signal, listener) => Deno.addSignalListener(signal as Deno.Signal, listener),
  (code) => Deno.exit(code),
);
// Signal handlers are installed asynchronously: "ready" waits a moment so that a SIGTERM sent
// right after it is not the runtime's default (death by signal).
setTimeout(() => console.log(`ready ${server.addr.port}`), 100);
