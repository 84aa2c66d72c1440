// An event-stream client for the conformance cases, over node:http and node:http2 (which both
// runtimes implement), so a case can read the raw text, parse it as a browser would (WHATWG
// HTML §9.2.6), and go away in the middle: close the socket, or reset the HTTP/2 stream.
import http from "node:http";
import http2 from "node:http2";
import { withDeadline } from "../_deadline.ts";

/** An event as the client dispatches it. */
export interface ParsedEvent {
  type: string;
  data: string;
  lastEventId: string;
}

/** The parsing half of an EventSource: feed it text, read the events it dispatched. */
export class EventParser {
  readonly events: ParsedEvent[] = [];
  comments = 0;
  retry: number | undefined;
  #pending = "";
  #type = "";
  #data: string[] = [];
  #lastEventId = "";

  feed(text: string): void {
    this.#pending += text;
    for (;;) {
      const match = /\r\n|\r|\n/.exec(this.#pending);
      // A CR at the very end may be the first half of a CRLF: wait for more.
      if (match === null || (match[0] === "\r" && match.index === this.#pending.length - 1)) {
        return;
      }
      const line = this.#pending.slice(0, match.index);
      this.#pending = this.#pending.slice(match.index + match[0].length);
      this.#line(line);
    }
  }

  #line(line: string): void {
    if (line === "") {
      if (this.#data.length > 0) {
        this.events.push({
          type: this.#type || "message",
          data: this.#data.join("\n"),
          lastEventId: this.#lastEventId,
        });
      }
      this.#type = "";
      this.#data = [];
      return;
    }
    if (line.startsWith(":")) {
      this.comments++;
      return;
    }
    const colon = line.indexOf(":");
    const name = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? "" : line.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    if (name === "event") this.#type = value;
    else if (name === "data") this.#data.push(value);
    else if (name === "id" && !value.includes("\0")) this.#lastEventId = value;
    else if (name === "retry" && /^\d+$/.test(value)) this.retry = Number(value);
  }
}

/** An open event stream. */
export interface SsePeer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** Everything received, as text. */
  readonly text: string;
  readonly parser: EventParser;
  /** Whether the server ended the response. */
  readonly ended: boolean;
  /** Waits (10 s at most) until `check()` holds; fails if the response ends first. */
  until(what: string, check: () => boolean, ms?: number): Promise<void>;
  /** Goes away: destroys the socket (HTTP/1.1) or resets the stream (HTTP/2). */
  close(): void;
  /** Stops reading, so that the server's writes pile up. */
  pause(): void;
  /** Reads again after pause(). */
  resume(): void;
}

interface Feed {
  text: string;
  ended: boolean;
  wake?: () => void;
}

function peer(
  status: number,
  headers: SsePeer["headers"],
  feed: Feed,
  parser: EventParser,
  close: () => void,
  pause: () => void,
  resume: () => void,
): SsePeer {
  return {
    status,
    headers,
    parser,
    get text() {
      return feed.text;
    },
    get ended() {
      return feed.ended;
    },
    until(what, check, ms = 10_000) {
      let expired = false;
      return withDeadline(
        (async () => {
          while (!check() && !expired) {
            if (feed.ended) throw new Error(`The response ended before ${what}:\n${feed.text}`);
            await new Promise<void>((resolve) => {
              feed.wake = resolve;
              setTimeout(resolve, 50);
            });
          }
        })(),
        ms,
        what,
        { onTimeout: () => expired = true },
      );
    },
    close,
    pause,
    resume,
  };
}

function reader(feed: Feed, parser: EventParser) {
  const decoder = new TextDecoder();
  return {
    data(chunk: Uint8Array) {
      const text = decoder.decode(chunk, { stream: true });
      feed.text += text;
      parser.feed(text);
      feed.wake?.();
    },
    end() {
      feed.ended = true;
      feed.wake?.();
    },
  };
}

/** GET over HTTP/1.1 with node:http; resolves once the head has arrived. */
export function openHttp1(
  url: string,
  headers: Record<string, string> = {},
  method = "GET",
): Promise<SsePeer> {
  const feed: Feed = { text: "", ended: false };
  const parser = new EventParser();
  const on = reader(feed, parser);
  return withDeadline(
    new Promise<SsePeer>((resolve, reject) => {
      const request = http.request(url, { method, headers, agent: false }, (response) => {
        response.on("data", on.data);
        response.on("end", on.end);
        response.on("close", on.end);
        response.on("error", on.end);
        resolve(peer(
          response.statusCode ?? 0,
          response.headers,
          feed,
          parser,
          () => request.destroy(),
          () => response.pause(),
          () => response.resume(),
        ));
      });
      request.on("error", (error) => {
        on.end();
        reject(error);
      });
      request.end();
    }),
    10_000,
    `a response head from ${url}`,
  );
}

/** GET over HTTP/2 (TLS with `ca`, else h2c) with node:http2; resolves once the head arrived. */
export function openHttp2(
  origin: string,
  path: string,
  options: { ca?: string; headers?: Record<string, string> } = {},
): Promise<SsePeer & { session: http2.ClientHttp2Session }> {
  const feed: Feed = { text: "", ended: false };
  const parser = new EventParser();
  const on = reader(feed, parser);
  const session = http2.connect(origin, options.ca === undefined ? {} : { ca: options.ca });
  session.on("error", () => on.end());
  const stream = session.request({ ":path": path, ...options.headers });
  return withDeadline(
    new Promise<SsePeer & { session: http2.ClientHttp2Session }>((resolve, reject) => {
      stream.on("response", (headers) => {
        stream.on("data", on.data);
        stream.on("end", on.end);
        stream.on("close", on.end);
        const open = peer(
          Number(headers[":status"]),
          headers as SsePeer["headers"],
          feed,
          parser,
          () => {
            stream.close(http2.constants.NGHTTP2_CANCEL);
            session.close();
          },
          () => stream.pause(),
          () => stream.resume(),
        );
        // Not a spread: that would copy the getters' current values.
        resolve(Object.assign(open, { session }));
      });
      stream.on("error", (error) => {
        on.end();
        reject(error);
      });
    }),
    10_000,
    `a response head from ${origin}${path}`,
    { onTimeout: () => session.destroy() },
  );
}
