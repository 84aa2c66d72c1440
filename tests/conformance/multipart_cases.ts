// Conformance cases for weft/multipart over real sockets, on both runtimes: curl -F uploads
// (HTTP/1.1 and HTTP/2) reach the handler as fields and streamed files with sanitised names;
// a hostile boundary is a 400 and a file over its limit a 413, never a 500; a header block sent
// one byte per chunk costs work in proportion to its length.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Env } from "./suite.ts";
import { withDeadline } from "../_deadline.ts";
import { rawExchange } from "./_raw.ts";

export const multipartCases: Record<string, (env: Env) => Promise<void>> = {
  async "multipart: curl -F uploads arrive as fields and streamed files, names sanitised"(env) {
    const { bodyLimit, chain, post, router } = env.weft;
    const { multipart } = env.multipart;
    const app = chain(
      [bodyLimit(8 * 1024 * 1024, { chunked: "stream" })],
      router([post("/upload", async (ctx) => {
        const seen: unknown[] = [];
        for await (const part of multipart(ctx, { fileBytes: 1024 * 1024 })) {
          if (part.kind === "field") seen.push([part.name, part.value]);
          else {
            const bytes = new Uint8Array(await new Response(part.stream).arrayBuffer());
            seen.push([part.name, part.filename, bytes.byteLength, bytes[bytes.length - 1]]);
          }
        }
        return Response.json(seen);
      })]),
    );
    const dir = mkdtempSync(join(tmpdir(), "weft-multipart-"));
    const small = join(dir, "small.bin");
    const big = join(dir, "big.bin");
    writeFileSync(small, new Uint8Array(300_000).fill(7));
    writeFileSync(big, new Uint8Array(2 * 1024 * 1024).fill(9));
    const quiet = { port: 0, hostname: "127.0.0.1", onListen() {} };
    const plain = env.weft.serve(app, quiet);
    const tls = env.weft.serve(app, { ...quiet, cert: env.cert, key: env.key });
    try {
      const targets: [string, string[]][] = [
        [`http://127.0.0.1:${plain.addr.port}/upload`, ["--http1.1"]],
        [`https://localhost:${tls.addr.port}/upload`, ["--http2", "--cacert", env.caFile]],
      ];
      for (const [url, flags] of targets) {
        const ok = await env.curl([
          ...flags,
          "-F",
          "title=holiday ✓",
          "-F",
          `photo=@${small};filename=../../etc/passwd`,
          "-F",
          `scan=@${small};filename=C:\\x\\y`,
          url,
        ]);
        assert.equal(ok.status, 200, ok.body);
        assert.deepEqual(JSON.parse(ok.body), [
          ["title", "holiday ✓"],
          ["photo", "passwd", 300_000, 7],
          ["scan", "y", 300_000, 7],
        ]);
        // Refusals are checked over HTTP/1.1: over HTTP/2 the server answers before the upload
        // is complete and resets the stream (RST_STREAM, RFC 9113 §8.1), which curl 7.88
        // reports as a framing error instead of showing the response.
        if (flags[0] !== "--http1.1") continue;
        const tooBig = await env.curl([...flags, "-F", `f=@${big}`, url]);
        assert.equal(tooBig.status, 413, tooBig.body);
        assert.equal(tooBig.headers.get("content-type"), "application/problem+json");
        const boundary = "b".repeat(71);
        const bad = await env.curl([
          ...flags,
          "-H",
          `content-type: multipart/form-data; boundary=${boundary}`,
          "--data-binary",
          `--${boundary}\r\nContent-Disposition: form-data; name="a"\r\n\r\nv\r\n--${boundary}--`,
          url,
        ]);
        assert.equal(bad.status, 400, bad.body);
        const missing = await env.curl([
          ...flags,
          "-H",
          "content-type: multipart/form-data",
          "--data-binary",
          "x",
          url,
        ]);
        assert.equal(missing.status, 400, missing.body);
      }
    } finally {
      await withDeadline(
        Promise.all([plain.shutdown(), tls.shutdown()]),
        10_000,
        "the servers to shut down",
      );
      rmSync(dir, { recursive: true, force: true });
    }
  },
  async "multipart: a quote in a name or file name, which curl -F sends as %22, arrives as sent; file names are cut to 255 bytes"(
    env,
  ) {
    // browsers and curl write `"` in a name as %22 (the HTML form encoding); "a"b.txt" used to
    // arrive as "a%22b.txt"
    const { post, router } = env.weft;
    const { multipart } = env.multipart;
    const app = router([post("/names", async (ctx) => {
      const seen: string[][] = [];
      for await (const part of multipart(ctx)) {
        if (part.kind === "field") seen.push([part.name, part.value]);
        else {
          seen.push([part.name, part.rawFilename, part.filename]);
          await part.stream.cancel();
        }
      }
      return Response.json(seen);
    })]);
    const dir = mkdtempSync(join(tmpdir(), "weft-multipart-"));
    const file = join(dir, "file.txt");
    writeFileSync(file, "x");
    const server = env.weft.serve(app, { port: 0, hostname: "127.0.0.1", onListen() {} });
    try {
      const res = await env.curl([
        "--http1.1",
        "-F",
        'say "hi"=v',
        "-F",
        `doc=@${file};filename=He said "hi".txt`,
        "-F",
        `long=@${file};filename=${"é".repeat(200)}.txt`,
        `http://127.0.0.1:${server.addr.port}/names`,
      ]);
      assert.equal(res.status, 200, res.body);
      assert.deepEqual(JSON.parse(res.body), [
        ['say "hi"', "v"],
        ["doc", 'He said "hi".txt', "He said hi.txt"], // `"` is no name on Windows
        // 404 bytes of UTF-8, which no file system takes, cut to 255 with the extension kept
        ["long", `${"é".repeat(200)}.txt`, `${"é".repeat(125)}.txt`],
      ]);
    } finally {
      await withDeadline(server.shutdown(), 10_000, "the server to shut down");
      rmSync(dir, { recursive: true, force: true });
    }
  },
  async "multipart: a field is decoded by its charset or the _charset_ field's"(env) {
    // RFC 7578 §4.4, §4.6: a page in windows-1252 sends its fields in that charset and says so
    // in a _charset_ field; they used to be decoded as UTF-8, their bytes lost to U+FFFD
    const { post, router } = env.weft;
    const { multipart } = env.multipart;
    const app = router([post("/fields", async (ctx) => {
      const seen: string[][] = [];
      for await (const part of multipart(ctx)) {
        if (part.kind === "field") seen.push([part.name, part.value]);
      }
      return Response.json(seen);
    })]);
    const head = (name: string, type = "") =>
      Buffer.from(
        `--b\r\nContent-Disposition: form-data; name="${name}"\r\n${type}\r\n`,
        "latin1",
      );
    const dir = mkdtempSync(join(tmpdir(), "weft-multipart-"));
    const file = join(dir, "body.bin");
    writeFileSync(
      file,
      Buffer.concat([
        head("_charset_"),
        Buffer.from("windows-1252\r\n"),
        head("price"),
        Buffer.from([0x80, 0x20, 0x35, 0x0d, 0x0a]), // "€ 5" in windows-1252
        head("quote", "Content-Type: text/plain; charset=iso-8859-1\r\n"),
        // "“hi”": iso-8859-1 names windows-1252 (WHATWG Encoding), which Node 20's decoder
        // reads as Latin-1's C1 controls
        Buffer.from([0x93, 0x68, 0x69, 0x94, 0x0d, 0x0a]),
        head("name", "Content-Type: text/plain; charset=iso-8859-1\r\n"),
        Buffer.from([0x52, 0xe9, 0x6d, 0x69, 0x0d, 0x0a]), // "Rémi"
        head("text", "Content-Type: text/plain; charset=utf-8\r\n"),
        Buffer.from("✓\r\n--b--"),
      ]),
    );
    const server = env.weft.serve(app, { port: 0, hostname: "127.0.0.1", onListen() {} });
    try {
      const res = await env.curl([
        "--http1.1",
        "-H",
        "content-type: multipart/form-data; boundary=b",
        "--data-binary",
        `@${file}`,
        `http://127.0.0.1:${server.addr.port}/fields`,
      ]);
      assert.equal(res.status, 200, res.body);
      assert.deepEqual(JSON.parse(res.body), [
        ["_charset_", "windows-1252"],
        ["price", "€ 5"],
        ["quote", "“hi”"],
        ["name", "Rémi"],
        ["text", "✓"],
      ]);
    } finally {
      await withDeadline(server.shutdown(), 10_000, "the server to shut down");
      rmSync(dir, { recursive: true, force: true });
    }
  },
  async "multipart: a handler that leaves the loop at a file can still stream it on"(env) {
    // `return new Response(part.stream)` from inside the loop (an echo, a proxy to storage)
    // used to cancel the body as the loop was left, and the file's stream failed: a 500
    const { chain, bodyLimit, post, router } = env.weft;
    const { multipart } = env.multipart;
    const app = chain(
      [bodyLimit(1024 * 1024, { chunked: "stream" })],
      router([post("/echo", async (ctx) => {
        for await (const part of multipart(ctx)) {
          if (part.kind === "file") return new Response(part.stream);
        }
        return new Response("no file", { status: 400 });
      })]),
    );
    const dir = mkdtempSync(join(tmpdir(), "weft-multipart-"));
    const file = join(dir, "file.bin");
    writeFileSync(file, "z".repeat(300_000));
    const server = env.weft.serve(app, { port: 0, hostname: "127.0.0.1", onListen() {} });
    try {
      const res = await env.curl([
        "--http1.1",
        "-F",
        `doc=@${file}`,
        "-F",
        "after=a field after the file",
        `http://127.0.0.1:${server.addr.port}/echo`,
      ]);
      assert.equal(res.status, 200, res.body);
      assert.equal(res.body, "z".repeat(300_000));
    } finally {
      await withDeadline(server.shutdown(), 10_000, "the server to shut down");
      rmSync(dir, { recursive: true, force: true });
    }
  },
  async "multipart: a part header sent one byte per chunk is parsed with work linear in its length"(
    env,
  ) {
    // A chunked body of 1-byte chunks reaches the app one byte per read on both runtimes. The
    // parser used to scan a header block for its end from its start, and copy it whole, at
    // every chunk: 16 KB of "\rx" took 2 s of CPU, 1 MiB of such parts two minutes. Bytes
    // compared and copied by the handler's reads are counted while it parses (a count, not a
    // time): they stay within a small multiple of the body, where they were about 16,000 ×.
    const { post, router } = env.weft;
    const { multipart } = env.multipart;
    const proto = Uint8Array.prototype as unknown as Record<"indexOf" | "set", unknown>;
    const own = {
      indexOf: Object.getOwnPropertyDescriptor(proto, "indexOf"),
      set: Object.getOwnPropertyDescriptor(proto, "set"),
    };
    const { indexOf, set } = Uint8Array.prototype;
    let searches = 0;
    let copied = 0;
    const app = router([post("/", async (ctx) => {
      searches = copied = 0;
      proto.indexOf = function (this: Uint8Array, ...args: Parameters<typeof indexOf>) {
        searches++;
        return indexOf.apply(this, args);
      };
      proto.set = function (this: Uint8Array, source: ArrayLike<number>, offset?: number) {
        copied += source.length;
        return set.call(this, source, offset);
      };
      const seen: string[] = [];
      try {
        for await (const part of multipart(ctx)) {
          if (part.kind === "field") seen.push(`${part.name}=${part.value}`);
        }
      } finally {
        for (const name of ["indexOf", "set"] as const) {
          if (own[name] === undefined) delete proto[name];
          else Object.defineProperty(proto, name, own[name]);
        }
      }
      return Response.json(seen);
    })]);
    const body = '--b\r\nContent-Disposition: form-data; name="a"\r\nX-Pad: ' +
      "\rx".repeat(8000) + "\r\n\r\nv\r\n--b--";
    let request = "POST / HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n" +
      "Content-Type: multipart/form-data; boundary=b\r\nTransfer-Encoding: chunked\r\n\r\n";
    for (const char of body) request += `1\r\n${char}\r\n`;
    request += "0\r\n\r\n";
    const server = env.weft.serve(app, { port: 0, hostname: "127.0.0.1", onListen() {} });
    try {
      const answer = await rawExchange(server.addr.port, request, { ms: 60_000 });
      assert.match(answer, /^HTTP\/1\.1 200 /);
      assert.equal(answer.slice(answer.indexOf("\r\n\r\n") + 4), '["a=v"]');
      assert.ok(searches <= 4 * body.length, `${searches} searches for ${body.length} bytes`);
      assert.ok(copied <= 4 * body.length, `${copied} bytes copied for ${body.length} bytes`);
    } finally {
      await withDeadline(server.shutdown(), 10_000, "the server to shut down");
    }
  },
};
