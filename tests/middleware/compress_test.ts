import assert from "node:assert/strict";
import { brotliDecompressSync, gunzipSync, inflateSync, zstdDecompressSync } from "node:zlib";
import { chain, get, router } from "../../mod.ts";
import { compress, type CompressOptions } from "../../lib/middleware/compress.ts";
import { negotiateEncoding } from "../../lib/middleware/_accept_encoding.ts";
import { withDeadline } from "../_deadline.ts";

const TEXT = "lorem ipsum dolor sit amet ".repeat(200);

function app(options?: CompressOptions, response = () => new Response(TEXT)) {
  return chain([compress(options)], router([get("/", response)]));
}

async function fetchWith(
  handler: ReturnType<typeof app>,
  headers: Record<string, string>,
  method = "GET",
): Promise<Response> {
  return await handler.fetch(new Request("http://localhost/", { method, headers }));
}

const DECODE: Record<string, (bytes: Uint8Array) => Uint8Array> = {
  gzip: gunzipSync,
  deflate: inflateSync,
  br: brotliDecompressSync,
  zstd: zstdDecompressSync,
};

Deno.test("negotiateEncoding() follows q-values, * and identity, the server's order on a tie", () => {
  const all = ["br", "zstd", "gzip", "deflate"] as const;
  assert.equal(negotiateEncoding(null, all), null);
  assert.equal(negotiateEncoding("", all), null);
  assert.equal(negotiateEncoding("gzip, deflate, br, zstd", all), "br");
  assert.equal(negotiateEncoding("gzip, br;q=0.5", all), "gzip");
  assert.equal(negotiateEncoding("GZIP;Q=0.8, deflate;q=0.9", all), "deflate");
  assert.equal(negotiateEncoding("x-gzip", all), "gzip");
  assert.equal(negotiateEncoding("*", all), "br");
  assert.equal(negotiateEncoding("*;q=0.5, br;q=0", all), "zstd");
  assert.equal(negotiateEncoding("gzip;q=0", all), null);
  assert.equal(negotiateEncoding("identity;q=0, gzip", all), "gzip");
  assert.equal(negotiateEncoding("identity;q=0", all), null);
  assert.equal(negotiateEncoding("gzip;q=0.5, identity", all), null);
  assert.equal(negotiateEncoding("gzip;q=2, deflate", all), "deflate"); // a bad weight is ignored
  assert.equal(negotiateEncoding("compress, sdch", all), null);
  assert.equal(negotiateEncoding("br", ["gzip"]), null);
});

Deno.test("compress() encodes with each coding, and the body decodes to the original", async () => {
  for (const coding of ["br", "zstd", "gzip", "deflate"]) {
    const res = await fetchWith(app(), { "accept-encoding": coding });
    assert.equal(res.headers.get("content-encoding"), coding);
    const bytes = new Uint8Array(await res.arrayBuffer());
    assert.equal(res.headers.get("content-length"), String(bytes.byteLength));
    assert.ok(bytes.byteLength < TEXT.length / 4, coding);
    assert.equal(new TextDecoder().decode(DECODE[coding](bytes)), TEXT, coding);
  }
});

Deno.test("compress() uses the encodings option as the order of preference", async () => {
  const res = await fetchWith(app({ encodings: ["gzip", "br"] }), {
    "accept-encoding": "br, gzip",
  });
  assert.equal(res.headers.get("content-encoding"), "gzip");
  await res.body?.cancel();
});

Deno.test("compress() merges Vary, makes a strong ETag weak and drops Accept-Ranges", async () => {
  const handler = app({}, () =>
    new Response(TEXT, {
      headers: {
        "content-type": "text/plain",
        vary: "Origin",
        etag: '"abc"',
        "accept-ranges": "bytes",
      },
    }));
  const res = await fetchWith(handler, { "accept-encoding": "gzip" });
  assert.equal(res.headers.get("vary"), "Origin, Accept-Encoding");
  assert.equal(res.headers.get("etag"), 'W/"abc"');
  assert.equal(res.headers.get("accept-ranges"), null);
  await res.body?.cancel();
  const plain = await fetchWith(handler, {});
  assert.equal(plain.headers.get("vary"), "Origin, Accept-Encoding");
  assert.equal(plain.headers.get("etag"), '"abc"');
  assert.equal(await plain.text(), TEXT);
});

Deno.test("compress() answers HEAD with the head its GET has, without a Content-Length", async () => {
  const etag = { etag: '"v1"', "content-type": "text/plain" };
  const handler = app({}, () => new Response(TEXT, { headers: etag }));
  const get = await fetchWith(handler, { "accept-encoding": "gzip" });
  await get.body?.cancel();
  const head = await fetchWith(handler, { "accept-encoding": "gzip" }, "HEAD");
  assert.equal(await head.text(), "");
  for (const name of ["content-encoding", "etag", "vary", "content-type", "accept-ranges"]) {
    assert.equal(head.headers.get(name), get.headers.get(name), name);
  }
  assert.equal(head.headers.get("content-encoding"), "gzip");
  assert.equal(head.headers.get("content-length"), null);
  // without a coding the client accepts, HEAD keeps the identity length the GET has
  const plain = await fetchWith(handler, {}, "HEAD");
  assert.equal(plain.headers.get("content-encoding"), null);
  assert.equal(plain.headers.get("content-length"), String(TEXT.length));
  assert.equal(plain.headers.get("vary"), "Accept-Encoding");
});

Deno.test("compress() gives a small or empty body's HEAD the head of its GET", async () => {
  for (
    const [what, response] of [
      [
        "a small body",
        () => new Response("x".repeat(100), { headers: { "content-type": "text/plain" } }),
      ],
      ["no body", () => new Response(null, { headers: { "content-type": "text/plain" } })],
    ] as const
  ) {
    const handler = app({}, response);
    const get = await fetchWith(handler, { "accept-encoding": "gzip" });
    await get.body?.cancel();
    const head = await fetchWith(handler, { "accept-encoding": "gzip" }, "HEAD");
    await head.body?.cancel();
    for (const name of ["content-encoding", "vary", "content-type"]) {
      assert.equal(head.headers.get(name), get.headers.get(name), `${what}: ${name}`);
    }
    assert.equal(get.headers.get("content-encoding"), null, what);
    assert.equal(get.headers.get("vary"), "Accept-Encoding", what);
  }
});

Deno.test("compress() on one route cancels the body its HEAD answer leaves out", async () => {
  let cancelled = false;
  const stream = () =>
    new Response(
      new ReadableStream({
        pull: (controller) => controller.enqueue(new TextEncoder().encode("data: x\n\n")),
        cancel: () => void (cancelled = true),
      }),
      { headers: { "content-type": "text/event-stream" } },
    );
  const handler = router([get("/", chain([compress()], stream))]);
  const head = await handler.fetch(
    new Request("http://localhost/", { method: "HEAD", headers: { "accept-encoding": "gzip" } }),
  );
  assert.equal(head.headers.get("content-encoding"), "gzip");
  assert.equal(await head.text(), "");
  assert.ok(cancelled, "the producer of the GET's body is cancelled");
});

Deno.test("compress() gives a 304 the Vary its 200 had", async () => {
  // revalidating the encoded representation (the weak ETag compress() gave it)
  const bare = app({}, () => new Response(null, { status: 304, headers: { etag: '"abc"' } }));
  const held = await bare.fetch(
    new Request("http://localhost/", { headers: { "if-none-match": 'W/"abc"' } }),
  );
  assert.equal(held.headers.get("vary"), "Accept-Encoding");
  // a 304 that names a compressible type
  const typed = app({}, () =>
    new Response(null, {
      status: 304,
      headers: { etag: '"abc"', "content-type": "application/json", vary: "Origin" },
    }));
  const named = await typed.fetch(
    new Request("http://localhost/", { headers: { "if-none-match": '"abc"' } }),
  );
  assert.equal(named.headers.get("vary"), "Origin, Accept-Encoding");
  assert.equal(named.headers.get("etag"), '"abc"');
  // nothing says the 200 was compressible: left alone
  const image = app(
    {},
    () =>
      new Response(null, { status: 304, headers: { etag: '"abc"', "content-type": "image/png" } }),
  );
  const left = await image.fetch(
    new Request("http://localhost/", { headers: { "if-none-match": '"abc"' } }),
  );
  assert.equal(left.headers.get("vary"), null);
});

Deno.test("compress() answers a 304 for the weak form with the weak form", async () => {
  const handler = app({}, () => new Response(null, { status: 304, headers: { etag: '"abc"' } }));
  const weak = await handler.fetch(
    new Request("http://localhost/", { headers: { "if-none-match": 'W/"abc"' } }),
  );
  assert.equal(weak.status, 304);
  assert.equal(weak.headers.get("etag"), 'W/"abc"');
  const strong = await handler.fetch(
    new Request("http://localhost/", { headers: { "if-none-match": '"abc"' } }),
  );
  assert.equal(strong.headers.get("etag"), '"abc"');
});

Deno.test("compress() leaves small bodies, refused types and no-transform alone", async () => {
  const cases: [string, () => Response, string][] = [
    ["small", () => new Response("tiny"), "GET"],
    ["small JSON", () => Response.json({ a: 1 }), "GET"],
    [
      "declared small",
      () =>
        new Response(TEXT, { headers: { "content-type": "text/plain", "content-length": "10" } }),
      "GET",
    ],
    ["png", () => new Response(TEXT, { headers: { "content-type": "image/png" } }), "GET"],
    ["no type", () => new Response(new TextEncoder().encode(TEXT)), "GET"],
    ["already encoded", () =>
      new Response(TEXT, {
        headers: { "content-type": "text/plain", "content-encoding": "identity" },
      }), "GET"],
    ["no-transform", () =>
      new Response(TEXT, {
        headers: { "content-type": "text/plain", "cache-control": "public, No-Transform" },
      }), "GET"],
    ["206", () =>
      new Response(TEXT, {
        status: 206,
        headers: { "content-type": "text/plain", "content-range": "bytes 0-1/2" },
      }), "GET"],
  ];
  for (const [name, response, method] of cases) {
    const res = await fetchWith(app({}, response), { "accept-encoding": "gzip" }, method);
    assert.equal(
      res.headers.get("content-encoding"),
      name === "already encoded" ? "identity" : null,
      name,
    );
    await res.body?.cancel();
  }
});

Deno.test("compress() measures a string body's threshold in UTF-8 bytes, not code units", async () => {
  // 400, 512 and 600 code units of "é", two bytes each (800, 1,024 and 1,200 bytes against a
  // threshold of 1,024), and 341 and 342 of "€", three bytes each (1,023 and 1,026)
  const cases = [
    ["é", 400, false],
    ["é", 512, true],
    ["é", 600, true],
    ["é", 1_100, true],
    ["€", 341, false],
    ["€", 342, true],
  ] as const;
  for (const [char, units, compressed] of cases) {
    const text = char.repeat(units);
    const res = await fetchWith(
      app({}, () => new Response(text)),
      { "accept-encoding": "gzip" },
    );
    assert.equal(
      res.headers.get("content-encoding"),
      compressed ? "gzip" : null,
      `${units} ${char}`,
    );
    const bytes = new Uint8Array(await res.arrayBuffer());
    assert.equal(new TextDecoder().decode(compressed ? gunzipSync(bytes) : bytes), text);
  }
});

Deno.test("compress() takes string, byte and touched bodies whole, each byte for byte", async () => {
  const bytes = new TextEncoder().encode(TEXT);
  const cases: [string, () => Response][] = [
    ["string", () => new Response(TEXT)],
    ["bytes", () => new Response(bytes, { headers: { "content-type": "text/plain" } })],
    ["JSON", () => Response.json({ text: TEXT })],
    ["body touched", () => {
      const res = new Response(TEXT);
      void res.body; // a stream from here on: read ahead, not taken as it was given
      return res;
    }],
    ["a clone", () => new Response(TEXT).clone()],
  ];
  for (const [name, response] of cases) {
    const res = await fetchWith(app({}, response), { "accept-encoding": "gzip" });
    assert.equal(res.headers.get("content-encoding"), "gzip", name);
    const out = new Uint8Array(await res.arrayBuffer());
    assert.equal(res.headers.get("content-length"), String(out.byteLength), name);
    const plain = new TextDecoder().decode(gunzipSync(out));
    assert.equal(plain, name === "JSON" ? JSON.stringify({ text: TEXT }) : TEXT, name);
  }
});

Deno.test("compress() streams a body that is not at hand, without Content-Length", async () => {
  const encoder = new TextEncoder();
  const handler = app({}, () => {
    let n = 0;
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        await new Promise((resolve) => setTimeout(resolve, 1));
        if (n++ === 3) controller.close();
        else controller.enqueue(encoder.encode(TEXT));
      },
    });
    return new Response(body, { headers: { "content-type": "text/plain" } });
  });
  const res = await fetchWith(handler, { "accept-encoding": "gzip" });
  assert.equal(res.headers.get("content-encoding"), "gzip");
  assert.equal(res.headers.get("content-length"), null);
  const bytes = new Uint8Array(await res.arrayBuffer());
  assert.equal(new TextDecoder().decode(gunzipSync(bytes)), TEXT.repeat(3));
});

Deno.test("compress() passes a stream's error on, so the response is cut, not ended", async () => {
  const handler = app({}, () => {
    let n = 0;
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        await new Promise((resolve) => setTimeout(resolve, 1));
        if (n++ === 1) controller.error(new Error("disk gone"));
        else controller.enqueue(new TextEncoder().encode(TEXT));
      },
    });
    return new Response(body, { headers: { "content-type": "text/plain" } });
  });
  const res = await fetchWith(handler, { "accept-encoding": "gzip" });
  await assert.rejects(res.arrayBuffer());
});

Deno.test("compress() refuses invalid options", () => {
  assert.throws(() => compress({ threshold: -1 }), /threshold/);
  assert.throws(() => compress({ encodings: ["lzma" as "gzip"] }), /unknown coding/);
  assert.throws(() => compress({ levels: { gzip: 1.5 } }), /levels.gzip/);
  // zlib's range is -1 to 9: it threw for these on every body, a 500 each
  assert.throws(() => compress({ levels: { gzip: 10 } }), /levels.gzip must be from 1 to 9/);
  assert.throws(() => compress({ levels: { deflate: -2 } }), /levels.deflate must be/);
});

Deno.test("compress() answers before a stream's first chunk, which may come much later", async () => {
  let release: () => void = () => {};
  const later = new Promise<void>((resolve) => release = resolve);
  const handler = app({}, () => {
    const body = new ReadableStream<Uint8Array>({
      async start(controller) {
        await later;
        controller.enqueue(new TextEncoder().encode(TEXT));
        controller.close();
      },
    });
    return new Response(body, { headers: { "content-type": "text/event-stream" } });
  });
  const res = await withDeadline( // resolves before release()
    fetchWith(handler, { "accept-encoding": "gzip" }),
    10_000,
    "the response before its first chunk",
  );
  assert.equal(res.headers.get("content-encoding"), "gzip");
  release();
  const bytes = new Uint8Array(await res.arrayBuffer());
  assert.equal(new TextDecoder().decode(gunzipSync(bytes)), TEXT);
});
