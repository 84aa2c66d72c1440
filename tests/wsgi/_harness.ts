// Test helpers for the WSGI tests: environ objects, a minimal synchronous server loop that
// obeys PEP 3333 (iterate, then always close), and a fixture tree built in a temp directory.
import type { Environ, FileWrapper, WsgiApp, WsgiErrors } from "../../wsgi/mod.ts";
import { runChild } from "../_child.ts";

export const encoder = new TextEncoder();
export const decoder = new TextDecoder();

/** The text every file outside the served root contains. */
export const CANARY = "CANARY-7f3a9c-outside-the-root";

export const silentErrors: WsgiErrors = { write() {}, writelines() {}, flush() {} };

/** Encodes a Unicode path as UTF-8 bytes carried as Latin-1 code units (PEP 3333). */
export function latin1(path: string): string {
  return String.fromCharCode(...encoder.encode(path));
}

export interface EnvironOptions {
  method?: string;
  headers?: Record<string, string>;
  fileWrapper?: FileWrapper;
}

/** Builds a complete environ for `pathInfo` (already a PEP 3333 native string). */
export function makeEnviron(pathInfo: string, options: EnvironOptions = {}): Environ {
  const environ: Environ = {
    REQUEST_METHOD: options.method ?? "GET",
    SCRIPT_NAME: "",
    PATH_INFO: pathInfo,
    QUERY_STRING: "",
    SERVER_NAME: "localhost",
    SERVER_PORT: "80",
    SERVER_PROTOCOL: "HTTP/1.1",
    "wsgi.version": [1, 0],
    "wsgi.url_scheme": "http",
    "wsgi.input": {
      read: () => new Uint8Array(0),
      readline: () => new Uint8Array(0),
      readlines: () => [],
      *[Symbol.iterator]() {},
    },
    "wsgi.errors": silentErrors,
    "wsgi.multithread": false,
    "wsgi.multiprocess": false,
    "wsgi.run_once": false,
  };
  if (options.fileWrapper) environ["wsgi.file_wrapper"] = options.fileWrapper;
  for (const [name, value] of Object.entries(options.headers ?? {})) {
    environ[`HTTP_${name.toUpperCase().replaceAll("-", "_")}`] = value;
  }
  return environ;
}

export interface WsgiResult {
  status: string;
  code: number;
  /** Response headers by lower-case name. */
  headers: Map<string, string>;
  /** The raw header list, as the application passed it. */
  headerList: [string, string][];
  body: Uint8Array;
  text: string;
  /** How many chunks the body had. */
  chunks: number;
  /** Whether the body iterable offered `close()` (always called). */
  hadClose: boolean;
}

/** Runs one request the way a conforming server does, closing the body in all cases. */
export function call(app: WsgiApp, environ: Environ): WsgiResult {
  let status = "";
  let headerList: [string, string][] = [];
  const parts: Uint8Array[] = [];
  const result = app(environ, (s, h) => {
    status = s;
    headerList = h;
    return (chunk) => void parts.push(chunk);
  });
  let chunks = 0;
  try {
    for (const chunk of result) {
      parts.push(chunk);
      chunks++;
    }
  } finally {
    result.close?.();
  }
  const body = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let offset = 0;
  for (const part of parts) {
    body.set(part, offset);
    offset += part.length;
  }
  return {
    status,
    code: Number(status.slice(0, 3)),
    headers: new Map(headerList.map(([n, v]) => [n.toLowerCase(), v])),
    headerList,
    body,
    text: decoder.decode(body),
    chunks,
    hadClose: typeof result.close === "function",
  };
}

/** A wrapped application that records how often it was reached and answers 404. */
export function fallbackApp(): WsgiApp & { hits: string[] } {
  const hits: string[] = [];
  const app = (environ: Environ, startResponse: Parameters<WsgiApp>[1]) => {
    hits.push(environ.PATH_INFO);
    const body = encoder.encode("fallback");
    startResponse("404 Not Found", [
      ["Content-Type", "text/plain"],
      ["Content-Length", String(body.length)],
    ]);
    return [body];
  };
  return Object.assign(app, { hits });
}

export interface Fixture {
  /** The temp directory holding everything. */
  base: string;
  /** The served root, `base/l1/l2/static`. */
  root: string;
  remove(): void;
}

export const BIG_SIZE = 300 * 1024 + 17;

/** A byte pattern that makes misplaced chunks visible. */
export function pattern(size: number): Uint8Array {
  const bytes = new Uint8Array(size);
  for (let i = 0; i < size; i++) bytes[i] = (i * 7 + (i >> 8)) & 0xff;
  return bytes;
}

/**
 * Builds the fixture tree:
 * ```
 * base/ l1/ l2/ static/      the served root (files, nested dirs, symlinks, FIFO, café.txt)
 *               static_evil/ a sibling sharing the root's name prefix (canary)
 *       …         canary files (etc/passwd, boot.ini, .htaccess, …) at every ancestor level
 * ```
 */
export async function buildFixture(): Promise<Fixture> {
  const base = Deno.makeTempDirSync({ prefix: "weft_wsgi_" });
  const root = `${base}/l1/l2/static`;
  Deno.mkdirSync(`${root}/nested/deep`, { recursive: true });
  Deno.mkdirSync(`${root}/dir`);
  const files: Record<string, string | Uint8Array> = {
    "hello.txt": "hello world",
    "index.html": "<!doctype html><p>hi</p>",
    "app.js": "console.log(1);",
    "data.json": '{"a":1}',
    "logo.svg": "<svg xmlns='http://www.w3.org/2000/svg'/>",
    "readme.md": "# readme",
    "style.css": "body{margin:0}",
    "image.png": new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    "font.woff2": "wOF2",
    "unknown.zzqx": "what is this",
    "noext": "no extension",
    ".hidden": "a dotfile",
    "nested/deep/file.txt": "deep",
    "dir/inside.txt": "inside a dir",
    "café.txt": "café",
    "empty.txt": "",
    "one.bin": new Uint8Array([42]),
    "big.bin": pattern(BIG_SIZE),
    "exact.bin": pattern(64 * 1024),
  };
  for (const [name, content] of Object.entries(files)) {
    if (typeof content === "string") Deno.writeTextFileSync(`${root}/${name}`, content);
    else Deno.writeFileSync(`${root}/${name}`, content);
  }
  // canaries outside the root, at every level a traversal could reach
  for (const dir of [base, `${base}/l1`, `${base}/l1/l2`]) {
    for (
      const name of ["etc/passwd", "etc/shadow", "etc/hosts", "WINDOWS/win.ini", "winnt/win.ini"]
    ) {
      Deno.mkdirSync(`${dir}/${name.split("/")[0]}`, { recursive: true });
      Deno.writeTextFileSync(`${dir}/${name}`, CANARY);
    }
    for (const name of ["boot.ini", ".htaccess", "canary.txt", "localstart.asp"]) {
      Deno.writeTextFileSync(`${dir}/${name}`, CANARY);
    }
  }
  Deno.mkdirSync(`${base}/l1/l2/static_evil`);
  Deno.writeTextFileSync(`${base}/l1/l2/static_evil/secret.txt`, CANARY);
  // symlinks: one inside, several leaving the root
  Deno.symlinkSync("hello.txt", `${root}/link_inside.txt`);
  Deno.symlinkSync("nested", `${root}/link_dir_inside`);
  Deno.symlinkSync("../canary.txt", `${root}/link_outside.txt`);
  Deno.symlinkSync("../static_evil/secret.txt", `${root}/link_evil.txt`);
  Deno.symlinkSync("../static_evil", `${root}/link_evil_dir`);
  Deno.symlinkSync(`${base}/canary.txt`, `${root}/link_absolute.txt`);
  Deno.symlinkSync("missing.txt", `${root}/link_dangling.txt`);
  // a FIFO: opening it would block, so it must never be opened
  const mkfifo = await runChild("mkfifo", { args: [`${root}/fifo`], deadlineMs: 10_000 });
  if (!mkfifo.success) throw new Error("Cannot create the FIFO fixture: mkfifo failed");
  return { base, root, remove: () => Deno.removeSync(base, { recursive: true }) };
}
