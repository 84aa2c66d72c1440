// The text/event-stream wire format (WHATWG HTML §9.2.6, "Interpreting an event stream"):
// fields one per line, an event ended by a blank line, LF as the line end we write.

/** One event as `SseStream.send()` takes it. */
export interface SseEvent {
  /** The payload; CR, LF and CRLF split it into one `data:` line each. */
  data: string;
  /** The event type (`addEventListener(type, …)`); `message` when absent. */
  event?: string;
  /** The id a reconnecting client sends back as `Last-Event-ID`. */
  id?: string;
  /** The client's reconnection delay in milliseconds, from this event on. */
  retry?: number;
}

// CRLF first, so that it counts as one line end, not two.
const LINE_END = /\r\n|\r|\n/;

function field(what: string, value: string): string {
  // An event or id with a line end would start a field of the peer's choosing.
  if (LINE_END.test(value)) {
    throw new TypeError(
      `Cannot send the event: its ${what} contains a line break`,
    );
  }
  // UTF-8 has no lone surrogate: it would go out as U+FFFD, so a listener of that type would
  // never fire, and Last-Event-ID would come back as another id than the one sent.
  if (!value.isWellFormed()) {
    throw new TypeError(
      `Cannot send the event: its ${what} contains a lone surrogate, which UTF-8 cannot carry`,
    );
  }
  return value;
}

/** Serializes an event; throws a TypeError for a field the format cannot carry. */
export function formatEvent(event: SseEvent): string {
  if (
    typeof event !== "object" || event === null ||
    typeof event.data !== "string"
  ) {
    throw new TypeError("Cannot send the event: data must be a string");
  }
  let out = "";
  if (event.event !== undefined) {
    out += `event: ${field("event", String(event.event))}\n`;
  }
  if (event.id !== undefined) {
    const id = field("id", String(event.id));
    // §9.2.6: an id field whose value contains NULL is ignored by the client.
    if (id.includes("\0")) {
      throw new TypeError("Cannot send the event: its id contains NULL");
    }
    out += `id: ${id}\n`;
  }
  if (event.retry !== undefined) out += `retry: ${retryValue(event.retry)}\n`;
  for (const line of event.data.split(LINE_END)) out += `data: ${line}\n`;
  return out + "\n";
}

/** The retry field's value: ASCII digits only (§9.2.6), so a non-negative integer. */
export function retryValue(retry: number): number {
  if (!Number.isSafeInteger(retry) || retry < 0) {
    throw new RangeError(
      `Cannot send retry ${retry}: it must be a non-negative integer`,
    );
  }
  return retry;
}

/** Serializes a comment: every line starts with a colon, and the client ignores it. */
export function formatComment(text: string): string {
  let out = "";
  for (const line of String(text).split(LINE_END)) {
    out += line === "" ? ":\n" : `: ${line}\n`;
  }
  return out;
}
