// Conformance cases for the WSGI gateway (weft/wsgi) over real sockets: what reaches the client
// when an application's body disagrees with the Content-Length it declared (PEP 3333,
// "Handling the Content-Length Header"), over HTTP/1.1 and h2c; and what a second startResponse
// without an error to report does.
// Peers: curl, and node:net for the bytes an HTTP/1.1 client is sent (both runtimes have it).
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Env } from "./suite.ts";
import type * as WeftWsgi from "../../wsgi/mod.ts";
import { withDeadline } from "../_deadline.ts";
import { recordingErrors } from "../wsgi/_errors.ts";

/**
 * Sends one HTTP/1.1 request with `Connection: close` and returns everything the server sent
 * until it closed: a body longer or shorter than its Content-Length shows as it went out, which
 * curl (reading no further than the length) would hide. `head` is null when nothing came.
 */
function exchange(
  port: number,
  path: string,
  method = "GET",
): Promise<{ head: string | null; body: string }> {
  const received: Uint8Array[] = [];
  const socket = connect({ port, host: "127.0.0.1" }, () => {
    socket.write(`${method} ${path} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n`);
  });
  socket.on("data", (chunk: Uint8Array) => void received.push(chunk));
  const closed = new Promise<void>((resolve) => {
    socket.on("close", () => resolve());
    socket.on("error", () => {}); // a reset ends the exchange as a close does
  });
  return withDeadline(closed, 10_000, `the server to close the connection for ${path}`, {
    onTimeout: () => socket.destroy(),
  }).then(() => {
    const text = received.map((chunk) => new TextDecoder().decode(chunk)).join("");
    if (text === "") return { head: null, body: "" };
    const end = text.indexOf("\r\n\r\n");
    assert.notEqual(end, -1, `a response head for ${path}: ${JSON.stringify(text)}`);
    return { head: text.slice(0, end), body: text.slice(end + 4) };
  });
}

/** What curl says when it fails, or `"complete"` when it got the whole response. */
function curlOutcome(env: Env, args: string[]): Promise<string> {
  return env.curl(args).then(() => "complete", (error: Error) => error.message);
}

/** The cases, by name. */
export const wsgiCases: Record<string, (env: Env) => Promise<void>> = {
  async "serveWsgi: a streamed body is held to its declared Content-Length over HTTP/1.1 and h2c"(
    env,
  ) {
    const encoder = new TextEncoder();
    const closed: string[] = [];
    // A generator is streamed (a list is sent whole): the length is checked as the chunks go out.
    const streamed = (declared: number, chunks: string[]): WeftWsgi.WsgiApp => (environ, start) => {
      start("200 OK", [["Content-Type", "text/plain"], ["Content-Length", String(declared)]]);
      const body = (function* () {
        for (const chunk of chunks) yield encoder.encode(chunk);
      })();
      return Object.assign(body, { close: () => void closed.push(environ.PATH_INFO) });
    };
    const long = streamed(3, ["abcdef", "ghi"]);
    const short = streamed(10, ["ab", "cd"]);
    const errors = recordingErrors();
    const server = env.wsgi.serveWsgi((environ, start) => {
      return (environ.PATH_INFO === "/long" ? long : short)(environ, start);
    }, { port: 0, hostname: "127.0.0.1", onListen() {}, errors });
    const base = `http://127.0.0.1:${server.addr.port}`;
    try {
      // too long: the client gets the declared 3 bytes and a response that ends normally
      const wire = await exchange(server.addr.port, "/long");
      assert.match(wire.head!, /^HTTP\/1\.1 200 /);
      assert.match(wire.head!, /\r\ncontent-length: 3\r\n/i);
      assert.equal(wire.body, "abc", "no byte past Content-Length on the wire");
      for (const flag of ["--http1.1", "--http2-prior-knowledge"]) {
        const res = await env.curl([flag, `${base}/long`]);
        assert.equal(res.httpVersion, flag === "--http1.1" ? "1.1" : "2");
        assert.equal(res.status, 200, flag);
        assert.equal(res.headers.get("content-length"), "3", flag);
        assert.equal(res.body, "abc", flag);
      }
      assert.equal(
        errors.text().match(/declared Content-Length 3 and produced at least 6 bytes/g)?.length,
        3,
        errors.text(),
      );
      // too short: the response ends abnormally, never as a complete short body. On Deno the
      // head and the 4 bytes arrive before the cut; Node destroys the socket with them still in
      // its buffer, so nothing arrives.
      const cut = await exchange(server.addr.port, "/short");
      if (cut.head !== null) {
        assert.match(cut.head, /\r\ncontent-length: 10\r\n/i);
        assert.ok("abcd".startsWith(cut.body), JSON.stringify(cut.body));
      }
      // curl: (18) transfer closed with outstanding read data remaining, or (52) empty reply
      assert.match(await curlOutcome(env, ["--http1.1", `${base}/short`]), /curl: \((18|52)\)/);
      // curl: (92) HTTP/2 stream was not closed cleanly: the gateway's error reset it
      assert.match(
        await curlOutcome(env, ["--http2-prior-knowledge", `${base}/short`]),
        /curl: \(92\).*INTERNAL_ERROR/,
      );
      assert.equal(
        errors.text().match(/declared Content-Length 10 and produced 4 bytes/g)?.length,
        3,
        errors.text(),
      );
      assert.deepEqual(closed, ["/long", "/long", "/long", "/short", "/short", "/short"]);
    } finally {
      await withDeadline(server.shutdown(), 10_000, "the server to shut down");
    }
  },

  async "serveWsgi: a second startResponse with a null excInfo is an error, not a new status"(
    env,
  ) {
    const twice: WeftWsgi.WsgiApp = (_environ, start) => {
      start("200 OK", [["Content-Type", "text/plain"]]);
      start("201 Created", [["Content-Type", "text/plain"]], null); // Python's exc_info=None
      return [new TextEncoder().encode("created")];
    };
    const errors = recordingErrors();
    const quiet = { port: 0, hostname: "127.0.0.1", onListen() {}, errors };
    const plain = env.wsgi.serveWsgi(twice, quiet);
    const checked = env.wsgi.serveWsgi(env.wsgi.validator(twice), quiet);
    try {
      for (const flag of ["--http1.1", "--http2-prior-knowledge"]) {
        const res = await env.curl([flag, `http://127.0.0.1:${plain.addr.port}/`]);
        assert.equal(res.status, 500, flag);
        assert.ok(!res.body.includes("created"), flag);
      }
      assert.match(errors.text(), /already called without excInfo/);
      const validated = await env.curl(["--http1.1", `http://127.0.0.1:${checked.addr.port}/`]);
      assert.equal(validated.status, 500);
      assert.match(errors.text(), /WsgiValidationError: startResponse was called a second time/);
    } finally {
      await withDeadline(
        Promise.all([plain.shutdown(), checked.shutdown()]),
        10_000,
        "the servers to shut down",
      );
    }
  },

  async "serveWsgi: an absolute-form target is split at the end of its authority, whatever its case"(
    env,
  ) {
    const echo: WeftWsgi.WsgiApp = (environ, start) => {
      const { PATH_INFO, QUERY_STRING, SERVER_NAME, SERVER_PORT } = environ;
      const scheme = environ["wsgi.url_scheme"];
      start("200 OK", [["Content-Type", "application/json"]]);
      const seen = { PATH_INFO, QUERY_STRING, SERVER_NAME, SERVER_PORT, scheme };
      return [new TextEncoder().encode(JSON.stringify(seen))];
    };
    const server = env.wsgi.serveWsgi(echo, { port: 0, hostname: "127.0.0.1", onListen() {} });
    try {
      const seen = async (target: string) => {
        const { head, body } = await exchange(server.addr.port, target);
        assert.match(head!, /^HTTP\/1\.1 200 /, target);
        return JSON.parse(body);
      };
      // the path of http://a?x=/admin is empty, "/": /admin is in its query
      assert.deepEqual(await seen("http://a?x=/admin"), {
        PATH_INFO: "/",
        QUERY_STRING: "x=/admin",
        SERVER_NAME: "a",
        SERVER_PORT: "80",
        scheme: "http",
      });
      assert.deepEqual(await seen("HTTP://u@A:81/p"), {
        PATH_INFO: "/p",
        QUERY_STRING: "",
        SERVER_NAME: "A",
        SERVER_PORT: "81",
        scheme: "http",
      });
    } finally {
      await withDeadline(server.shutdown(), 10_000, "the server to shut down");
    }
  },

  async "toFetchHandler: a request body the client cut short is a 400, never a reported 500"(
    env,
  ) {
    let ran = 0;
    const app: WeftWsgi.WsgiApp = (_environ, start) => {
      ran++;
      start("200 OK", [["Content-Type", "text/plain"]]);
      return [];
    };
    const errors = recordingErrors();
    const handler = env.wsgi.toFetchHandler(app, { errors });
    const outcomes: (number | string)[] = [];
    let answered = () => {};
    const server = env.weft.serve({
      fetch: async (request: Request, info: Parameters<typeof handler>[1]) => {
        try {
          const res = await handler(request, info);
          outcomes.push(res.status);
          return res;
        } catch (error) {
          outcomes.push(String(error));
          throw error;
        } finally {
          answered();
        }
      },
    }, { port: 0, hostname: "127.0.0.1", onListen() {} });
    const reported: string[] = [];
    const quietErrors = console.error;
    console.error = (...args: unknown[]) => reported.push(args.map(String).join(" "));
    try {
      // half a chunked body, or 5 bytes of 10, then the client goes
      const framings = [
        "Transfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n",
        "Content-Length: 10\r\n\r\nhello",
      ];
      for (const framing of framings) {
        const done = new Promise<void>((resolve) => answered = resolve);
        const socket = connect({ port: server.addr.port, host: "127.0.0.1" });
        socket.on("error", () => {});
        socket.write(`POST / HTTP/1.1\r\nHost: 127.0.0.1\r\n${framing}`, () => {
          setTimeout(() => socket.destroy(), 50);
        });
        try {
          await withDeadline(done, 10_000, "the gateway's answer to the cut body");
        } finally {
          socket.destroy();
        }
      }
      assert.deepEqual(outcomes, [400, 400]);
      assert.equal(ran, 0);
      assert.equal(errors.text(), "");
    } finally {
      await withDeadline(server.shutdown(), 10_000, "the server to shut down");
      console.error = quietErrors;
    }
    assert.deepEqual(reported, []);
  },

  async "serveWsgi: HEAD is answered with the Content-Length a GET gets, or none, never 0; a 204 with none"(
    env,
  ) {
    const encoder = new TextEncoder();
    const app: WeftWsgi.WsgiApp = (environ, start) => {
      if (environ.PATH_INFO === "/204") {
        start("204 No Content", [["Content-Length", "0"]]);
        return [];
      }
      start("200 OK", [["Content-Type", "text/plain"]]);
      if (environ.PATH_INFO === "/list") return [encoder.encode("hello"), encoder.encode(" you")];
      return (function* () {
        yield encoder.encode("streamed");
      })();
    };
    const server = env.wsgi.serveWsgi(app, { port: 0, hostname: "127.0.0.1", onListen() {} });
    try {
      const length = (head: string | null) =>
        /\r\ncontent-length: *(\d+)/i.exec(head!)?.[1] ?? null;
      // a list goes out with its length; a generator's GET streams (Node's adapter gives the
      // length of a stream that has ended by its first read), and its HEAD has no length
      const list = await exchange(server.addr.port, "/list");
      assert.equal(length(list.head), "9");
      for (const [path, expected] of [["/list", "9"], ["/generator", null]] as const) {
        const head = await exchange(server.addr.port, path, "HEAD");
        assert.match(head.head!, /^HTTP\/1\.1 200 /);
        assert.equal(length(head.head), expected, `HEAD ${path}`);
        assert.equal(head.body, "", `HEAD ${path}`);
      }
      // a 204 has no Content-Length (RFC 9110 §8.6), though the application gave one of 0
      const noContent = await exchange(server.addr.port, "/204");
      assert.match(noContent.head!, /^HTTP\/1\.1 204 /);
      assert.equal(length(noContent.head), null);
    } finally {
      await withDeadline(server.shutdown(), 10_000, "the server to shut down");
    }
  },

  async "serveWsgi: a body that fails after its headers is reported on wsgi.errors only"(env) {
    const encoder = new TextEncoder();
    const app: WeftWsgi.WsgiApp = (environ, start) => {
      const short = environ.PATH_INFO === "/short";
      const headers: [string, string][] = [["Content-Type", "text/plain"]];
      if (short) headers.push(["Content-Length", "10"]);
      start("200 OK", headers);
      return (function* () {
        yield encoder.encode("first");
        if (!short) throw new Error("boom after the headers");
      })();
    };
    const errors = recordingErrors();
    const server = env.wsgi.serveWsgi(app, {
      port: 0,
      hostname: "127.0.0.1",
      onListen() {},
      errors,
    });
    const reported: string[] = [];
    const quietErrors = console.error;
    console.error = (...args: unknown[]) => reported.push(args.map(String).join(" "));
    try {
      for (const path of ["/throw", "/short"]) {
        await exchange(server.addr.port, path);
        await curlOutcome(env, [
          "--http2-prior-knowledge",
          `http://127.0.0.1:${server.addr.port}${path}`,
        ]);
      }
      assert.equal(errors.text().match(/boom after the headers/g)?.length, 2, errors.text());
      assert.equal(errors.text().match(/declared Content-Length 10/g)?.length, 2, errors.text());
    } finally {
      await withDeadline(server.shutdown(), 10_000, "the server to shut down");
      console.error = quietErrors;
    }
    assert.deepEqual(reported, []);
  },

  "serveWsgi: a maxBodyBytes that is no limit (NaN, negative) is refused, not ignored"(env) {
    const app: WeftWsgi.WsgiApp = (_environ, start) => {
      start("204 No Content", []);
      return [];
    };
    for (const maxBodyBytes of [NaN, -1, 0.5]) {
      assert.throws(
        () => env.wsgi.serveWsgi(app, { port: 0, hostname: "127.0.0.1", maxBodyBytes }),
        RangeError,
      );
    }
    return Promise.resolve();
  },

  async "serveWsgi: HTTP_HOST is the Host of HTTP/1.1 and the :authority of HTTP/2"(env) {
    const echo: WeftWsgi.WsgiApp = (environ, start) => {
      start("200 OK", [["Content-Type", "text/plain"]]);
      return [new TextEncoder().encode(String(environ.HTTP_HOST))];
    };
    const server = env.wsgi.serveWsgi(echo, { port: 0, hostname: "127.0.0.1", onListen() {} });
    try {
      const authority = `127.0.0.1:${server.addr.port}`;
      for (const flag of ["--http1.1", "--http2-prior-knowledge"]) {
        const res = await env.curl([flag, `http://${authority}/`]);
        assert.equal(res.body, authority, flag);
      }
    } finally {
      await withDeadline(server.shutdown(), 10_000, "the server to shut down");
    }
  },

  async "StaticMiddleware: a prefix past ASCII serves its files over HTTP/1.1 and HTTP/2"(env) {
    const root = mkdtempSync(join(tmpdir(), "weft-wsgi-prefix-"));
    writeFileSync(join(root, "a.txt"), "from the folder");
    const fallback: WeftWsgi.WsgiApp = (_environ, startResponse) => {
      startResponse("404 Not Found", [["content-type", "text/plain"]]);
      return [new TextEncoder().encode("from the app")];
    };
    const app = env.wsgi.StaticMiddleware(fallback, root, "/café");
    const quiet = { port: 0, hostname: "127.0.0.1", onListen: () => {} };
    const server = env.wsgi.serveWsgi(app, quiet);
    try {
      const base = `http://127.0.0.1:${server.addr.port}`;
      for (const flags of [["--http1.1"], ["--http2-prior-knowledge"]]) {
        const res = await env.curl([...flags, `${base}/caf%C3%A9/a.txt`]);
        assert.equal(res.status, 200);
        assert.equal(res.body, "from the folder");
        const outside = await env.curl([...flags, `${base}/cafe/a.txt`]);
        assert.equal(outside.body, "from the app");
      }
    } finally {
      await withDeadline(server.shutdown(), 10_000, "the server to shut down");
      rmSync(root, { recursive: true, force: true });
    }
  },
};
