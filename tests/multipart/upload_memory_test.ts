// A large multipart upload streamed to disk through multipart() over a real socket: the
// server's RSS grows by at most 64 MiB, whatever the upload's size (256 MiB here; run the
// 1 GiB version with WEFT_UPLOAD_MIB=1024). Not a timing test: the bound is on memory, and
// the deadline only keeps a hung upload from hanging the suite.
import assert from "node:assert/strict";
import { spawnChild } from "../_child.ts";
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
    // curl sends the upload (chunked, from its stdin) as a browser would, from its own process
    const curl = new Deno.Command("curl", {
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
        "--data-binary",
        "@-",
        "-w",
        "\n%{http_code}",
        `http://127.0.0.1:${port}/upload`,
      ],
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    let output: Deno.CommandOutput;
    try {
      await withDeadline(
        upload(boundary, bytes).pipeTo(curl.stdin),
        540_000,
        `the ${SIZE_MIB} MiB upload`,
      );
      output = await withDeadline(curl.output(), 60_000, "curl to finish");
    } finally {
      try {
        curl.kill("SIGKILL");
      } catch {
        // already exited
      }
    }
    const text = new TextDecoder().decode(output.stdout);
    const cut = text.lastIndexOf("\n");
    const res = { status: Number(text.slice(cut + 1)), json: () => JSON.parse(text.slice(0, cut)) };
    const report = res.json();
    assert.equal(res.status, 200, JSON.stringify(report));
    assert.equal(report.bytes, bytes);
    const growth = report.peak - report.baseline;
    console.log(`RSS growth for ${SIZE_MIB} MiB: ${(growth / MIB).toFixed(1)} MiB`);
    assert.ok(growth <= 64 * MIB, `RSS grew by ${(growth / MIB).toFixed(1)} MiB`);
  } finally {
    await child.stop();
  }
});
