// A large multipart upload streamed to disk through multipart() over a real socket: the
// server's RSS grows by at most 64 MiB, whatever the upload's size (256 MiB here; run the
// 1 GiB version with WEFT_UPLOAD_MIB=1024). Not a timing test: the bound is on memory, and
// the deadline only keeps a hung upload from hanging the suite.
import assert from "node:assert/strict";
import { runChild, spawnChild } from "../_child.ts";
import { withDeadline } from "../_deadline.ts";

const MIB = 1024 * 1024;
const SIZE_MIB = Number(Deno.env.get("WEFT_UPLOAD_MIB") ?? 256);
const CHUNK = new Uint8Array(64 * 1024).map((_, i) => (i * 31) & 0xff);

function upload(boundary: string, bytes: number): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  const head = encoder.encode(
    `--${boundary}\r\nContent-Disposition: form-data; name="note"\r\n\r\nbig one\r\n` +
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="../big.bin"\r\n` +
      `Content-Type: application/octet-stream\r\n\r\n`,
  );
  const tail = encoder.encode(`\r\n--${boundary}--\r\n`);
  let sent = -1;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (sent === -1) {
        controller.enqueue(head);
        sent = 0;
      } else if (sent < bytes) {
        const n = Math.min(CHUNK.length, bytes - sent);
        controller.enqueue(n === CHUNK.length ? CHUNK : CHUNK.subarray(0, n));
        sent += n;
      } else {
        controller.enqueue(tail);
        controller.close();
      }
    },
  }, { highWaterMark: 0 });
}

Deno.test(`multipart() streams a ${SIZE_MIB} MiB upload to disk with RSS growth under 64 MiB`, async () => {
  const child = spawnChild(Deno.execPath(), {
    args: ["run", "-A", new URL("./_upload_server.ts", import.meta.url).pathname],
    stdout: "piped",
    stderr: "piped",
    deadlineMs: 600_000,
  });
  try {
    const [, port] = await child.waitForOutput("stdout", /listening (\d+)/, {
      ms: 30_000,
      what: "the upload server to listen",
    });
    const boundary = "----weft-upload-test";
    const bytes = SIZE_MIB * MIB;
    // The body goes to a file first, and curl sends it from there (chunked, as a browser's
    // stream would come) from its own process. curl streams a file; from a pipe it would wait on
    // this process's writes, and `--data-binary @-` reads everything into curl's memory first
    // (1 GiB is more than it takes).
    const source = await Deno.makeTempFile({ prefix: "weft_upload_body_" });
    let output: Deno.CommandOutput;
    try {
      await withDeadline(
        upload(boundary, bytes).pipeTo((await Deno.open(source, { write: true })).writable),
        300_000,
        `the ${SIZE_MIB} MiB body to be written to a file`,
      );
      output = await runChild("curl", {
        args: [
          "-s",
          "-S",
          "--max-time",
          "540",
          "-X",
          "POST",
          "-H",
          `content-type: multipart/form-data; boundary=${boundary}`,
          "-H",
          "transfer-encoding: chunked",
          "--upload-file",
          source,
          "-w",
          "\n%{http_code}",
          `http://127.0.0.1:${port}/upload`,
        ],
        deadlineMs: 600_000,
      });
    } finally {
      await Deno.remove(source);
    }
    const text = new TextDecoder().decode(output.stdout);
    const cut = text.lastIndexOf("\n");
    const curlErrors = new TextDecoder().decode(output.stderr);
    assert.equal(Number(text.slice(cut + 1)), 200, `${text.slice(0, cut)} ${curlErrors}`);
    const report = JSON.parse(text.slice(0, cut));
    assert.equal(report.bytes, bytes);
    const growth = report.peak - report.baseline;
    console.log(`RSS growth for ${SIZE_MIB} MiB: ${(growth / MIB).toFixed(1)} MiB`);
    assert.ok(growth <= 64 * MIB, `RSS grew by ${(growth / MIB).toFixed(1)} MiB`);
  } finally {
    await child.stop();
  }
});
