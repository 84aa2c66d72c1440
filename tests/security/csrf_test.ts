import assert from "node:assert/strict";
import { bodyLimit, chain, get, post, router } from "../../mod.ts";
import { csrf, type CsrfOptions, csrfToken } from "../../lib/security/csrf.ts";
import { multipart } from "../../lib/multipart/mod.ts";

function app(options?: CsrfOptions) {
  const reached: string[] = [];
  const a = chain(
    [csrf(options)],
    router([
      get("/form", (ctx) => ctx.json({ token: csrfToken(ctx) })),
      post("/transfer", async (ctx) => {
        reached.push(await ctx.req.text());
        return ctx.json({ ok: true });
      }),
    ]),
  );
  return { app: a, reached };
}

function send(a: ReturnType<typeof app>["app"], headers: Record<string, string>, body = "x=1") {
  return a.fetch(
    new Request("https://bank.example/transfer", { method: "POST", headers, body }),
  );
}

Deno.test("csrf() never blocks safe methods, cross-site or not", async () => {
  const { app: a } = app();
  for (const method of ["GET", "HEAD", "OPTIONS"]) {
    const res = await a.fetch(
      new Request("https://bank.example/form", {
        method,
        headers: { origin: "https://evil.example", "sec-fetch-site": "cross-site" },
      }),
    );
    assert.notEqual(res.status, 403, method);
  }
});

Deno.test("csrf() lets same-origin requests through by Sec-Fetch-Site or Origin", async () => {
  const { app: a, reached } = app();
  for (
    const headers of [
      { "sec-fetch-site": "same-origin" },
      { "sec-fetch-site": "none" },
      { "sec-fetch-site": "same-origin", origin: "https://bank.example" },
      { origin: "https://bank.example" },
    ] as Record<string, string>[]
  ) {
    assert.equal((await send(a, headers)).status, 200, JSON.stringify(headers));
  }
  assert.equal(reached.length, 4);
  assert.equal(reached[0], "x=1", "the handler still reads the body");
});

Deno.test("csrf() refuses cross-site unsafe requests with a 403 problem before the handler", async () => {
  const { app: a, reached } = app();
  for (
    const headers of [
      { "sec-fetch-site": "cross-site", origin: "https://evil.example" },
      { "sec-fetch-site": "same-site", origin: "https://sub.bank.example" },
      { "sec-fetch-site": "cross-site" },
      { origin: "https://evil.example" },
      { origin: "null" },
      { origin: "http://bank.example" },
      { origin: "https://bank.example.evil.example" },
    ] as Record<string, string>[]
  ) {
    const res = await send(a, headers);
    assert.equal(res.status, 403, JSON.stringify(headers));
    assert.equal(res.headers.get("content-type"), "application/problem+json");
    assert.match((await res.json()).detail, /refused/);
  }
  assert.deepEqual(reached, []);
});

Deno.test("csrf() allows the configured origins, as a list or a function", async () => {
  const listed = app({ origin: ["https://app.example"] }).app;
  const cross = { "sec-fetch-site": "cross-site", origin: "https://app.example" };
  assert.equal((await send(listed, cross)).status, 200);
  assert.equal((await send(listed, { ...cross, origin: "https://other.example" })).status, 403);
  const fn = app({ origin: (origin) => origin.endsWith(".bank.example") }).app;
  assert.equal(
    (await send(fn, { "sec-fetch-site": "same-site", origin: "https://m.bank.example" })).status,
    200,
  );
  assert.throws(() => csrf({ origin: ["https://app.example/"] }), /is not an origin/);
});

Deno.test("csrf() falls back to the double-submit token without Origin and Sec-Fetch-Site", async () => {
  const { app: a } = app();
  const issued = await a.fetch(new Request("https://bank.example/form"));
  const { token } = await issued.json();
  const cookie = issued.headers.getSetCookie()[0];
  assert.match(cookie, /^csrf_token=[A-Za-z0-9_-]{43}; Path=\/; SameSite=Strict$/);
  const pair = cookie.split(";")[0];

  // header
  assert.equal((await send(a, { cookie: pair, "x-csrf-token": token })).status, 200);
  // form field (urlencoded and multipart), body still readable by the handler
  const form = { cookie: pair, "content-type": "application/x-www-form-urlencoded" };
  assert.equal((await send(a, form, `_csrf=${token}&x=1`)).status, 200);
  const multipart = new FormData();
  multipart.set("_csrf", token);
  const res = await a.fetch(
    new Request("https://bank.example/transfer", {
      method: "POST",
      headers: { cookie: pair },
      body: multipart,
    }),
  );
  assert.equal(res.status, 200);

  // refused: no cookie, no token, wrong token, token without cookie, malformed body
  for (
    const [headers, body] of [
      [{}, "x=1"],
      [{ cookie: pair }, "x=1"],
      [{ cookie: pair, "x-csrf-token": token.slice(1) + "A" }, "x=1"],
      [{ "x-csrf-token": token }, "x=1"],
      [{ cookie: "csrf_token=short", "x-csrf-token": "short" }, "x=1"],
      [{ ...form }, "_csrf=%ZZ"],
      [{ cookie: pair, "content-type": "multipart/form-data; boundary=x" }, "--x\r\nbroken"],
    ] as [Record<string, string>, string][]
  ) {
    assert.equal((await send(a, headers, body)).status, 403, JSON.stringify(headers));
  }
});

Deno.test("csrf() keeps a valid token cookie and replaces a malformed one", async () => {
  const { app: a } = app();
  const token = "A".repeat(43);
  const kept = await a.fetch(
    new Request("https://bank.example/form", { headers: { cookie: `csrf_token=${token}` } }),
  );
  assert.deepEqual(await kept.json(), { token });
  assert.deepEqual(kept.headers.getSetCookie(), []);
  const replaced = await a.fetch(
    new Request("https://bank.example/form", { headers: { cookie: "csrf_token=x" } }),
  );
  assert.notEqual((await replaced.json()).token, "x");
  assert.equal(replaced.headers.getSetCookie().length, 1);
});

// The form-field fallback on large bodies: the token is looked for in a bounded prefix of a
// copy of the body, and the handler still gets the body whole.

const TOKEN = "T".repeat(43);
const COOKIE = { cookie: `csrf_token=${TOKEN}` };
const URLENCODED = { ...COOKIE, "content-type": "application/x-www-form-urlencoded" };
const MULTIPART = { ...COOKIE, "content-type": "multipart/form-data; boundary=XyZ" };
const encoder = new TextEncoder();

// `size` bytes that differ from one position to the next (a cut or reordered chunk shows).
function pattern(size: number): Uint8Array<ArrayBuffer> {
  const bytes = new Uint8Array(size);
  for (let i = 0; i < size; i++) bytes[i] = (i * 7 + (i >> 11)) % 251;
  return bytes;
}

function join(...parts: (string | Uint8Array)[]): Uint8Array<ArrayBuffer> {
  const chunks = parts.map((part) => typeof part === "string" ? encoder.encode(part) : part);
  const out = new Uint8Array(chunks.reduce((sum, chunk) => sum + chunk.byteLength, 0));
  let offset = 0;
  for (const chunk of chunks) {
    out.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return out;
}

// `bytes` as a request body sent in `chunk`-byte pieces, pulled one at a time, that counts how
// many bytes were taken from it; or fails with `fail` once `failAt` bytes were taken.
function source(bytes: Uint8Array, chunk = 16_384, failAt = Infinity, fail?: Error) {
  const seen = { bytes: 0 };
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (seen.bytes >= failAt) return controller.error(fail);
      if (seen.bytes >= bytes.byteLength) return controller.close();
      const piece = bytes.slice(seen.bytes, seen.bytes + chunk);
      seen.bytes += piece.byteLength;
      controller.enqueue(piece);
    },
  }, { highWaterMark: 0 });
  return { stream, seen };
}

function upload(headers: Record<string, string>, body: ReadableStream<Uint8Array>) {
  return new Request("https://bank.example/transfer", {
    method: "POST",
    headers,
    body,
    duplex: "half",
  } as RequestInit);
}

const MULTIPART_FILE_HEAD = '--XyZ\r\nContent-Disposition: form-data; name="file"; ' +
  'filename="a.bin"\r\nContent-Type: application/octet-stream\r\n\r\n';

function multipartField(name: string, value: string | Uint8Array): (string | Uint8Array)[] {
  return [`--XyZ\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n`, value, "\r\n"];
}

// Wraps ReadableStream.prototype.tee (through which ctx.req.clone() copies the body) so that
// each copy made counts the bytes read from it and records whether it was cancelled: a copy
// left open would be filled by the tee with everything the handler reads.
function spyOnCopies() {
  const tee = ReadableStream.prototype.tee;
  const copies: { read: number; cancelled: boolean }[] = [];
  ReadableStream.prototype.tee = function <T>(this: ReadableStream<T>) {
    const [own, copy] = tee.call(this) as [ReadableStream<T>, ReadableStream<T>];
    const record = { read: 0, cancelled: false };
    copies.push(record);
    const reader = copy.getReader();
    const counted = new ReadableStream<T>({
      async pull(controller) {
        const { done, value } = await reader.read();
        if (done) return controller.close();
        record.read += (value as Uint8Array).byteLength;
        controller.enqueue(value);
      },
      cancel(reason) {
        record.cancelled = true;
        return reader.cancel(reason);
      },
    }, { highWaterMark: 0 });
    return [own, counted];
  };
  return { copies, restore: () => void (ReadableStream.prototype.tee = tee) };
}

Deno.test("csrf() reads no more than the start of a large form for its token: the handler gets the body whole", async () => {
  const data = pattern(6 * 1024 * 1024);
  for (const kind of ["urlencoded", "multipart"] as const) {
    const body = kind === "urlencoded"
      ? join(`_csrf=${TOKEN}&data=`, data)
      : join(...multipartField("_csrf", TOKEN), MULTIPART_FILE_HEAD, data, "\r\n--XyZ--\r\n");
    const { stream, seen } = source(body);
    let before = -1;
    let copy: { read: number; cancelled: boolean } | undefined;
    let received: Uint8Array | undefined;
    const app = chain(
      [bodyLimit(16 * 1024 * 1024, { chunked: "stream" }), csrf()],
      router([post("/transfer", async (ctx) => {
        before = seen.bytes; // what was taken from the body before the handler reads it
        copy = structuredClone(spy.copies[0]);
        if (kind === "urlencoded") received = await ctx.body();
        else {
          for await (const part of multipart(ctx)) {
            if (part.kind === "file") received = await new Response(part.stream).bytes();
          }
        }
        return new Response("saved");
      })]),
    );
    const spy = spyOnCopies();
    let res: Response;
    try {
      res = await app.fetch(upload(kind === "urlencoded" ? URLENCODED : MULTIPART, stream));
    } finally {
      spy.restore();
    }
    assert.equal(res.status, 200, `${kind}: ${await res.text()}`);
    // csrf() read its copy up to the token (one 16 KiB chunk) and cancelled it before the
    // handler ran: the tee holds none of the body for it from then on (a whole copy would
    // have made the server hold all of it twice)
    assert.equal(spy.copies.length, 1, kind);
    assert.deepEqual(copy, { read: 16_384, cancelled: true }, kind);
    assert.ok(before >= 0 && before <= 64 * 1024, `${kind}: ${before} bytes taken first`);
    assert.deepEqual(received, kind === "urlencoded" ? body : data, kind);
    assert.equal(seen.bytes, body.byteLength);
  }
});

Deno.test("csrf() keeps the body limit's 413 while it looks for the token, and lets the handler meet it", async () => {
  for (const kind of ["urlencoded", "multipart"] as const) {
    const headers = kind === "urlencoded" ? URLENCODED : MULTIPART;
    const app = (limit: number) =>
      chain(
        [bodyLimit(limit, { chunked: "stream" }), csrf()],
        router([post("/transfer", async (ctx) => {
          if (kind === "urlencoded") await ctx.body();
          else {
            // asking for the next part reads past the file before it
            for await (const _part of multipart(ctx));
          }
          return new Response("saved");
        })]),
      );
    // the limit is passed before the token: csrf() meets it
    const late = kind === "urlencoded" ? join("pad=", "p".repeat(8192), `&_csrf=${TOKEN}`) : join(
      ...multipartField("pad", "p".repeat(8192)),
      ...multipartField("_csrf", TOKEN),
      "--XyZ--",
    );
    const refused = await app(4096).fetch(upload(headers, source(late, 1024).stream));
    assert.equal(refused.status, 413, kind);
    assert.match((await refused.json()).detail, /exceeds the limit of 4096 bytes/);
    // the token comes first: the handler meets the limit
    const early = kind === "urlencoded"
      ? join(`_csrf=${TOKEN}&pad=`, "p".repeat(2 * 1024 * 1024))
      : join(...multipartField("_csrf", TOKEN), MULTIPART_FILE_HEAD, pattern(2 * 1024 * 1024));
    const handler = await app(1024 * 1024).fetch(upload(headers, source(early).stream));
    assert.equal(handler.status, 413, kind);
  }
  // the default limit of 1 MiB, and a body with its length declared
  const { app: a } = app();
  const res = await send(
    a,
    URLENCODED,
    `_csrf=${TOKEN}&pad=${"p".repeat(2 * 1024 * 1024)}`,
  );
  assert.equal(res.status, 413);
});

Deno.test("csrf() answers a body broken off while it looks for the token with a 400, not a 403", async () => {
  for (const headers of [URLENCODED, MULTIPART]) {
    const body = join("pad=", "p".repeat(50_000));
    const { stream } = source(body, 1024, 10_240, new Error("connection reset"));
    const res = await app().app.fetch(upload(headers, stream));
    assert.equal(res.status, 400, headers["content-type"]);
    assert.equal((await res.json()).detail, "The request body could not be read");
  }
});

Deno.test("csrf() refuses a form whose token comes after its first formBytes bytes or after a file", async () => {
  const detail =
    "Request refused: its CSRF token must come in the x-csrf-token header, or in the " +
    "_csrf field within the first 65536 bytes of the body and before any file";
  const cases: [Record<string, string>, Uint8Array][] = [
    [URLENCODED, join("pad=", "p".repeat(70_000), `&_csrf=${TOKEN}`)],
    [
      MULTIPART,
      join(
        ...multipartField("pad", "p".repeat(70_000)),
        ...multipartField("_csrf", TOKEN),
        "--XyZ--",
      ),
    ],
    [
      MULTIPART,
      join(MULTIPART_FILE_HEAD, "tiny\r\n", ...multipartField("_csrf", TOKEN), "--XyZ--"),
    ],
  ];
  for (const [headers, body] of cases) {
    const { app: a, reached } = app();
    const res = await a.fetch(upload(headers, source(body).stream));
    assert.equal(res.status, 403);
    assert.equal((await res.json()).detail, detail);
    assert.deepEqual(reached, []);
  }
  // the header still works, whatever the body
  const [, late] = cases[0];
  const res = await app().app.fetch(
    upload({ ...URLENCODED, "x-csrf-token": TOKEN }, source(late).stream),
  );
  assert.equal(res.status, 200);
});

Deno.test("csrf() finds the token within formBytes however the body is cut into chunks", async () => {
  const { app: a } = app({ formBytes: 100 });
  const pair = `_csrf=${TOKEN}`; // 49 bytes
  const pad = (n: number) => `pad=${"p".repeat(n - 5)}&`; // n bytes
  const cases: [string, number, RegExp | undefined][] = [
    [pad(51) + pair, 200, undefined], // exactly 100 bytes, the body ends the pair
    [pair + "&" + pad(50), 200, undefined],
    [pad(51) + pair + "&x=1", 200, undefined], // the pair ends at byte 100; its "&" is 101
    [pad(52) + pair + "&x=1", 403, /within the first 100 bytes/], // the pair ends at byte 101
    [pad(100) + pair, 403, /within the first 100 bytes/],
    [pad(40) + `_csrf=${TOKEN.slice(1)}A`, 403, /does not match/],
  ];
  for (const [body, status, detail] of cases) {
    for (const chunk of [1, 7, 49, 100, 1000]) {
      const res = await a.fetch(upload(URLENCODED, source(encoder.encode(body), chunk).stream));
      assert.equal(res.status, status, `${body} in chunks of ${chunk}`);
      if (detail !== undefined) assert.match((await res.json()).detail, detail);
      else await res.body?.cancel();
    }
  }
  assert.throws(() => csrf({ formBytes: -1 }), RangeError);
  assert.throws(() => csrf({ formBytes: 1.5 }), /formBytes 1.5 is not a non-negative integer/);
});

Deno.test("csrf() checks its cookie, header and field when it is created, not on each request", async () => {
  // each of these failed every request without a token cookie with a 500
  for (
    const cookie of [
      { name: "__Host-csrf" }, // a __Host- cookie needs secure
      { name: "bad name" },
      { sameSite: "None" as const },
      { path: "csrf" },
    ]
  ) {
    assert.throws(
      () => csrf({ cookie }),
      { name: "TypeError", message: /^Cannot create csrf\(\): Cannot set cookie/ },
      JSON.stringify(cookie),
    );
  }
  assert.throws(() => csrf({ header: "x csrf" }), /Cannot create csrf\(\): header "x csrf"/);
  assert.throws(() => csrf({ field: "" }), /field must be a non-empty string/);
  // what the documentation recommends over HTTPS is accepted
  const app = chain(
    [csrf({ cookie: { name: "__Host-csrf", secure: true } })],
    router([get("/", () => new Response("ok"))]),
  );
  const res = await app.fetch(new Request("https://app.example/"));
  assert.equal(res.status, 200);
  assert.match(
    res.headers.getSetCookie()[0],
    /^__Host-csrf=[\w-]{43}; Path=\/; Secure; SameSite=Strict$/,
  );
});
