import assert from "node:assert/strict";
import busboy from "busboy";
import { chain, HttpError, post, router } from "../../mod.ts";
import { multipart, type MultipartOptions, sanitizeFilename } from "../../lib/multipart/mod.ts";

const encoder = new TextEncoder();

interface Seen {
  kind: "field" | "file";
  name: string;
  filename?: string;
  contentType: string;
  value: string; // a field's value, or a file's bytes as hex
}

function hex(bytes: Uint8Array): string {
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

function chunked(body: Uint8Array, sizes: number[]): ReadableStream<Uint8Array> {
  let pos = 0;
  let i = 0;
  return new ReadableStream({
    pull(controller) {
      if (pos >= body.length) return controller.close();
      const size = sizes[i++ % sizes.length];
      controller.enqueue(body.slice(pos, pos + size));
      pos += size;
    },
  });
}

function request(body: Uint8Array | ReadableStream<Uint8Array>, boundary: string): Request {
  return new Request("http://localhost/", {
    method: "POST",
    body,
    headers: { "content-type": `multipart/form-data; boundary="${boundary}"` },
    duplex: "half",
  } as RequestInit);
}

async function weft(req: Request, options: MultipartOptions = {}): Promise<Seen[]> {
  const seen: Seen[] = [];
  for await (const part of multipart(req, { totalBytes: Infinity, ...options })) {
    if (part.kind === "field") {
      seen.push({
        kind: "field",
        name: part.name,
        contentType: part.contentType,
        value: part.value,
      });
    } else {
      const bytes = new Uint8Array(await new Response(part.stream).arrayBuffer());
      seen.push({
        kind: "file",
        name: part.name,
        filename: part.rawFilename,
        contentType: part.contentType,
        value: hex(bytes),
      });
    }
  }
  return seen;
}

function reference(body: Uint8Array, boundary: string): Promise<Seen[]> {
  return new Promise((resolve, reject) => {
    const seen: Seen[] = [];
    const pending: Promise<void>[] = [];
    const bb = busboy({
      headers: { "content-type": `multipart/form-data; boundary="${boundary}"` },
      defParamCharset: "utf8",
      preservePath: true,
      limits: { fieldSize: Infinity, parts: Infinity, fields: Infinity, files: Infinity },
    });
    bb.on("field", (name: string, value: string, info: { mimeType: string }) => {
      seen.push({ kind: "field", name, contentType: info.mimeType, value });
    });
    bb.on(
      "file",
      (
        name: string,
        stream: NodeJS.ReadableStream,
        info: { filename: string; mimeType: string },
      ) => {
        const entry: Seen = {
          kind: "file",
          name,
          filename: info.filename,
          contentType: info.mimeType,
          value: "",
        };
        seen.push(entry);
        const chunks: Uint8Array[] = [];
        pending.push(
          new Promise((done) => {
            stream.on("data", (c: Uint8Array) => chunks.push(c));
            stream.on("end", () => {
              entry.value = chunks.map(hex).join("");
              done();
            });
          }),
        );
      },
    );
    bb.on("error", reject);
    bb.on("close", () => Promise.all(pending).then(() => resolve(seen)));
    bb.end(body);
  });
}

// A seeded generator, so that a failing input can be reproduced from its seed.
function random(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function generate(seed: number): { body: Uint8Array; boundary: string; sizes: number[] } {
  const rnd = random(seed);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(rnd() * list.length)];
  const boundary = pick([
    "x",
    "----WebKitFormBoundary7MA4YWxkTrZu0gW",
    "a'()+_,-./:=?b",
    "b".repeat(70),
  ]);
  const tricky = [`\r\n--${boundary.slice(0, -1)}`, `\r\n-`, "\r\n", "--", `--${boundary}`, "\r"];
  const names = ["a", "field name", "ünï", "x-1", 'q"uote'];
  const parts: Uint8Array[] = [];
  if (rnd() < 0.3) parts.push(encoder.encode("a preamble\r\n"));
  const count = Math.floor(rnd() * 6);
  for (let p = 0; p < count; p++) {
    const name = pick(names).replace(/"/g, '\\"');
    const isFile = rnd() < 0.5;
    let head = `--${boundary}\r\nContent-Disposition: form-data; name="${name}"`;
    if (isFile) {
      // (no empty filename: busboy makes such a part a field; Weft, like the Fetch standard's
      // FormData parser, a file named "", which is what a browser sends for an empty input)
      const filename = pick(["a.txt", "../../etc/passwd", "C:\\x\\y", "ü.bin", " "]);
      head += `; filename="${filename.replace(/\\/g, "\\\\")}"`;
    }
    head += "\r\n";
    if (rnd() < 0.5) {
      head += `Content-Type: ${isFile ? "image/png" : "text/plain; charset=utf-8"}\r\n`;
    }
    head += "\r\n";
    parts.push(encoder.encode(head));
    // content that holds the delimiter (CRLF "--" boundary, the CRLF possibly the head's)
    // would be invalid (RFC 2046 §5.1.1): such draws are dropped
    let content: number[];
    do {
      content = [];
      const length = Math.floor(rnd() * 300);
      while (content.length < length) {
        if (rnd() < 0.1) content.push(...encoder.encode(pick(tricky)));
        else if (isFile) content.push(Math.floor(rnd() * 256));
        else content.push(...encoder.encode(pick(["a", "é", " ", "z", "€"])));
      }
    } while (String.fromCharCode(13, 10, ...content).includes(`\r\n--${boundary}`));
    parts.push(new Uint8Array(content), encoder.encode("\r\n"));
  }
  parts.push(encoder.encode(`--${boundary}--`));
  if (rnd() < 0.3) parts.push(encoder.encode("\r\nan epilogue"));
  const total = parts.reduce((n, p) => n + p.length, 0);
  const body = new Uint8Array(total);
  let offset = 0;
  for (const p of parts) {
    body.set(p, offset);
    offset += p.length;
  }
  const sizes = Array.from({ length: 5 }, () => 1 + Math.floor(rnd() * 100));
  return { body, boundary, sizes };
}

Deno.test("multipart() agrees with busboy on 300 generated bodies, in random chunks", async () => {
  for (let seed = 1; seed <= 300; seed++) {
    const { body, boundary, sizes } = generate(seed);
    const expected = await reference(body, boundary);
    const actual = await weft(request(chunked(body, sizes), boundary)).catch((error) => {
      throw new Error(`seed ${seed}: ${JSON.stringify(new TextDecoder().decode(body))}`, {
        cause: error,
      });
    });
    // busboy reports the media type alone; Weft the whole Content-Type, parameters included
    for (const part of actual) part.contentType = part.contentType.split(";")[0];
    assert.deepEqual(actual, expected, `seed ${seed}`);
  }
});

Deno.test("multipart() splits a body at every byte the same way, delimiter prefixes included", async () => {
  // The file holds every proper prefix of its delimiter, each followed by a byte that breaks
  // it, and ends on one: a chunk may end in what looks like the start of a delimiter.
  const boundary = "b0undary";
  const delimiter = `\r\n--${boundary}`;
  let content = "";
  for (let k = 1; k < delimiter.length; k++) content += delimiter.slice(0, k) + "x";
  content += "\r\n-";
  const body = encoder.encode(
    `--${boundary}\r\nContent-Disposition: form-data; name="f"; filename="a.bin"\r\n\r\n` +
      `${content}\r\n--${boundary}\r\nContent-Disposition: form-data; name="t"\r\n\r\n` +
      `v\r\n--${boundary}--`,
  );
  const expected = await reference(body, boundary);
  assert.equal(expected[0].value, hex(encoder.encode(content)));
  for (let cut = 1; cut < body.length; cut++) {
    const actual = await weft(request(chunked(body, [cut, body.length]), boundary));
    for (const part of actual) part.contentType = part.contentType.split(";")[0];
    assert.deepEqual(actual, expected, `split at ${cut}`);
  }
});

Deno.test("multipart() reads a browser's FormData, with RFC 7578 names and filename*", async () => {
  const form = new FormData();
  form.append("title", "Ünïcode ✓");
  form.append(
    "doc",
    new File([new Uint8Array([0, 1, 2, 255])], "report 2024.pdf", { type: "application/pdf" }),
  );
  form.append("empty", new File([], ""));
  const parts = await weft(new Request("http://localhost/", { method: "POST", body: form }));
  assert.deepEqual(parts.map((p) => [p.kind, p.name, p.filename, p.value]), [
    ["field", "title", undefined, "Ünïcode ✓"],
    ["file", "doc", "report 2024.pdf", "000102ff"],
    ["file", "empty", "", ""],
  ]);
  const ext = encoder.encode(
    `--b\r\nContent-Disposition: form-data; name="f"; filename="fallback.txt"; filename*=UTF-8''%E2%82%AC%20rates.txt\r\n\r\nx\r\n--b--`,
  );
  for await (const part of multipart(request(ext, "b"))) {
    assert.equal(part.kind, "file");
    if (part.kind === "file") {
      assert.equal(part.filename, "€ rates.txt");
      await part.stream.cancel();
    }
  }
});

Deno.test("multipart() keeps backslashes of a file name sent as browsers and curl send it", async () => {
  const body = encoder.encode(
    '--b\r\nContent-Disposition: form-data; name="f"; filename="C:\\x\\y"\r\n\r\nz\r\n' +
      '--b\r\nContent-Disposition: form-data; name="g"; filename="a\\"b\\\\c"\r\n\r\nz\r\n--b--',
  );
  const names: string[][] = [];
  for await (const part of multipart(request(body, "b"))) {
    if (part.kind === "file") {
      names.push([part.rawFilename, part.filename]);
      await part.stream.cancel();
    }
  }
  assert.deepEqual(names, [["C:\\x\\y", "y"], ['a"b\\c', "c"]]);
});

Deno.test("multipart() decodes %22, %0D and %0A in names as browsers and curl write them", async () => {
  // the HTML form encoding (the runtime's FormData here, browsers, curl -F) writes `"`, CR and
  // LF in a name as %22, %0D, %0A; a file "He said "hi".txt" used to arrive as
  // "He said %22hi%22.txt"
  const form = new FormData();
  form.append('say "hi"\r\nnow', "v");
  form.append("doc", new File(["x"], 'He said "hi".txt'));
  const parts = await weft(new Request("http://localhost/", { method: "POST", body: form }));
  assert.deepEqual(parts.map((p) => [p.name, p.filename]), [
    ['say "hi"\r\nnow', undefined],
    ["doc", 'He said "hi".txt'],
  ]);
  // only those three, as the Fetch standard's parser decodes them; filename* is percent-decoded
  // once, as RFC 8187 says
  const body = encoder.encode(
    '--b\r\nContent-Disposition: form-data; name="100%25 %22"; filename="%41%22%0a"\r\n\r\nz\r\n' +
      "--b\r\nContent-Disposition: form-data; name=g; filename*=UTF-8''%2522\r\n\r\nz\r\n--b--",
  );
  assert.deepEqual((await weft(request(body, "b"))).map((p) => [p.name, p.filename]), [
    ['100%25 "', '%41"%0a'],
    ["g", "%22"],
  ]);
});

Deno.test("sanitizeFilename() keeps one path component without control characters", () => {
  assert.equal(sanitizeFilename("../../etc/passwd"), "passwd");
  assert.equal(sanitizeFilename("C:\\x\\y"), "y");
  assert.equal(sanitizeFilename("/abs/path.txt"), "path.txt");
  assert.equal(sanitizeFilename("evil\u0000.txt"), "evil.txt");
  assert.equal(sanitizeFilename("a\r\nb"), "ab");
  assert.equal(sanitizeFilename("dir/.."), "");
  assert.equal(sanitizeFilename("  report.pdf "), "report.pdf");
  assert.equal(sanitizeFilename("résumé.pdf"), "résumé.pdf");
  // Windows: a drive-relative name (an alternate data stream under a folder), device names,
  // trailing dots and spaces; bidirectional overrides that disguise an extension; C1 controls
  assert.equal(sanitizeFilename("C:evil.txt"), "evil.txt");
  assert.equal(sanitizeFilename("file.txt:stream"), "stream");
  assert.equal(sanitizeFilename("CON"), "_CON");
  assert.equal(sanitizeFilename("nul.txt"), "_nul.txt");
  assert.equal(sanitizeFilename("com1.log"), "_com1.log");
  assert.equal(sanitizeFilename("console.log"), "console.log");
  assert.equal(sanitizeFilename("report.pdf. . "), "report.pdf");
  assert.equal(sanitizeFilename("..."), "");
  assert.equal(sanitizeFilename("x\u202Etxt.exe"), "xtxt.exe");
  assert.equal(sanitizeFilename("a\u2067b\u2069.js"), "ab.js");
  assert.equal(sanitizeFilename("a\u0085b"), "ab");
  // what Windows refuses in a name (CreateFile fails, and `?`, `*`, `<`, `>`, `"` are its
  // wildcards), which a browser sends for "He said "hi".txt" since %22 is decoded
  assert.equal(sanitizeFilename('He said "hi".txt'), "He said hi.txt");
  assert.equal(sanitizeFilename("a<b>c|d?e*.txt"), "abcde.txt");
  assert.equal(sanitizeFilename('nul".txt'), "_nul.txt");
  // at most 255 bytes of UTF-8 (NAME_MAX; NTFS counts 255 UTF-16 units), the extension kept:
  // a longer name failed the save with ENAMETOOLONG, a 500
  const bytes = (name: string) => encoder.encode(name).length;
  assert.equal(sanitizeFilename(`${"a".repeat(300)}.txt`), `${"a".repeat(251)}.txt`);
  assert.equal(sanitizeFilename(`${"é".repeat(200)}.pdf`), `${"é".repeat(125)}.pdf`);
  assert.equal(bytes(sanitizeFilename(`${"😀".repeat(100)}.png`)), 252);
  assert.equal(sanitizeFilename(`x.${"b".repeat(300)}`), `x.${"b".repeat(253)}`);
  assert.equal(sanitizeFilename(`${"a".repeat(254)}. .txt`), `${"a".repeat(251)}.txt`);
  const dir = Deno.makeTempDirSync();
  try {
    Deno.writeTextFileSync(`${dir}/${sanitizeFilename(`${"€".repeat(300)}.txt`)}`, "saved");
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});

Deno.test("a part whose filename* cannot be decoded is still a file, its bytes untouched", async () => {
  const bytes = [0xff, 0xfe, 0x00, 0x80, 0x41];
  for (
    const [disposition, filename] of [
      `filename*=UTF-8''100%25%ZZ.bin`,
      `filename*=windows-1252''x.txt`,
      `filename*=''x`,
      `filename="plain.bin"; filename*=UTF-8''%FF`,
    ].map((d, i) => [d, i === 3 ? "plain.bin" : ""])
  ) {
    const head = encoder.encode(
      `--b\r\nContent-Disposition: form-data; name="doc"; ${disposition}\r\n\r\n`,
    );
    const body = new Uint8Array([...head, ...bytes, ...encoder.encode("\r\n--b--")]);
    const parts = await weft(request(body, "b"), { fieldBytes: 1 });
    assert.deepEqual(
      parts.map((p) => [p.kind, p.name, p.filename, p.value]),
      [["file", "doc", filename, "fffe008041"]],
      disposition,
    );
  }
});

Deno.test("a body that cannot be read to its end is a 400, not a 500", async () => {
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(
        encoder.encode('--b\r\nContent-Disposition: form-data; name="f"; filename="x"\r\n\r\nv'),
      );
      controller.error(new Error("the connection was reset")); // as a runtime reports it
    },
  });
  assert.equal(await statusOf(body, "multipart/form-data; boundary=b"), 400);
});

async function statusOf(
  body: BodyInit,
  contentType: string | null,
  options: MultipartOptions = {},
): Promise<number> {
  const app = chain(
    [],
    router([post("/", async (ctx) => {
      for await (const part of multipart(ctx, options)) {
        if (part.kind === "file") await part.stream.pipeTo(new WritableStream());
      }
      return new Response("ok");
    })]),
  );
  const headers: Record<string, string> = contentType === null
    ? {}
    : { "content-type": contentType };
  const res = await app.fetch(new Request("http://localhost/", { method: "POST", body, headers }));
  await res.body?.cancel();
  return res.status;
}

Deno.test("multipart() answers bad input with 4xx, never 500", async () => {
  const part = (boundary: string) =>
    `--${boundary}\r\nContent-Disposition: form-data; name="a"\r\n\r\nv\r\n--${boundary}--`;
  assert.equal(await statusOf(part("b"), "multipart/form-data; boundary=b"), 200);
  assert.equal(await statusOf(part("b"), "multipart/form-data"), 400); // no boundary
  assert.equal(await statusOf(part("b"), "multipart/form-data; boundary="), 400);
  const b70 = "b".repeat(70);
  assert.equal(await statusOf(part(b70), `multipart/form-data; boundary=${b70}`), 200);
  const b71 = "b".repeat(71);
  assert.equal(await statusOf(part(b71), `multipart/form-data; boundary=${b71}`), 400);
  assert.equal(await statusOf(part("b"), 'multipart/form-data; boundary="a b "'), 400); // ends in a space
  assert.equal(await statusOf(part("b"), "application/json"), 415);
  assert.equal(await statusOf(part("b"), null), 415);
  assert.equal(await statusOf(part("b").slice(0, -4), "multipart/form-data; boundary=b"), 400); // cut short
  assert.equal(await statusOf("no delimiter at all", "multipart/form-data; boundary=b"), 400);
  const noName = "--b\r\nContent-Disposition: form-data\r\n\r\nv\r\n--b--";
  assert.equal(await statusOf(noName, "multipart/form-data; boundary=b"), 400);
  const noHeaders = "--b\r\n\r\nv\r\n--b--";
  assert.equal(await statusOf(noHeaders, "multipart/form-data; boundary=b"), 400);
  const badHeader = "--b\r\nno colon here\r\n\r\nv\r\n--b--";
  assert.equal(await statusOf(badHeader, "multipart/form-data; boundary=b"), 400);
  const extra = "--b junk\r\nContent-Disposition: form-data; name=a\r\n\r\nv\r\n--b--";
  assert.equal(await statusOf(extra, "multipart/form-data; boundary=b"), 400);
});

Deno.test("multipart() answers 10,000 empty parts and a 1 MB part header with 413", async () => {
  const empty = "--b\r\nContent-Disposition: form-data; name=a\r\n\r\n\r\n".repeat(10_000) +
    "--b--";
  const type = "multipart/form-data; boundary=b";
  const limit = { totalBytes: 10_000_000 };
  assert.equal(await statusOf(empty, type, limit), 413);
  assert.equal(await statusOf(empty, type, { ...limit, parts: 10_000 }), 200);
  const bigHeader = `--b\r\nContent-Disposition: form-data; name=a\r\nX-Pad: ${
    "p".repeat(1_000_000)
  }\r\n\r\nv\r\n--b--`;
  assert.equal(await statusOf(bigHeader, type, limit), 413);
  const neverEnding = `--b\r\nX-Pad: ${"p".repeat(1_000_000)}`;
  assert.equal(await statusOf(neverEnding, type, limit), 413);
});

Deno.test("multipart() enforces field, file and total limits while reading", async () => {
  const type = "multipart/form-data; boundary=b";
  const field = `--b\r\nContent-Disposition: form-data; name=a\r\n\r\n${"v".repeat(100)}\r\n--b--`;
  assert.equal(await statusOf(field, type, { fieldBytes: 100 }), 200);
  assert.equal(await statusOf(field, type, { fieldBytes: 99 }), 413);
  const file = `--b\r\nContent-Disposition: form-data; name=a; filename=x\r\n\r\n${
    "v".repeat(100)
  }\r\n--b--`;
  assert.equal(await statusOf(file, type, { fileBytes: 100 }), 200);
  assert.equal(await statusOf(file, type, { fileBytes: 99 }), 413);
  assert.equal(await statusOf(file, type, { totalBytes: 100 }), 413);
  // the context's body limit applies too (1 MiB by default), also without Content-Length
  const big = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(
        encoder.encode("--b\r\nContent-Disposition: form-data; name=a; filename=x\r\n\r\n"),
      );
      for (let i = 0; i < 20; i++) controller.enqueue(new Uint8Array(65_536));
      controller.enqueue(encoder.encode("\r\n--b--"));
      controller.close();
    },
  });
  assert.equal(await statusOf(big, type), 413);
});

Deno.test("multipart() discards an unread file when the next part is asked for", async () => {
  const body = "--b\r\nContent-Disposition: form-data; name=f; filename=x\r\n\r\nfile bytes\r\n" +
    "--b\r\nContent-Disposition: form-data; name=after\r\n\r\nok\r\n--b--";
  const seen: string[] = [];
  let skipped: ReadableStream<Uint8Array> | undefined;
  for await (const part of multipart(request(encoder.encode(body), "b"))) {
    if (part.kind === "file") skipped = part.stream;
    else seen.push(`${part.name}=${part.value}`);
  }
  assert.deepEqual(seen, ["after=ok"]);
  await assert.rejects(new Response(skipped).arrayBuffer(), /next part was asked for first/);
  assert.throws(() => multipart(request(encoder.encode(body), "b"), { parts: -1 }), RangeError);
  assert.ok(new HttpError(413) instanceof Error);
});

Deno.test("a field is decoded by its charset, or by the _charset_ field before it", async () => {
  // RFC 7578 §4.4 and §4.6: a field's value used to be decoded as UTF-8 whatever it said, so
  // "é" sent in ISO-8859-1 arrived as U+FFFD, its byte lost (busboy decodes it as sent)
  const head = (name: string, type?: string) =>
    encoder.encode(
      `--b\r\nContent-Disposition: form-data; name="${name}"\r\n` +
        (type === undefined ? "" : `Content-Type: ${type}\r\n`) + "\r\n",
    );
  const crlf = encoder.encode("\r\n");
  const body = new Uint8Array([
    ...head("latin", "text/plain; charset=ISO-8859-1"),
    0xe9,
    ...crlf,
    ...head("utf16", 'text/plain; charset="utf-16le"'),
    0xac,
    0x20,
    ...crlf,
    ...head("unknown", "text/plain; charset=x-no-such-charset"),
    0xc3,
    0xa9,
    ...crlf,
    ...head("before"),
    0xc3,
    0xa9,
    ...crlf,
    ...head("_charset_"),
    ...encoder.encode("windows-1252"),
    ...crlf,
    ...head("after"),
    0x80,
    ...crlf,
    ...head("own", "text/plain; charset=utf-8"),
    0xe2,
    0x82,
    0xac,
    ...encoder.encode("\r\n--b--"),
  ]);
  const values = (await weft(request(body, "b"))).map((p) => [p.name, p.value]);
  assert.deepEqual(values, [
    ["latin", "é"],
    ["utf16", "€"],
    ["unknown", "é"],
    ["before", "é"],
    ["_charset_", "windows-1252"],
    ["after", "€"],
    ["own", "€"],
  ]);
  // as busboy does by the part's charset (it has no _charset_)
  const charsets = new Uint8Array([
    ...head("latin", "text/plain; charset=ISO-8859-1"),
    0xe9,
    ...crlf,
    ...head("utf16", "text/plain; charset=utf-16le"),
    0xac,
    0x20,
    ...encoder.encode("\r\n--b--"),
  ]);
  const decoded = await weft(request(charsets, "b"));
  for (const part of decoded) part.contentType = part.contentType.split(";")[0];
  assert.deepEqual(decoded, await reference(charsets, "b"));
});

Deno.test("a loop left at a file keeps the file readable, and cancels the body at its end", async () => {
  // `break` or `return` with a file at hand (to stream it on) used to cancel the body at once:
  // the file's stream then failed with a TypeError, a 500
  const body = "--b\r\nContent-Disposition: form-data; name=f; filename=x\r\n\r\nfile bytes\r\n" +
    "--b\r\nContent-Disposition: form-data; name=after\r\n\r\nok\r\n--b--";
  let cancelled = 0;
  const source = () => {
    let sent = false;
    return new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent) return; // the rest of the body is still on its way
        sent = true;
        controller.enqueue(encoder.encode(body));
      },
      cancel() {
        cancelled++;
      },
    });
  };
  const app = router([post("/", async (ctx) => {
    for await (const part of multipart(ctx)) {
      if (part.kind === "file") return new Response(part.stream);
    }
    return new Response("no file");
  })]);
  const res = await app.fetch(
    new Request("http://localhost/", {
      method: "POST",
      body: source(),
      headers: { "content-type": "multipart/form-data; boundary=b" },
      duplex: "half",
    } as RequestInit),
  );
  assert.equal(res.status, 200);
  assert.equal(cancelled, 0);
  assert.equal(await res.text(), "file bytes");
  assert.equal(cancelled, 1);
  // and so does a file whose stream is cancelled, or left for a later part
  for (const leave of ["cancel", "ask"] as const) {
    cancelled = 0;
    const parts = multipart(request(source(), "b"));
    const first = await parts.next();
    assert.ok(!first.done && first.value.kind === "file");
    if (leave === "ask") {
      const next = await parts.next();
      assert.ok(!next.done && next.value.kind === "field" && next.value.value === "ok");
    }
    await parts.return!(undefined);
    assert.equal(cancelled, leave === "ask" ? 1 : 0);
    if (leave === "cancel") {
      await first.value.stream.cancel();
      assert.equal(cancelled, 1);
    }
  }
});

Deno.test("multipart() answers a body in a content coding 415 with Accept-Encoding: identity", async () => {
  const app = router([post("/", async (ctx) => {
    let n = 0;
    for await (const _ of multipart(ctx)) n++;
    return new Response(String(n));
  })]);
  const form = '--b\r\nContent-Disposition: form-data; name="a"\r\n\r\nv\r\n--b--';
  const send = (encoding: string) =>
    app.fetch(
      new Request("http://localhost/", {
        method: "POST",
        body: form,
        headers: {
          "content-type": "multipart/form-data; boundary=b",
          "content-encoding": encoding,
        },
      }),
    );
  // a coded body is refused as such, not misread as a broken form (400)
  const coded = await send("gzip");
  assert.equal(coded.status, 415);
  assert.equal(coded.headers.get("accept-encoding"), "identity");
  await coded.body?.cancel();
  const plain = await send("identity");
  assert.equal(plain.status, 200);
  assert.equal(await plain.text(), "1");
});
