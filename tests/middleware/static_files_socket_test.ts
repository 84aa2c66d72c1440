// staticFiles() over real sockets with raw request targets (fetch and `new Request` would
// normalize `..` away before the middleware sees it): the traversal corpus under three mount
// prefixes, 2,000 generated hostile paths, the order of the path checks, and the memory of
// 100 concurrent downloads of a 64 MiB file.
import assert from "node:assert/strict";
import fc from "fast-check";
import { chain, serve, type Server } from "../../mod.ts";
import { staticFiles } from "../../lib/middleware/static_files.ts";
import {
  APP_JS,
  buildStaticFixture,
  CANARY,
  DOT_CANARY,
  pattern,
} from "../fixtures/static/fixture.ts";
import { spawnChild } from "../_child.ts";
import { withDeadline } from "../_deadline.ts";

const CORPUS = new URL(
  "../fixtures/traversal/directory_traversal.txt",
  import.meta.url,
);
const payloads = Deno.readTextFileSync(CORPUS).split("\n").filter((line) => line !== "");
const PREFIXES = ["/static", "/", "/a/b"] as const;

const fixture = buildStaticFixture();
globalThis.addEventListener("unload", () => fixture.remove());

let realPasswd = "";
try {
  realPasswd = Deno.readTextFileSync("/etc/passwd").split("\n")[0];
} catch {
  // no /etc/passwd here; the canaries still cover the tree
}

// Everything inside the root that may legitimately be served (dotfiles are denied).
const LEGIT = new Set<string>();
for (const name of walk(fixture.root)) {
  if (name.split("/").some((s) => s.startsWith("."))) continue;
  try {
    LEGIT.add(latin1(Deno.readFileSync(`${fixture.root}/${name}`)));
  } catch {
    // FIFOs, dangling links, links leaving the root
  }
}
LEGIT.add(latin1(new TextEncoder().encode(APP_JS)));

function* walk(dir: string, prefix = ""): Generator<string> {
  for (const entry of Deno.readDirSync(dir)) {
    const name = prefix + entry.name;
    if (entry.isDirectory) yield* walk(`${dir}/${entry.name}`, `${name}/`);
    else if (entry.isFile) yield name;
  }
}

function latin1(bytes: Uint8Array): string {
  let s = "";
  for (let i = 0; i < bytes.length; i += 8192) {
    s += String.fromCharCode(...bytes.subarray(i, i + 8192));
  }
  return s;
}

interface RawResponse {
  status: number;
  head: string;
  /** The body bytes as Latin-1 (de-chunking is not needed for the checks made here). */
  body: string;
  /** The whole response as Latin-1. */
  raw: string;
}

/** Sends one request with `target` written as is into the request line, over a new socket. */
async function rawRequest(
  port: number,
  target: string,
  { method = "GET", headers = {} as Record<string, string>, timeoutMs = 5000 } = {},
): Promise<RawResponse> {
  const conn = await Deno.connect({ hostname: "127.0.0.1", port });
  const timer = setTimeout(() => conn.close(), timeoutMs);
  const chunks: Uint8Array[] = [];
  let timedOut = false;
  try {
    const lines = [`${method} ${target} HTTP/1.1`, "Host: localhost", "Connection: close"];
    for (const [name, value] of Object.entries(headers)) lines.push(`${name}: ${value}`);
    await conn.write(new TextEncoder().encode(lines.join("\r\n") + "\r\n\r\n"));
    const buffer = new Uint8Array(65_536);
    for (;;) {
      const n = await conn.read(buffer);
      if (n === null) break;
      chunks.push(buffer.slice(0, n));
    }
  } catch (error) {
    if (!(error instanceof Deno.errors.BadResource)) throw error;
    timedOut = true;
  } finally {
    clearTimeout(timer);
    try {
      conn.close();
    } catch {
      // closed by the timer
    }
  }
  if (timedOut) throw new Error(`${method} ${target}: no complete response in ${timeoutMs} ms`);
  const total = chunks.reduce((n, c) => n + c.length, 0);
  const all = new Uint8Array(total);
  let offset = 0;
  for (const c of chunks) {
    all.set(c, offset);
    offset += c.length;
  }
  const raw = latin1(all);
  const headEnd = raw.indexOf("\r\n\r\n");
  const head = headEnd === -1 ? raw : raw.slice(0, headEnd);
  return {
    status: Number(/^HTTP\/1\.1 (\d{3})/.exec(raw)?.[1] ?? 0),
    head,
    body: headEnd === -1 ? "" : raw.slice(headEnd + 4),
    raw,
  };
}

function startServers(): { servers: Server[]; ports: number[] } {
  const servers = PREFIXES.map((prefix) =>
    serve(
      chain(
        [staticFiles({ root: fixture.root, prefix, precompressed: true })],
        () => new Response("fallback", { status: 404 }),
      ),
      { port: 0, hostname: "127.0.0.1", onListen: () => {} },
    )
  );
  return { servers, ports: servers.map((s) => s.addr.port) };
}

function targetFor(prefix: string, payload: string): string {
  return prefix.replace(/\/$/, "") + (payload.startsWith("/") ? "" : "/") + payload;
}

function assertClean(res: RawResponse, what: string): void {
  assert.ok(res.status !== 0, `no response for ${what}`);
  assert.ok(res.status < 500, `${res.status} for ${what}`);
  assert.ok(!res.raw.includes(CANARY), `canary served for ${what}`);
  assert.ok(!res.raw.includes(DOT_CANARY), `dotfile served for ${what}`);
  if (realPasswd !== "") assert.ok(!res.raw.includes(realPasswd), `/etc/passwd for ${what}`);
}

Deno.test("the traversal corpus has its 140 payloads", () => {
  assert.equal(payloads.length, 140);
});

Deno.test("staticFiles() serves no canary and no 5xx for any traversal payload under three prefixes", async () => {
  const { servers, ports } = startServers();
  try {
    const statuses = new Map<number, number>();
    let responses = 0;
    for (const [i, prefix] of PREFIXES.entries()) {
      for (const payload of payloads) {
        const target = targetFor(prefix, payload);
        const res = await rawRequest(ports[i], target);
        assertClean(res, JSON.stringify(target));
        // nothing in the corpus names a file inside the root
        assert.ok(res.status === 400 || res.status === 404, `${res.status} for ${target}`);
        statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
        responses++;
      }
    }
    assert.equal(responses, 3 * 140);
    assert.equal([...statuses.keys()].filter((s) => s >= 500).length, 0);
  } finally {
    await withDeadline(
      Promise.all(servers.map((s) => s.shutdown())),
      10_000,
      "the servers to shut down",
    );
  }
});

Deno.test("staticFiles() checks raw paths in pillarjs/send's order", async () => {
  const { servers, ports } = startServers();
  const [port, rootPort] = ports;
  try {
    const cases: [string, number, string?][] = [
      ["/static/hello.txt", 200, "hello world"],
      ["/static/./hello.txt", 200, "hello world"],
      ["/static//hello.txt", 200, "hello world"],
      ["/static/caf%C3%A9.txt", 200, "café"],
      ["/static/café.txt", 200, "café"], // raw UTF-8 bytes in the request line
      ["/static/100%25.txt", 200, "percent"],
      ["/static/link_inside.txt", 200, "hello world"],
      // 1. percent-decoding once: malformed escapes are 400, even next to `..`
      ["/static/%zz/../hello.txt", 400],
      ["/static/%c0%af", 400],
      ["/static/%E0%80%AE%E0%80%AE/canary.txt", 400],
      // 2. NUL and backslashes, raw or encoded, and encoded slashes: 400
      ["/static/hello.txt%00", 400],
      ["/static/%00../canary.txt", 400],
      ["/static/..\\..\\canary.txt", 400],
      ["/static/nested\\deep\\file.css", 400],
      ["/static/..%5c..%5ccanary.txt", 400],
      ["/static/nested%2fdeep%2ffile.css", 400],
      // 3. `..` segments are 404, never a file, even when they would resolve inside the root
      ["/static/../canary.txt", 404],
      ["/static/nested/../hello.txt", 404],
      ["/static/%2e%2e/canary.txt", 404],
      ["/static/%2E%2e/static/hello.txt", 404],
      ["/static/.%2e/static_evil/secret.txt", 404],
      ["/static/%252e%252e/canary.txt", 404], // decoded once: a name, not `..`
      // 4. real paths stay under the real root
      ["/static/link_outside.txt", 404],
      ["/static/link_evil.txt", 404],
      ["/static/link_evil_dir/secret.txt", 404],
      ["/static/link_absolute.txt", 404],
      // 5. only regular files
      ["/static/nested", 404],
      ["/static/fifo", 404],
      ["/static/fifo.txt", 404],
      // the sibling sharing the root's prefix is not under /static at all
      ["/static_evil/secret.txt", 404, "fallback"],
    ];
    for (const [target, status, body] of cases) {
      const res = await rawRequest(port, target);
      assertClean(res, target);
      assert.equal(res.status, status, target);
      if (body !== undefined) assert.equal(new TextDecoder().decode(bytes(res.body)), body, target);
    }
    for (const target of ["/../static_evil/secret.txt", "/../../l2/canary.txt", "C:/boot.ini"]) {
      const res = await rawRequest(rootPort, target);
      assertClean(res, target);
      assert.ok(res.status === 400 || res.status === 404, `${res.status} for ${target}`);
    }
  } finally {
    await withDeadline(
      Promise.all(servers.map((s) => s.shutdown())),
      10_000,
      "the servers to shut down",
    );
  }
});

function bytes(latin: string): Uint8Array {
  return Uint8Array.from(latin, (c) => c.charCodeAt(0));
}

const FRAGMENTS = [
  "..",
  ".",
  "",
  "...",
  "%2e%2e",
  "%2E%2e",
  ".%2e",
  "%2e.",
  "%2e",
  "%2f",
  "%2F",
  "%5c",
  "%5C",
  "\\",
  "%00",
  "%0a",
  "%c0%af",
  "%c0%ae",
  "%e0%80%ae",
  "%ff",
  "%25",
  "%252e%252e",
  "%252f",
  "%",
  "%%32%65",
  "..;",
  ";",
  "~",
  "?",
  "#",
  "C:",
  "etc",
  "passwd",
  "canary.txt",
  "secret.txt",
  "static",
  "static_evil",
  "l1",
  "l2",
  ".htaccess",
  ".env",
  "%2eenv",
  ".hidden",
  "visible.txt",
  "link_outside.txt",
  "link_evil.txt",
  "link_evil_dir",
  "link_absolute.txt",
  "link_to_dotfile.txt",
  "link_dir_inside",
  "hello.txt",
  "app.js",
  "evil.js.br",
  "caf%C3%A9.txt",
  "café.txt",
  "fifo",
  "nested",
  "deep",
  "boot.ini",
  "win.ini",
];
const SEPARATORS = ["/", "/", "/", "//", "\\", "%2f", "%5c", "/./", "/../"];

// Printable ASCII without space (which would end the request target) and without `%`
// (generated escapes come from the fragments).
const printable = fc.string({
  unit: fc.integer({ min: 0x21, max: 0x7e }).filter((c) => c !== 0x25).map((c) =>
    String.fromCharCode(c)
  ),
  maxLength: 6,
});
const hostilePath = fc.tuple(
  fc.constantFrom(0, 1, 2),
  fc.constantFrom("", "/", "//", "\\", "/../", "%2f"),
  fc.array(
    fc.tuple(
      fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...FRAGMENTS) }, {
        weight: 1,
        arbitrary: printable,
      }),
      fc.constantFrom(...SEPARATORS),
    ),
    { minLength: 1, maxLength: 9 },
  ),
).map(([server, lead, parts]) => ({
  server,
  target: targetFor(
    PREFIXES[server],
    lead + parts.map(([fragment, sep], i) => (i === 0 ? "" : sep) + fragment).join(""),
  ),
}));

Deno.test("staticFiles() keeps its invariants for 2,000 generated hostile paths", async () => {
  const { servers, ports } = startServers();
  let served = 0;
  try {
    await fc.assert(
      fc.asyncProperty(hostilePath, async ({ server, target }) => {
        const res = await rawRequest(ports[server], target);
        assertClean(res, JSON.stringify(target));
        if (res.status === 200) {
          served++;
          assert.ok(LEGIT.has(res.body), `unexpected body for ${target}`);
        }
      }),
      { numRuns: 2000 },
    );
  } finally {
    await withDeadline(
      Promise.all(servers.map((s) => s.shutdown())),
      10_000,
      "the servers to shut down",
    );
  }
  assert.ok(served > 0); // the generator does reach real files too
});

async function vmRssKiB(pid: number): Promise<number> {
  const status = await Deno.readTextFile(`/proc/${pid}/status`);
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)![1]);
}

Deno.test({
  name: "staticFiles() streams 100 concurrent 64 MiB downloads with under 200 MiB RSS growth",
  ignore: Deno.build.os !== "linux",
  async fn() {
    const SIZE = 64 * 1024 * 1024;
    const CLIENTS = 100;
    const dir = await Deno.makeTempDir({ prefix: "weft_static_rss_" });
    // a recognizable pattern at the start and end, zeros (sparse) in between
    const file = await Deno.open(`${dir}/big.bin`, { write: true, create: true });
    await file.truncate(SIZE);
    await file.write(pattern(4096));
    await file.seek(SIZE - 4096, Deno.SeekMode.Start);
    await file.write(pattern(4096));
    file.close();
    const child = spawnChild(Deno.execPath(), {
      what: "the static file server",
      args: ["run", "-A", new URL("../fixtures/static/server.ts", import.meta.url).pathname, dir],
      stdout: "piped",
      stderr: "inherit",
      deadlineMs: 180_000, // the whole test's bound
    });
    try {
      const [, ready] = await child.waitForOutput("stdout", /ready (\d+)/, {
        ms: 30_000,
        what: "the server to print its port",
      });
      const port = Number(ready);
      const url = `http://127.0.0.1:${port}/big.bin`;

      // Each client stalls for a while after its first chunk: a server without backpressure
      // would read ahead into memory meanwhile.
      const download = async (stallMs: number): Promise<number> => {
        const res = await fetch(url);
        assert.equal(res.status, 200);
        assert.equal(res.headers.get("content-length"), String(SIZE));
        let received = 0;
        const first = new Uint8Array(4096);
        for await (const chunk of res.body!) {
          if (received < 4096) first.set(chunk.subarray(0, 4096 - received), received);
          if (received === 0 && stallMs > 0) {
            await new Promise((resolve) => setTimeout(resolve, stallMs));
          }
          received += chunk.length;
        }
        assert.deepEqual(first, pattern(4096));
        return received;
      };

      assert.equal(await download(0), SIZE); // warm-up: code paths and buffers in place
      const baseline = await vmRssKiB(child.pid);
      let peak = baseline;
      let sampling = true;
      const sampler = (async () => {
        while (sampling) {
          peak = Math.max(peak, await vmRssKiB(child.pid));
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
      })();
      const sizes = await Promise.all(Array.from({ length: CLIENTS }, () => download(1500)));
      sampling = false;
      await sampler;
      assert.deepEqual(sizes, Array(CLIENTS).fill(SIZE));
      const growthMiB = (peak - baseline) / 1024;
      console.log(
        `RSS baseline ${(baseline / 1024).toFixed(1)} MiB, peak ${(peak / 1024).toFixed(1)} MiB, ` +
          `growth ${growthMiB.toFixed(1)} MiB for ${CLIENTS} × 64 MiB`,
      );
      assert.ok(growthMiB < 200, `RSS grew by ${growthMiB.toFixed(1)} MiB`);
    } finally {
      try {
        await child.stop();
      } finally {
        await Deno.remove(dir, { recursive: true });
      }
    }
  },
});
