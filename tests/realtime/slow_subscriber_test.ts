// A WebSocket subscriber that stops reading, alone and among clients that read, on Deno's
// serve() (tests/realtime/slow_subscriber_cases.ts; tests/node/realtime.test.ts runs the same
// cases on Node).
import * as weft from "../../mod.ts";
import { slowSubscriberCases } from "./slow_subscriber_cases.ts";

for (const [name, run] of Object.entries(slowSubscriberCases)) {
  Deno.test(`on Deno: ${name}`, () => run(weft));
}
