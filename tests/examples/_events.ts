// Reads server-sent events from a response body, one event at a time, under deadlines (the
// tests' reader for the demo's /api/feed; comments, which are heartbeats, are skipped).
import { withDeadline } from "../_deadline.ts";

/** One event: its type (`message` unless named) and its data lines joined with LF. */
export interface FeedEvent {
  event: string;
  data: string;
}

/** Reads `body` as an event stream: `next()` waits for the next event matching `wanted`. */
export function eventReader(body: ReadableStream<Uint8Array>): {
  next(what: string, wanted?: (event: FeedEvent) => boolean): Promise<FeedEvent>;
  seen: FeedEvent[];
  cancel(): Promise<void>;
} {
  const reader = body.pipeThrough(new TextDecoderStream()).getReader();
  const seen: FeedEvent[] = [];
  const queued: FeedEvent[] = [];
  let buffer = "";
  async function read(): Promise<FeedEvent> {
    while (queued.length === 0) {
      const { value, done } = await reader.read();
      if (done) throw new Error(`the stream ended after ${JSON.stringify(seen)}`);
      buffer += value.replaceAll("\r\n", "\n");
      let end;
      while ((end = buffer.indexOf("\n\n")) !== -1) {
        const lines = buffer.slice(0, end).split("\n").filter((line) => !line.startsWith(":"));
        buffer = buffer.slice(end + 2);
        if (lines.length === 0) continue;
        const field = (name: string) =>
          lines.filter((line) => line.startsWith(`${name}:`))
            .map((line) => line.slice(name.length + 1).replace(/^ /, ""));
        const event = { event: field("event")[0] ?? "message", data: field("data").join("\n") };
        seen.push(event);
        queued.push(event);
      }
    }
    return queued.shift()!;
  }
  return {
    seen,
    next(what, wanted = () => true) {
      return withDeadline(
        (async () => {
          for (;;) {
            const event = await read();
            if (wanted(event)) return event;
          }
        })(),
        15_000,
        what,
      );
    },
    cancel: () => reader.cancel().catch(() => {}),
  };
}
