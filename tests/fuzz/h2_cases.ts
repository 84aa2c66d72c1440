// Generates HTTP/2 fuzz cases as raw bytes (RFC 9113 frames, HPACK literals per RFC 7541 §6.2.2):
// a connection preface, SETTINGS and a few requests, then mutations of the frames, the header
// fields, the HPACK encoding and the bytes. h2_peer.py sends them and decodes the answer.
import { Random } from "./_random.ts";
import type { SentRequest } from "./http1_cases.ts";
import { TOKEN } from "./app.js";

/** One HTTP/2 fuzz case over one connection. */
export interface H2Case {
  bytes: Uint8Array;
  /** Client-initiated streams that carry a request, by id. */
  streams: Record<number, SentRequest>;
  /** Whether every stream is a well-formed request the server must answer. */
  complete: boolean;
  notes: string[];
}

const PREFACE = new TextEncoder().encode("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n");
const enc = new TextEncoder();

const Type = {
  DATA: 0,
  HEADERS: 1,
  PRIORITY: 2,
  RST: 3,
  SETTINGS: 4,
  PING: 6,
  GOAWAY: 7,
  WINDOW: 8,
  CONTINUATION: 9,
} as const;
const Flag = { END_STREAM: 1, ACK: 1, END_HEADERS: 4, PADDED: 8, PRIORITY: 0x20 } as const;

function frame(
  type: number,
  flags: number,
  stream: number,
  payload: Uint8Array = new Uint8Array(0),
): number[] {
  const n = payload.length;
  return [
    (n >>> 16) & 0xff,
    (n >>> 8) & 0xff,
    n & 0xff,
    type,
    flags,
    (stream >>> 24) & 0x7f,
    (stream >>> 16) & 0xff,
    (stream >>> 8) & 0xff,
    stream & 0xff,
    ...payload,
  ];
}

function u32(n: number): number[] {
  return [(n >>> 24) & 0xff, (n >>> 16) & 0xff, (n >>> 8) & 0xff, n & 0xff];
}

// RFC 7541 §5.1
function integer(value: number, prefixBits: number, first: number): number[] {
  const max = (1 << prefixBits) - 1;
  if (value < max) return [first | value];
  const out = [first | max];
  value -= max;
  while (value >= 128) {
    out.push((value % 128) + 128);
    value = Math.floor(value / 128);
  }
  out.push(value);
  return out;
}

function literal(name: string, value: string): number[] {
  const n = enc.encode(name);
  const v = enc.encode(value);
  return [0x00, ...integer(n.length, 7, 0), ...n, ...integer(v.length, 7, 0), ...v];
}

const PATHS = [
  "/",
  "/hello/h2",
  "/hello/%C3%A9",
  "/users/1/posts/2",
  "/files/a/b",
  "/dir",
  "/private",
  "/decode",
  "/echo",
  "/throw",
  "/stream",
  "/ws",
  "/nope",
  "/static/hello.txt",
  "/static/big.bin",
  "/static/app.js",
  "/static/../canary.txt",
  "/static/%2e%2e/canary.txt",
  "/static/.env",
  "/static/empty.txt",
  "/static/fifo",
];

interface Req {
  id: number;
  fields: [string, string][];
  body?: Uint8Array;
}

function request(rng: Random, id: number): Req {
  const path = rng.pick(PATHS);
  let method = rng.pick(["GET", "GET", "HEAD", "POST", "OPTIONS", "DELETE"]);
  if (path === "/decode" || path === "/echo") method = "POST";
  const fields: [string, string][] = [
    [":method", method],
    [":scheme", "http"],
    [":authority", "127.0.0.1"],
    [":path", path],
  ];
  if (rng.chance(0.3)) {
    fields.push([
      "range",
      rng.pick(["bytes=0-10", "bytes=-3", "bytes=5-", "bytes=0-1,4-5", "bytes=9999999-"]),
    ]);
  }
  if (rng.chance(0.2)) fields.push(["if-none-match", rng.pick(["*", '"x"', 'W/"y"'])]);
  if (rng.chance(0.15)) fields.push(["if-modified-since", "Tue, 14 Nov 2030 22:13:20 GMT"]);
  if (rng.chance(0.15)) fields.push(["cookie", "a=1"], ["cookie", "b=2"]);
  if (rng.chance(0.15)) fields.push(["origin", "https://a.example"]);
  if (path === "/private") {
    fields.push(["authorization", rng.pick([`Bearer ${TOKEN}`, "Bearer bad", "Basic x"])]);
  }
  let body: Uint8Array | undefined;
  if (method === "POST") {
    body = enc.encode(
      rng.pick(['{"id":1,"item":"x","tags":[]}', "{", "hello", "z".repeat(70_000)]),
    );
    if (rng.chance(0.7)) fields.push(["content-length", String(body.length)]);
  }
  return { id, fields, body };
}

function encodeRequest(r: Req): number[] {
  const block = r.fields.flatMap(([n, v]) => literal(n, v));
  const out = frame(
    Type.HEADERS,
    Flag.END_HEADERS | (r.body ? 0 : Flag.END_STREAM),
    r.id,
    Uint8Array.from(block),
  );
  if (r.body) {
    for (let i = 0; i < r.body.length; i += 16384) {
      const last = i + 16384 >= r.body.length;
      out.push(
        ...frame(Type.DATA, last ? Flag.END_STREAM : 0, r.id, r.body.subarray(i, i + 16384)),
      );
    }
    if (r.body.length === 0) out.push(...frame(Type.DATA, Flag.END_STREAM, r.id));
  }
  return out;
}

type FieldMutation = (r: Req, rng: Random) => string;

const FIELD_MUTATIONS: FieldMutation[] = [
  (r) => {
    r.fields = r.fields.filter(([n]) => n !== ":path");
    return "no :path";
  },
  (r) => {
    r.fields = r.fields.filter(([n]) => n !== ":method");
    return "no :method";
  },
  (r) => {
    r.fields = r.fields.filter(([n]) => n !== ":scheme");
    return "no :scheme";
  },
  (r) => {
    r.fields.push([":path", "/second"]);
    return "two :path";
  },
  (r) => {
    r.fields.unshift(["x-early", "1"]);
    return "regular field before pseudo-fields";
  },
  (r) => {
    r.fields.push([":bogus", "1"]);
    return "unknown pseudo-field";
  },
  (r, rng) => {
    r.fields.push([
      rng.pick(["X-Upper", "connection", "keep-alive", "transfer-encoding", "upgrade", "te"]),
      rng.pick(["1", "gzip", "chunked", "trailers"]),
    ]);
    return "connection-specific or upper-case field";
  },
  (r, rng) => {
    r.fields.push(["x-bad", rng.pick(["a\r\nb", "a\0b", " lead", "trail "])]);
    return "bad field value";
  },
  (r, rng) => {
    const i = r.fields.findIndex(([n]) => n === ":path");
    if (i >= 0) {
      r.fields[i] = [
        ":path",
        rng.pick(["", "*", "noslash", "http://x/y", "/" + "p".repeat(20_000), "/a b", "/%zz"]),
      ];
    }
    return "odd :path";
  },
  (r, rng) => {
    r.fields.push(["content-length", rng.pick(["5", "-1", "abc", "99999999999"])]);
    return "content-length that does not match";
  },
  (r) => {
    r.fields.push(["host", "other.example"]);
    return "host differs from :authority";
  },
  (r) => {
    r.fields.push(["x-big", "v".repeat(70_000)]);
    return "header over 64 KiB";
  },
  (r) => {
    r.fields.push([":method", "CONNECT"]);
    r.fields = r.fields.filter(([n]) => n !== ":path" && n !== ":scheme");
    return "CONNECT";
  },
];

type FrameMutation = (frames: number[][], rng: Random, nextId: number) => string;

const FRAME_MUTATIONS: FrameMutation[] = [
  (f) => {
    f.unshift(frame(Type.SETTINGS, 0, 0, Uint8Array.from([0, 2, ...u32(2)])));
    return "SETTINGS_ENABLE_PUSH=2";
  },
  (f, rng) => {
    f.unshift(
      frame(Type.SETTINGS, 0, 0, Uint8Array.from([0, 4, ...u32(rng.pick([0x80000000, 0]))])),
    );
    return "SETTINGS_INITIAL_WINDOW_SIZE extreme";
  },
  (f) => {
    f.unshift(frame(Type.SETTINGS, 0, 0, Uint8Array.from([0, 5, ...u32(100)])));
    return "SETTINGS_MAX_FRAME_SIZE too small";
  },
  (f) => {
    f.unshift(frame(Type.SETTINGS, 0, 0, Uint8Array.from([0, 1])));
    return "SETTINGS of 2 bytes";
  },
  (f) => {
    f.push(frame(Type.PING, 0, 0, new Uint8Array(7)));
    return "PING of 7 bytes";
  },
  (f) => {
    f.push(frame(Type.WINDOW, 0, 0, Uint8Array.from(u32(0))));
    return "WINDOW_UPDATE 0 on the connection";
  },
  (f) => {
    f.push(
      frame(Type.WINDOW, 0, 0, Uint8Array.from(u32(0x7fffffff))),
      frame(Type.WINDOW, 0, 0, Uint8Array.from(u32(0x7fffffff))),
    );
    return "connection window overflow";
  },
  (f) => {
    f.push(frame(Type.PRIORITY, 0, 1, Uint8Array.from([0, 0, 0, 1, 16])));
    return "PRIORITY depending on itself";
  },
  (f) => {
    f.push(frame(Type.RST, 0, 99, Uint8Array.from(u32(8))));
    return "RST_STREAM on an idle stream";
  },
  (f) => {
    f.push(frame(Type.DATA, 0, 0, Uint8Array.from([1, 2])));
    return "DATA on stream 0";
  },
  (f) => {
    f.push(
      frame(
        Type.HEADERS,
        Flag.END_HEADERS | Flag.END_STREAM,
        2,
        Uint8Array.from([0x82, 0x84, 0x86]),
      ),
    );
    return "HEADERS on an even stream";
  },
  (f) => {
    f.push(frame(0xfa, 0xff, 0, Uint8Array.from([1, 2, 3])));
    return "unknown frame type (to be ignored)";
  },
  (f, rng) => {
    const block = rng.pick([[0x80], [0xbf, 0x7f], [0x3f, 0xe1, 0xff, 0xff, 0x0f], [
      0x00,
      0x7f,
      0xff,
      0xff,
      0xff,
      0x7f,
    ], [0x82, 0x84]]);
    f.push(frame(Type.HEADERS, Flag.END_HEADERS | Flag.END_STREAM, 101, Uint8Array.from(block)));
    return `bad HPACK block ${JSON.stringify(block)}`;
  },
  (f, rng) => {
    // padded HEADERS whose pad length is at least the payload
    f.push(
      frame(
        Type.HEADERS,
        Flag.END_HEADERS | Flag.END_STREAM | Flag.PADDED,
        103,
        Uint8Array.from([rng.pick([3, 200]), 0x82, 0x84]),
      ),
    );
    return "over-long padding";
  },
  (f) => {
    f.push(
      frame(Type.HEADERS, Flag.END_STREAM, 105, Uint8Array.from([0x82, 0x86])),
      frame(Type.PING, 0, 0, new Uint8Array(8)),
    );
    return "a frame inside a header block";
  },
  (f) => {
    f.push(frame(Type.CONTINUATION, Flag.END_HEADERS, 107, Uint8Array.from([0x84])));
    return "CONTINUATION without HEADERS";
  },
  (f, _rng, nextId) => {
    // rapid reset (CVE-2023-44487): bounded
    for (let i = 0; i < 200; i++) {
      f.push(
        frame(
          Type.HEADERS,
          Flag.END_HEADERS | Flag.END_STREAM,
          nextId + 2 * i,
          Uint8Array.from([0x82, 0x84, 0x86, ...literal(":authority", "x")]),
        ),
      );
      f.push(frame(Type.RST, 0, nextId + 2 * i, Uint8Array.from(u32(8))));
    }
    return "200 HEADERS each reset at once";
  },
  (f, _rng, nextId) => {
    for (let i = 0; i < 300; i++) {
      f.push(
        frame(
          Type.HEADERS,
          Flag.END_HEADERS,
          nextId + 2 * i,
          Uint8Array.from([0x83, 0x84, 0x86, ...literal(":authority", "x")]),
        ),
      );
    }
    return "300 open POST streams without bodies";
  },
  (f) => {
    f.push(frame(Type.DATA, 0, 1, new Uint8Array(20_000)));
    return "DATA larger than the frame size limit";
  },
  (f) => {
    f.push(frame(Type.GOAWAY, 0, 0, Uint8Array.from([...u32(0), ...u32(0)])));
    return "client GOAWAY";
  },
  (f, rng) => {
    const i = rng.int(f.length);
    const copy = [...f[i]];
    copy[3] = rng.int(10);
    copy[4] = rng.int(256);
    f[i] = copy;
    return `frame ${i} type/flags changed`;
  },
  (f, rng) => {
    const i = rng.int(f.length);
    const copy = [...f[i]];
    copy[2] = (copy[2] + 1 + rng.int(5)) & 0xff;
    f[i] = copy;
    return `frame ${i} length changed`;
  },
];

/** Generates one case from its seed. */
export function h2Case(seed: number): H2Case {
  const rng = new Random(seed);
  const notes: string[] = [];
  const reqs: Req[] = [];
  const count = 1 + rng.int(3);
  for (let i = 0; i < count; i++) reqs.push(request(rng, 1 + 2 * i));
  let complete = true;
  for (const r of reqs) {
    if (rng.chance(0.25)) {
      notes.push(`stream ${r.id}: ${rng.pick(FIELD_MUTATIONS)(r, rng)}`);
      complete = false;
    }
  }
  const frames: number[][] = [frame(Type.SETTINGS, 0, 0)];
  for (const r of reqs) frames.push(encodeRequest(r));
  if (rng.chance(0.35)) {
    notes.push(rng.pick(FRAME_MUTATIONS)(frames, rng, 1 + 2 * count));
    complete = false;
  }
  let preface: Uint8Array = PREFACE;
  if (rng.chance(0.03)) {
    preface = PREFACE.slice(0, PREFACE.length - 1 - rng.int(4));
    notes.push("truncated preface");
    complete = false;
  }
  const bytes = Uint8Array.from([...preface, ...frames.flat()]);
  if (rng.chance(0.05)) {
    const at = PREFACE.length + rng.int(bytes.length - PREFACE.length);
    bytes[at] = rng.int(256);
    notes.push(`byte ${at} changed`);
    complete = false;
  }
  const streams: Record<number, SentRequest> = {};
  for (const r of reqs) {
    const get = (name: string) => r.fields.find(([n]) => n === name)?.[1] ?? "";
    streams[r.id] = { method: get(":method"), path: get(":path").split("?")[0] };
  }
  return { bytes, streams, complete, notes };
}
