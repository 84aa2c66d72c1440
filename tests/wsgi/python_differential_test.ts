// Differential test against python3: Python computes the expected ETag (hashlib over st_size
// and st_mtime_ns), Last-Modified (email.utils.formatdate(st_mtime, usegmt=True)) and, for the
// spec's extensions, the content type (mimetypes plus the spec's additions); Weft's headers
// must match exactly. Fixture mtimes are pinned to whole milliseconds, the precision Deno
// exposes (docs/architecture.md, decision 5).
import assert from "node:assert/strict";
import { StaticMiddleware, validator } from "../../wsgi/mod.ts";
import { runChild } from "../_child.ts";
import { call, fallbackApp, latin1, makeEnviron, pattern } from "./_harness.ts";

const PYTHON = `
import email.utils, hashlib, json, mimetypes, os, sys

# the spec's additions to the standard MIME database
for ext, type_ in {".js": "application/javascript", ".json": "application/json",
                   ".svg": "image/svg+xml", ".md": "text/markdown", ".css": "text/css",
                   ".html": "text/html"}.items():
    mimetypes.add_type(type_, ext)

root, names, truncate_to_ms = sys.argv[1], json.load(sys.stdin), sys.argv[2] == "ms"
out = {}
for name in names:
    st = os.stat(os.path.join(root, name))
    mtime_ns = st.st_mtime_ns // 10**6 * 10**6 if truncate_to_ms else st.st_mtime_ns
    digest = hashlib.sha256(f"{st.st_size}-{mtime_ns}".encode()).hexdigest()
    out[name] = {
        "etag": '"' + digest[:16] + '"',
        "last_modified": email.utils.formatdate(st.st_mtime, usegmt=True),
        "content_type": mimetypes.guess_type(name)[0] or "application/octet-stream",
        "size": st.st_size,
        "mtime_ns": str(st.st_mtime_ns),
    }
print(json.dumps(out))
`;

interface Expected {
  etag: string;
  last_modified: string;
  content_type: string;
  size: number;
  mtime_ns: string;
}

async function python(
  root: string,
  names: string[],
  mode: "exact" | "ms",
): Promise<Record<string, Expected>> {
  const output = await runChild("python3", {
    what: "python3 hashing the fixtures",
    args: ["-c", PYTHON, root, mode],
    input: JSON.stringify(names),
  });
  if (!output.success) throw new Error(new TextDecoder().decode(output.stderr));
  return JSON.parse(new TextDecoder().decode(output.stdout));
}

const SPEC_FILES = ["app.js", "data.json", "logo.svg", "readme.md", "style.css", "index.html"];
const OTHER_FILES = ["notes.txt", "empty.bin", "big.dat", "café.txt", "no_extension", ".dotfile"];

// whole milliseconds, including .000 and .999, the epoch's first second and 2100
const MTIMES_MS = [
  1_700_000_000_123,
  1_700_000_000_999,
  1_700_000_001_000,
  946_684_800_000,
  1_234_567_890_001,
  4_102_444_800_555,
  1_000,
  1_600_000_000_500,
  1_500_000_000_050,
  1_400_000_000_005,
  1_300_000_000_777,
  1_200_000_000_321,
];

function buildTree(): string {
  const root = Deno.makeTempDirSync({ prefix: "weft_wsgi_py_" });
  [...SPEC_FILES, ...OTHER_FILES].forEach((name, i) => {
    const content = name === "big.dat"
      ? pattern(150_000)
      : name === "empty.bin"
      ? new Uint8Array(0)
      : new TextEncoder().encode(`${name} `.repeat(i + 1));
    Deno.writeFileSync(`${root}/${name}`, content);
    const mtime = new Date(MTIMES_MS[i]);
    Deno.utimeSync(`${root}/${name}`, mtime, mtime);
  });
  return root;
}

Deno.test("StaticMiddleware() headers match python3's ETag, Last-Modified and content types exactly", async () => {
  const root = buildTree();
  try {
    const names = [...SPEC_FILES, ...OTHER_FILES];
    const expected = await python(root, names, "exact");
    // The tree has a dotfile, whose headers are compared like any other file's: served on
    // request, since StaticMiddleware refuses dotfiles by default and the spec does not.
    const app = validator(
      StaticMiddleware(fallbackApp(), root, "/static", 60, { dotfiles: "allow" }),
    );
    for (const [i, name] of names.entries()) {
      const want = expected[name];
      assert.equal(
        want.mtime_ns,
        `${MTIMES_MS[i]}000000`,
        `fixture mtime of ${name} was not pinned`,
      );
      const res = call(app, makeEnviron(latin1(`/static/${name}`)));
      assert.equal(res.code, 200, name);
      assert.equal(res.headers.get("etag"), want.etag, `ETag of ${name}`);
      assert.equal(
        res.headers.get("last-modified"),
        want.last_modified,
        `Last-Modified of ${name}`,
      );
      assert.equal(
        res.headers.get("content-length"),
        String(want.size),
        `Content-Length of ${name}`,
      );
      if (SPEC_FILES.includes(name)) {
        assert.equal(res.headers.get("content-type"), want.content_type, `Content-Type of ${name}`);
      }
    }
    app.assertClosed();
  } finally {
    Deno.removeSync(root, { recursive: true });
  }
});

Deno.test("StaticMiddleware() on Deno hashes a sub-millisecond mtime at millisecond precision", async () => {
  // Deno's stat has millisecond precision; Node's gives Python's exact st_mtime_ns (the Node
  // suite checks that). Weft documents this in docs/architecture.md, decision 5.
  const root = Deno.makeTempDirSync({ prefix: "weft_wsgi_py_ns_" });
  try {
    Deno.writeTextFileSync(`${root}/precise.txt`, "nanoseconds");
    const set = await runChild("python3", {
      what: "python3 setting a nanosecond mtime",
      args: [
        "-c",
        "import os, sys; os.utime(sys.argv[1], ns=(1700000000123456789, 1700000000123456789))",
        `${root}/precise.txt`,
      ],
    });
    assert.ok(set.success);
    const [exact, truncated] = [
      (await python(root, ["precise.txt"], "exact"))["precise.txt"],
      (await python(root, ["precise.txt"], "ms"))["precise.txt"],
    ];
    assert.equal(exact.mtime_ns, "1700000000123456789");
    const res = call(StaticMiddleware(fallbackApp(), root, "/"), makeEnviron("/precise.txt"));
    assert.equal(res.headers.get("etag"), truncated.etag);
    assert.notEqual(res.headers.get("etag"), exact.etag);
    assert.equal(res.headers.get("last-modified"), exact.last_modified);
  } finally {
    Deno.removeSync(root, { recursive: true });
  }
});
