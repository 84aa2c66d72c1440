// Generates HTTP/1.1 fuzz cases: a request built from parts (method, target, version, headers,
// body, framing), then mutated at the level of those parts and sometimes of raw bytes. Every
// case knows what an honest server owes it: whether the bytes form complete requests (so a
// silence is a hang) and whether it is a valid WebSocket handshake (so a 101 is allowed).
import { Buffer } from "node:buffer";
import { Random } from "./_random.ts";
import { TOKEN } from "./app.js";

/** What the generator learned from the server before the run (validators of static files). */
export interface Known {
  /** ETag and Last-Modified of some static paths. */
  validators: Record<string, { etag: string; lastModified: string }>;
}

/** One request of a case, as the response parser needs it. */
export interface SentRequest {
  method: string;
  path: string;
  /** The Sec-WebSocket-Key of a valid handshake (a 101 is allowed only then). */
  upgradeKey?: string;
}

/** One fuzz case over one TCP connection. */
export interface Http1Case {
  /** The bytes, written in this many pieces (a few ms apart). */
  chunks: Uint8Array[];
  /** The requests the bytes hold, in order (for HEAD and the oracle's exceptions). */
  requests: SentRequest[];
  /** Whether the bytes are complete, well-framed requests that the server must answer. */
  complete: boolean;
  /** What the generator did, for the failure report. */
  notes: string[];
}

interface Draft {
  method: string;
  target: string;
  version: string;
  headers: [string, string][];
  body: Uint8Array;
  /** "length": Content-Length matches; "chunked": well-formed chunks; "none": no framing. */
  framing: "length" | "chunked" | "none" | "broken";
  eol: string;
  upgradeKey?: string;
}

const enc = new TextEncoder();

const ROUTE_PATHS = [
  "/",
  "/hello/world",
  "/hello/w%C3%B6rld",
  "/hello/%00",
  "/hello/%zz",
  "/hello/%C3%28",
  "/hello/a%2Fb",
  "/users/7/posts/9",
  "/users//posts/",
  "/files/a/b/c.txt",
  "/files/",
  "/files/%2e%2e/%2e%2e/etc/passwd",
  "/dir",
  "/dir/",
  "/dir//",
  "/private",
  "/decode",
  "/echo",
  "/throw",
  "/slow",
  "/stream",
  "/ws",
  "/nope",
  "//hello/world",
  "/hello/world/",
  "/hello/./world",
  "/hello/../hello/x",
  "*",
];

const STATIC_PATHS = [
  "/static/hello.txt",
  "/static/big.bin",
  "/static/exact.bin",
  "/static/one.bin",
  "/static/empty.txt",
  "/static/app.js",
  "/static/only.css",
  "/static/caf%C3%A9.txt",
  "/static/100%25.txt",
  "/static/dir",
  "/static/dir/",
  "/static/nested/deep/file.css",
  "/static/.env",
  "/static/.hidden/visible.txt",
  "/static/../canary.txt",
  "/static/%2e%2e/canary.txt",
  "/static/%2e%2e%2fcanary.txt",
  "/static/..%5ccanary.txt",
  "/static/link_outside.txt",
  "/static/link_evil.txt",
  "/static/link_evil_dir/secret.txt",
  "/static/link_absolute.txt",
  "/static/link_dangling.txt",
  "/static/link_to_dotfile.txt",
  "/static/link_inside.txt",
  "/static/evil.js",
  "/static/fifo",
  "/static/fifo.txt",
  "/static_evil/secret.txt",
  "/static/assets/app.3f9a2c1b.js",
];

const METHODS = ["GET", "GET", "GET", "HEAD", "POST", "PUT", "DELETE", "OPTIONS", "PATCH"];
const ODD_METHODS = ["TRACE", "CONNECT", "get", "G ET", "", "PROPFIND", "X".repeat(300), "GET\0"];
const VERSIONS = ["HTTP/1.0", "HTTP/2.0", "HTTP/1.2", "http/1.1", "HTTP/1.1 ", "HTTP/9.9", ""];

function range(rng: Random): string {
  return rng.pick([
    "bytes=0-10",
    "bytes=-5",
    "bytes=5-",
    "bytes=0-0",
    "bytes=0-",
    "bytes=0-1,3-4",
    "bytes=0-1,0-1,0-1",
    "bytes=999999-",
    "bytes=10-5",
    "bytes=--1",
    "bytes=" + "9".repeat(40) + "-",
    "bytes=0-" + "9".repeat(25),
    "items=0-1",
    "bytes=",
    "bytes = 0-1",
    "bytes=1-2, 3-4, 5-6, 7-8, 9-10, 11-12, 13-14, 15-16, 17-18, 19-20, 21-22",
    `bytes=${rng.int(400_000)}-${rng.int(400_000)}`,
  ]);
}

function etagLike(rng: Random, known: Known, path: string): string {
  const own = known.validators[path]?.etag;
  return rng.pick([
    own ?? '"x"',
    own ?? '"x"',
    "*",
    `W/${own ?? '"w"'}`,
    `"a", ${own ?? '"b"'}`,
    '"unterminated',
    "garbage",
    "",
    '"' + "e".repeat(2000) + '"',
  ]);
}

function dateLike(rng: Random, known: Known, path: string): string {
  const own = known.validators[path]?.lastModified;
  return rng.pick([
    own ?? "Tue, 14 Nov 2023 22:13:20 GMT",
    own ?? "Tue, 14 Nov 2023 22:13:20 GMT",
    "Thu, 01 Jan 1970 00:00:00 GMT",
    "Fri, 31 Dec 9999 23:59:59 GMT",
    "Sunday, 06-Nov-94 08:49:37 GMT",
    "Sun Nov  6 08:49:37 1994",
    "not a date",
    "",
    "Tue, 14 Nov 2023 22:13:20 GMT, Tue, 14 Nov 2023 22:13:20 GMT",
  ]);
}

function cookie(rng: Random): string {
  const n = rng.pick([1, 2, 5, 50]);
  const parts: string[] = [];
  for (let i = 0; i < n; i++) {
    parts.push(rng.pick([`k${i}=v${i}`, `k${i}="quoted"`, `=${i}`, `k${i}`, `k${i}=a;b`, "ü=ö"]));
  }
  return parts.join(rng.pick(["; ", ";", " ; "]));
}

function wsKey(rng: Random): string {
  return Buffer.from(rng.bytes(16)).toString("base64");
}

function base(rng: Random, known: Known): Draft {
  const path = rng.chance(0.35) ? rng.pick(STATIC_PATHS) : rng.pick(ROUTE_PATHS);
  let method = rng.pick(METHODS);
  if (path === "/decode" || path === "/echo") method = rng.chance(0.8) ? "POST" : method;
  const query = rng.chance(0.2)
    ? rng.pick(["?a=1", "?a=1&a=2", "?%zz", "?x=" + "y".repeat(500), "?"])
    : "";
  const headers: [string, string][] = [["Host", "127.0.0.1"]];
  const d: Draft = {
    method,
    target: path + query,
    version: "HTTP/1.1",
    headers,
    body: new Uint8Array(0),
    framing: "none",
    eol: "\r\n",
  };
  // conditional and range headers, mostly on static paths
  if (rng.chance(path.startsWith("/static") ? 0.5 : 0.1)) headers.push(["Range", range(rng)]);
  if (rng.chance(0.25)) headers.push(["If-None-Match", etagLike(rng, known, path)]);
  if (rng.chance(0.2)) headers.push(["If-Modified-Since", dateLike(rng, known, path)]);
  if (rng.chance(0.15)) {
    headers.push([
      "If-Range",
      rng.chance(0.5) ? etagLike(rng, known, path) : dateLike(rng, known, path),
    ]);
  }
  if (rng.chance(0.15)) {
    headers.push(["Accept-Encoding", rng.pick(["br", "gzip", "br;q=0, gzip", "*", "x;q=abc"])]);
  }
  if (rng.chance(0.2)) headers.push(["Cookie", cookie(rng)]);
  if (rng.chance(0.15)) headers.push(["Origin", rng.pick(["https://a.example", "null", "", "x"])]);
  if (rng.chance(0.1)) {
    d.method = "OPTIONS";
    headers.push(["Origin", "https://a.example"], [
      "Access-Control-Request-Method",
      rng.pick(["PUT", "GET", "", "X Y"]),
    ]);
  }
  if (path === "/private" || rng.chance(0.05)) {
    headers.push([
      "Authorization",
      rng.pick([
        `Bearer ${TOKEN}`,
        `Bearer ${TOKEN}`,
        "Bearer wrong",
        "Bearer",
        "Basic dXNlcjpwYXNz",
        "Bearer a b",
        "Bearer " + "x".repeat(9000),
      ]),
    ]);
  }
  if (rng.chance(0.1)) {
    headers.push(["Connection", rng.pick(["close", "keep-alive", "Keep-Alive, close", "upgrade"])]);
  }
  // bodies
  if (d.method === "POST" || d.method === "PUT" || rng.chance(0.05)) {
    const body = path === "/decode" && rng.chance(0.7)
      ? rng.pick([
        '{"id":1,"item":"x","tags":["a"]}',
        '{"id":"1","item":"x","tags":[]}',
        '{"id":1,"item":"x"}',
        "{",
        "[]",
        '{"id":1e999,"item":"\\ud800","tags":[null]}',
        '"' + "\\u0000".repeat(100) + '"',
        "[".repeat(5000),
        '{"id":1,"item":"x","tags":["a"],"__proto__":{"x":1}}',
      ])
      : rng.pick(["", "x", "hello", "a".repeat(1000), "b".repeat(70_000)]);
    d.body = enc.encode(body);
    d.framing = rng.chance(0.3) ? "chunked" : "length";
    if (rng.chance(0.3)) {
      headers.push([
        "Content-Type",
        rng.pick(["application/json", "text/plain", "application/json; charset=utf-16", "x"]),
      ]);
    }
    if (rng.chance(0.1)) headers.push(["Expect", rng.pick(["100-continue", "200-ok"])]);
  }
  // WebSocket handshakes
  if (path === "/ws" && rng.chance(0.8)) {
    d.method = "GET";
    const key = wsKey(rng);
    headers.push(
      ["Upgrade", "websocket"],
      ["Connection", rng.pick(["Upgrade", "keep-alive, Upgrade", "upgrade"])],
      ["Sec-WebSocket-Key", key],
      ["Sec-WebSocket-Version", "13"],
    );
    // RFC 9110 §5.6.1: empty list elements are ignored; no offer matches, so no subprotocol
    if (rng.chance(0.2)) {
      headers.push(["Sec-WebSocket-Protocol", rng.pick(["a, , b", "chat", ","])]);
    }
    d.upgradeKey = key;
  }
  return d;
}

// Mutations of the parts; each returns a note. They may make the case incomplete or invalid.
type Mutation = (d: Draft, rng: Random) => string;

function invalidatesUpgrade(d: Draft): void {
  d.upgradeKey = undefined;
}

const MUTATIONS: Mutation[] = [
  (d, rng) => {
    d.method = rng.pick(ODD_METHODS);
    invalidatesUpgrade(d);
    return "odd method";
  },
  (d, rng) => {
    d.version = rng.pick(VERSIONS);
    // RFC 6455 §4.1 asks for HTTP/1.1 or later: a 101 stays allowed for a well-formed later
    // version (and for HTTP/1.0, which fuzz.ts reports as a known issue)
    if (!/^HTTP\/\d\.\d$/.test(d.version)) invalidatesUpgrade(d);
    return `version ${JSON.stringify(d.version)}`;
  },
  (d, rng) => {
    d.eol = rng.pick(["\n", "\r", "\r\r\n", "\n\r"]);
    invalidatesUpgrade(d);
    return `eol ${JSON.stringify(d.eol)}`;
  },
  (d, rng) => {
    d.target = rng.pick([
      "http://127.0.0.1/hello/abs",
      "https://other.example/hello/x",
      "hello/no-slash",
      "/" + "a".repeat(rng.pick([1000, 9000, 70_000])),
      "/hello/sp ace",
      "/hello/\x01ctl",
      "/hello/\xff\xfe",
      "/#frag",
      "",
      "/static/" + "../".repeat(20) + "etc/passwd",
      "/static/%c0%ae%c0%ae/canary.txt",
      "/static//hello.txt",
      "/static/hello.txt/",
      "/static/hello.txt%00.png",
    ]);
    invalidatesUpgrade(d);
    return `target ${JSON.stringify(d.target.slice(0, 60))}`;
  },
  (d, rng) => {
    const i = d.headers.findIndex(([n]) => n === "Host");
    const value = rng.pick([
      "",
      "a b",
      "127.0.0.1:99999",
      "[::1",
      "x".repeat(5000),
      "ü.example",
      "h\x00st",
    ]);
    if (rng.chance(0.3)) d.headers.splice(i, 1);
    else if (rng.chance(0.5)) d.headers.push(["Host", "second.example"]);
    else d.headers[i] = ["Host", value];
    return "host mutated";
  },
  (d, rng) => {
    const n = rng.pick([100, 300, 2000]);
    for (let i = 0; i < n; i++) d.headers.push([`X-Many-${i}`, "v"]);
    return `${n} headers`;
  },
  (d, rng) => {
    d.headers.push(["X-Big", "v".repeat(rng.pick([8_000, 17_000, 70_000]))]);
    return "oversized header";
  },
  (d, rng) => {
    d.headers.push(rng.pick<[string, string]>([
      ["X-Space ", "before colon"],
      [" X-Lead", "leading space"],
      ["X-Fold", "a\r\n folded"],
      ["X-Nul", "a\x00b"],
      ["X-Cr", "a\rb"],
      ["", "empty name"],
      ["X(bad)", "separator in name"],
      ["X-Utf8", "\u00e9\u00e8"],
      ["NoColon", ""],
    ]));
    d.upgradeKey = d.upgradeKey && undefined;
    return "odd header";
  },
  (d, rng) => {
    // Content-Length and Transfer-Encoding combinations (RFC 9112 §6.3)
    const combo = rng.pick([
      [["Content-Length", String(d.body.length)], ["Content-Length", String(d.body.length + 1)]],
      [["Content-Length", `${d.body.length}, ${d.body.length}`]],
      [["Content-Length", `+${d.body.length}`]],
      [["Content-Length", `0${d.body.length}`]],
      [["Content-Length", "-1"]],
      [["Content-Length", "0x10"]],
      [["Content-Length", "99999999999999999999"]],
      [["Content-Length", String(d.body.length)], ["Transfer-Encoding", "chunked"]],
      [["Transfer-Encoding", "chunked, identity"]],
      [["Transfer-Encoding", "gzip, chunked"]],
      [["Transfer-Encoding", "identity"]],
      [["Transfer-Encoding", "chunked"], ["Transfer-Encoding", "chunked"]],
      [["Transfer-Encoding", " chunked"]],
      [["Transfer-Encoding", "Chunked"]],
      [["Transfer-Encoding", "xchunked"]],
    ] as [string, string][][]);
    d.headers.push(...combo);
    d.framing = "broken";
    invalidatesUpgrade(d);
    return `framing ${JSON.stringify(combo)}`;
  },
  (d, rng) => {
    d.framing = "broken";
    const variant = rng.pick(["short", "long", "badchunk"]);
    if (variant === "badchunk") {
      d.headers.push(["Transfer-Encoding", "chunked"]);
      const chunk = rng.pick([
        "zz\r\nab\r\n0\r\n\r\n",
        "5\r\nab\r\n0\r\n\r\n",
        "2;ext=1\r\nab\r\n0\r\n\r\n",
        "2\r\nab\r\n0\r\nX-Trailer: 1\r\n\r\n",
        "ffffffffffffffffff\r\nab\r\n",
        "2\nab\n0\n\n",
        "-2\r\nab\r\n0\r\n\r\n",
        "2\r\nab",
        "0\r\n",
      ]);
      d.body = enc.encode(chunk);
      return `raw chunks ${JSON.stringify(chunk)}`;
    }
    d.headers.push(["Content-Length", String(d.body.length + (variant === "short" ? 10 : -1))]);
    return `content-length ${variant}`;
  },
  (d, rng) => {
    // WebSocket handshake variants that must not upgrade
    const key = wsKey(rng);
    d.method = "GET";
    d.target = "/ws";
    const bad = rng.pick<[string, string][]>([
      [["Upgrade", "websocket"], ["Connection", "Upgrade"], ["Sec-WebSocket-Key", "short"], [
        "Sec-WebSocket-Version",
        "13",
      ]],
      [["Upgrade", "websocket"], ["Connection", "Upgrade"], ["Sec-WebSocket-Key", key], [
        "Sec-WebSocket-Version",
        "8",
      ]],
      [["Upgrade", "websocket"], ["Connection", "Upgrade"], ["Sec-WebSocket-Version", "13"]],
      [["Upgrade", "websocket"], ["Sec-WebSocket-Key", key], ["Sec-WebSocket-Version", "13"]],
      [["Upgrade", "h2c"], ["Connection", "Upgrade, HTTP2-Settings"], [
        "HTTP2-Settings",
        "AAMAAABkAARAAAAAAAIAAAAA",
      ]],
      [["Upgrade", "websocket"], ["Connection", "Upgrade"], ["Sec-WebSocket-Key", key + key], [
        "Sec-WebSocket-Version",
        "13",
      ]],
    ]);
    d.headers = [["Host", "127.0.0.1"], ...bad];
    d.upgradeKey = undefined;
    if (rng.chance(0.3)) d.method = "POST";
    return "bad websocket handshake";
  },
];

function serialize(d: Draft): Uint8Array {
  const headers = [...d.headers];
  let body = d.body;
  if (d.framing === "length") headers.push(["Content-Length", String(body.length)]);
  if (d.framing === "chunked") {
    headers.push(["Transfer-Encoding", "chunked"]);
    const parts: string[] = [];
    const text = new TextDecoder().decode(body);
    for (let i = 0; i < text.length; i += 4096) {
      const piece = text.slice(i, i + 4096);
      parts.push(`${enc.encode(piece).length.toString(16)}\r\n${piece}\r\n`);
    }
    body = enc.encode(parts.join("") + "0\r\n\r\n");
  }
  const line = `${d.method} ${d.target}${d.version === "" ? "" : " " + d.version}`;
  const head =
    [line, ...headers.map(([n, v]) => (n === "NoColon" ? "NoColon" : `${n}: ${v}`))].join(d.eol) +
    d.eol + d.eol;
  const out = new Uint8Array(Buffer.byteLength(head, "latin1") + body.length);
  out.set(Buffer.from(head, "latin1"));
  out.set(body, out.length - body.length);
  return out;
}

function split(bytes: Uint8Array, rng: Random): Uint8Array[] {
  if (bytes.length < 2 || !rng.chance(0.25)) return [bytes];
  const cuts = new Set<number>();
  const n = 1 + rng.int(3);
  for (let i = 0; i < n; i++) cuts.add(1 + rng.int(bytes.length - 1));
  const sorted = [...cuts].sort((a, b) => a - b);
  const out: Uint8Array[] = [];
  let at = 0;
  for (const cut of sorted) {
    out.push(bytes.subarray(at, cut));
    at = cut;
  }
  out.push(bytes.subarray(at));
  return out;
}

function byteMutate(bytes: Uint8Array, rng: Random): Uint8Array {
  const out = Array.from(bytes);
  const n = 1 + rng.int(4);
  for (let i = 0; i < n; i++) {
    const at = rng.int(out.length);
    const op = rng.int(3);
    if (op === 0) out[at] = rng.int(256);
    else if (op === 1) out.splice(at, 1);
    else out.splice(at, 0, rng.pick([0, 10, 13, 32, 58, 0x7f, 0xff]));
  }
  return Uint8Array.from(out);
}

/** Generates one case from its seed. */
export function http1Case(seed: number, known: Known): Http1Case {
  const rng = new Random(seed);
  const notes: string[] = [];
  const drafts: Draft[] = [base(rng, known)];
  if (rng.chance(0.1)) drafts.push(base(rng, known)); // pipelined
  let complete = true;
  for (const d of drafts) {
    const n = rng.chance(0.45) ? 0 : 1 + rng.int(2);
    for (let i = 0; i < n; i++) {
      notes.push(rng.pick(MUTATIONS)(d, rng));
      complete = false;
    }
  }
  if (drafts.length > 1) notes.push("pipelined");
  let bytes: Uint8Array = Uint8Array.from(drafts.flatMap((d) => Array.from(serialize(d))));
  if (rng.chance(0.08)) {
    bytes = byteMutate(bytes, rng);
    notes.push("bytes mutated");
    complete = false;
    for (const d of drafts) d.upgradeKey = undefined;
  }
  return {
    chunks: split(bytes, rng),
    requests: drafts.map((d) => ({
      method: d.method,
      path: d.target.split("?")[0],
      upgradeKey: d.upgradeKey,
    })),
    complete,
    notes,
  };
}
