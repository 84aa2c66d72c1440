import assert from "node:assert/strict";
import {
  type Environ,
  serveWsgi,
  StaticMiddleware,
  toFetchHandler,
  validator,
  type WsgiApp,
} from "../../wsgi/mod.ts";
import { BIG_SIZE, buildFixture, decoder, encoder, fallbackApp, pattern } from "./_harness.ts";
import { recordingErrors } from "./_errors.ts";

/** An app that captures its environ and echoes the body. */
type Captured = WsgiApp & { environ?: Environ; body?: Uint8Array };

function capture(): Captured {
  const app: Captured = (environ, startResponse) => {
    app.environ = environ;
    const body = environ["wsgi.input"].read();
    app.body = body;
    startResponse("200 OK", [["Content-Type", "application/octet-stream"]]);
    return [body];
  };
  return app;
}

/** A body iterable that records what happened to it. */
function tracked(chunks: (Uint8Array | string)[], options: { throwAt?: number } = {}) {
  const log = { pulled: 0, closed: 0 };
  const body = {
    *[Symbol.iterator]() {
      for (const [i, chunk] of chunks.entries()) {
        if (i === options.throwAt) throw new Error("boom in the body");
        log.pulled++;
        yield chunk as Uint8Array;
      }
    },
    close() {
      log.closed++;
    },
  };
  return { body, log };
}

Deno.test("toFetchHandler() builds the PEP 3333 environ from the request", async () => {
  const app = capture();
  const handler = toFetchHandler(validator(app));
  const res = await handler(
    new Request("http://example.com:8080/caf%C3%A9/a%2Fb/%zz?q=%20x&y=1#frag", {
      headers: { "x-custom": "1", "accept": "text/html", "x_under": "dropped" },
    }),
    { remoteAddr: { hostname: "10.0.0.7", port: 51234 } },
  );
  await res.body?.cancel();
  const env = app.environ!;
  assert.equal(env.REQUEST_METHOD, "GET");
  assert.equal(env.SCRIPT_NAME, "");
  assert.equal(env.PATH_INFO, "/caf\xc3\xa9/a/b/%zz");
  assert.equal(env.QUERY_STRING, "q=%20x&y=1");
  assert.equal(env.SERVER_NAME, "example.com");
  assert.equal(env.SERVER_PORT, "8080");
  assert.equal(env.SERVER_PROTOCOL, "HTTP/1.1");
  assert.equal(env.REMOTE_ADDR, "10.0.0.7");
  assert.equal(env.REMOTE_PORT, "51234");
  assert.equal(env.HTTP_X_CUSTOM, "1");
  assert.equal(env.HTTP_ACCEPT, "text/html");
  // a fetch Request, like an HTTP/2 one, carries no Host header: the URL's authority stands in
  assert.equal(env.HTTP_HOST, "example.com:8080");
  assert.equal(env.HTTP_X_UNDER, undefined);
  assert.equal(env.CONTENT_LENGTH, undefined);
  assert.deepEqual(env["wsgi.version"], [1, 0]);
  assert.equal(env["wsgi.url_scheme"], "http");
  assert.equal(env["wsgi.multithread"], false);
  assert.equal(env["wsgi.multiprocess"], false);
  assert.equal(env["wsgi.run_once"], false);
  assert.equal(typeof env["wsgi.file_wrapper"], "function");
});

Deno.test("toFetchHandler() derives default ports and handles IPv6 hosts", async () => {
  const app = capture();
  const handler = toFetchHandler(app);
  await (await handler(new Request("https://example.com/"))).arrayBuffer();
  assert.equal(app.environ!.SERVER_PORT, "443");
  assert.equal(app.environ!["wsgi.url_scheme"], "https");
  await (await handler(new Request("http://[::1]/x"))).arrayBuffer();
  assert.equal(app.environ!.SERVER_NAME, "[::1]");
  assert.equal(app.environ!.SERVER_PORT, "80");
  await (await handler(new Request("http://[::1]:9000"))).arrayBuffer();
  assert.equal(app.environ!.SERVER_PORT, "9000");
  assert.equal(app.environ!.PATH_INFO, "/");
  await (await toFetchHandler(app, { fileWrapper: false })(new Request("http://h/"))).arrayBuffer();
  assert.equal(app.environ!["wsgi.file_wrapper"], undefined);
});

Deno.test("toFetchHandler() splits an absolute-form target as sent: its authority ends at ?, # or /", async () => {
  // A runtime hands over an absolute-form target as the client wrote it; new Request() would
  // normalize it, so the requests here are plain objects with the raw URL.
  const app = capture();
  const handler = toFetchHandler(validator(app));
  const raw = (url: string) => ({ url, method: "GET", headers: new Headers(), body: null });
  const cases: [string, Partial<Environ>][] = [
    ["http://a?x=/admin", { PATH_INFO: "/", QUERY_STRING: "x=/admin", SERVER_NAME: "a" }],
    ["http://a:81?x=/admin", { PATH_INFO: "/", SERVER_NAME: "a", SERVER_PORT: "81" }],
    ["http://a#/admin", { PATH_INFO: "/", QUERY_STRING: "", SERVER_NAME: "a" }],
    ["http://u:p@a/p", { PATH_INFO: "/p", SERVER_NAME: "a", SERVER_PORT: "80" }],
    ["http://u@[::1]:9?/x", { PATH_INFO: "/", SERVER_NAME: "[::1]", SERVER_PORT: "9" }],
    ["HTTP://A/p", { "wsgi.url_scheme": "http", SERVER_NAME: "A", SERVER_PORT: "80" }],
    ["HTTPS://a/p?q", { "wsgi.url_scheme": "https", SERVER_PORT: "443", QUERY_STRING: "q" }],
  ];
  for (const [url, expected] of cases) {
    const res = await handler(raw(url) as unknown as Request);
    assert.equal(res.status, 200, url);
    await res.body?.cancel();
    for (const [key, value] of Object.entries(expected)) {
      assert.equal(app.environ![key], value, `${key} of ${url}`);
    }
  }
});

Deno.test("toFetchHandler() gives a query sent as raw UTF-8 as its bytes, a native string", async () => {
  // Deno.serve hands over a target sent with raw UTF-8 bytes as the characters they encode
  const sent =
    "GET /caf\xc3\xa9?q=\xc3\xa9&euro=\xe2\x82\xac HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n";
  const app = capture();
  const server = serveWsgi(validator(app), { port: 0, hostname: "127.0.0.1", onListen() {} });
  try {
    const conn = await Deno.connect({ port: server.addr.port, hostname: "127.0.0.1" });
    await conn.write(Uint8Array.from(sent, (c) => c.charCodeAt(0)));
    const answer = decoder.decode(await new Response(conn.readable).arrayBuffer());
    assert.match(answer, /^HTTP\/1\.1 200 /);
  } finally {
    await server.shutdown();
  }
  assert.equal(app.environ!.PATH_INFO, "/caf\xc3\xa9");
  assert.equal(app.environ!.QUERY_STRING, "q=\xc3\xa9&euro=\xe2\x82\xac");
});

Deno.test("toFetchHandler() buffers the body into wsgi.input with CONTENT_TYPE and CONTENT_LENGTH", async () => {
  const app = capture();
  const res = await toFetchHandler(validator(app))(
    new Request("http://h/upload", {
      method: "POST",
      body: "line 1\nline 2\n",
      headers: { "content-type": "text/plain" },
    }),
  );
  assert.equal(await res.text(), "line 1\nline 2\n");
  assert.equal(app.environ!.CONTENT_TYPE, "text/plain");
  assert.equal(app.environ!.CONTENT_LENGTH, "14");
  assert.equal(app.environ!.HTTP_CONTENT_TYPE, undefined);
});

Deno.test("toFetchHandler() offers read, readline, readlines and iteration on wsgi.input", async () => {
  let lines: string[] = [];
  const app: WsgiApp = (environ, startResponse) => {
    const input = environ["wsgi.input"];
    lines = [decoder.decode(input.read(2)), decoder.decode(input.readline())];
    lines.push(decoder.decode(input.readline(3)));
    lines.push(...input.readlines().map((l) => decoder.decode(l)));
    lines.push(String([...input].length), String(input.read().length));
    startResponse("204 No Content", []);
    return [];
  };
  const res = await toFetchHandler(validator(app))(
    new Request("http://h/", { method: "PUT", body: "abcd\nefghij\nk\nl" }),
  );
  assert.equal(res.status, 204);
  assert.deepEqual(lines, ["ab", "cd\n", "efg", "hij\n", "k\n", "l", "0", "0"]);
});

Deno.test("toFetchHandler()'s wsgi.input takes sizes as Python does: null is None, NaN is an error", async () => {
  const seen: unknown[] = [];
  const app: WsgiApp = (environ, startResponse) => {
    const input = environ["wsgi.input"];
    // NaN (a size read from a header that is not there) is refused and moves nothing
    for (const size of [NaN, 1.5]) {
      try {
        input.read(size);
      } catch (error) {
        seen.push((error as Error).name);
      }
    }
    seen.push(decoder.decode(input.read(2)), decoder.decode(input.readline(null)));
    seen.push(input.readlines(null).length, decoder.decode(input.read(null)));
    startResponse("204 No Content", []);
    return [];
  };
  // validator() reports the NaN as the application's error; without it, Python's TypeError
  for (const [checked, refused] of [[app, "TypeError"], [validator(app), "WsgiValidationError"]]) {
    seen.length = 0;
    const res = await toFetchHandler(checked as WsgiApp)(
      new Request("http://h/", { method: "PUT", body: "abcd\nefgh\nij" }),
    );
    assert.equal(res.status, 204);
    assert.deepEqual(seen, [refused, refused, "ab", "cd\n", 2, ""]);
  }
});

Deno.test("toFetchHandler() buffers a streamed body without Content-Length", async () => {
  const app = capture();
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      for (let i = 0; i < 10; i++) controller.enqueue(encoder.encode(`chunk${i};`));
      controller.close();
    },
  });
  const res = await toFetchHandler(app)(new Request("http://h/", { method: "POST", body: stream }));
  assert.equal(await res.text(), Array.from({ length: 10 }, (_, i) => `chunk${i};`).join(""));
  assert.equal(app.environ!.CONTENT_LENGTH, "70");
});

Deno.test("toFetchHandler() answers 413 beyond maxBodyBytes without running the app", async () => {
  const app = capture();
  const handler = toFetchHandler(app, { maxBodyBytes: 10 });
  const declared = await handler(
    new Request("http://h/", { method: "POST", body: "x".repeat(11) }),
  );
  assert.equal(declared.status, 413);
  assert.equal(declared.headers.get("content-type"), "application/problem+json");
  assert.equal((await declared.json()).status, 413);
  const streamed = await handler(
    new Request("http://h/", {
      method: "POST",
      body: new ReadableStream({
        pull(controller) {
          controller.enqueue(new Uint8Array(4)); // never ends: the limit must stop it
        },
      }),
    }),
  );
  assert.equal(streamed.status, 413);
  await streamed.body?.cancel();
  assert.equal(app.environ, undefined);
  const exact = await handler(new Request("http://h/", { method: "POST", body: "x".repeat(10) }));
  assert.equal(exact.status, 200);
  assert.equal(await exact.text(), "x".repeat(10));
});

Deno.test("toFetchHandler() answers 400 for a request body that cannot be read, without running the app", async () => {
  const app = capture();
  const errors = recordingErrors();
  const res = await toFetchHandler(app, { errors })(
    new Request("http://h/", {
      method: "POST",
      body: new ReadableStream({
        start(controller) {
          controller.enqueue(encoder.encode("half a bo"));
        },
        pull(controller) {
          controller.error(new TypeError("the client went away mid-body"));
        },
      }),
    }),
  );
  assert.equal(res.status, 400);
  assert.equal(res.headers.get("content-type"), "application/problem+json");
  assert.equal((await res.json()).detail, "The request body could not be read");
  assert.equal(app.environ, undefined);
  assert.equal(errors.text(), "");
});

Deno.test("toFetchHandler() refuses a maxBodyBytes that is not a limit, rather than buffer any body", async () => {
  for (const maxBodyBytes of [NaN, -1, 1.5, Number("1mb")]) {
    assert.throws(
      () => toFetchHandler(capture(), { maxBodyBytes }),
      RangeError,
      String(maxBodyBytes),
    );
  }
  const zero = await toFetchHandler(capture(), { maxBodyBytes: 0 })(
    new Request("http://h/", { method: "POST", body: "x" }),
  );
  assert.equal(zero.status, 413);
  await zero.body?.cancel();
});

Deno.test("toFetchHandler() maps status, reason and repeated headers to the Response", async () => {
  const app: WsgiApp = (_environ, startResponse) => {
    startResponse("201 Made It", [
      ["Content-Type", "text/plain"],
      ["Set-Cookie", "a=1"],
      ["Set-Cookie", "b=2"],
      ["X-Thing", "yes"],
    ]);
    return [encoder.encode("made")];
  };
  const res = await toFetchHandler(validator(app))(new Request("http://h/"));
  assert.equal(res.status, 201);
  assert.equal(res.statusText, "Made It");
  assert.deepEqual(res.headers.getSetCookie(), ["a=1", "b=2"]);
  assert.equal(res.headers.get("x-thing"), "yes");
  assert.equal(await res.text(), "made");
});

Deno.test("toFetchHandler() drops hop-by-hop headers the app should not send", async () => {
  const app: WsgiApp = (_environ, startResponse) => {
    startResponse("200 OK", [
      ["Content-Type", "text/plain"],
      ["Connection", "close"],
      ["Transfer-Encoding", "chunked"],
      ["Keep-Alive", "timeout=5"],
    ]);
    return [encoder.encode("ok")];
  };
  const res = await toFetchHandler(app)(new Request("http://h/"));
  assert.equal(res.headers.get("connection"), null);
  assert.equal(res.headers.get("transfer-encoding"), null);
  assert.equal(res.headers.get("keep-alive"), null);
  assert.equal(await res.text(), "ok");
});

Deno.test("toFetchHandler() sends write() output before the iterable's chunks", async () => {
  const app: WsgiApp = (_environ, startResponse) => {
    const write = startResponse("200 OK", [["Content-Type", "text/plain"]]);
    write(encoder.encode("one "));
    write(encoder.encode("two "));
    return [encoder.encode("three")];
  };
  assert.equal(
    await (await toFetchHandler(validator(app))(new Request("http://h/"))).text(),
    "one two three",
  );
});

Deno.test("toFetchHandler() streams a lazy body and calls close() once at the end", async () => {
  const { body, log } = tracked([
    encoder.encode(""),
    encoder.encode("a"),
    encoder.encode("b"),
    encoder.encode("c"),
  ]);
  const app: WsgiApp = (_environ, startResponse) => {
    startResponse("200 OK", [["Content-Type", "text/plain"]]);
    return body;
  };
  const res = await toFetchHandler(validator(app))(new Request("http://h/"));
  assert.ok(log.pulled < 4, "the body is pulled lazily");
  assert.equal(log.closed, 0);
  assert.equal(await res.text(), "abc");
  assert.equal(log.closed, 1);
});

Deno.test("toFetchHandler() calls close() when the client abandons the body", async () => {
  const chunks = Array.from({ length: 100 }, () => new Uint8Array(1024));
  const { body, log } = tracked(chunks);
  const app: WsgiApp = (_environ, startResponse) => {
    startResponse("200 OK", [["Content-Type", "application/octet-stream"]]);
    return body;
  };
  const res = await toFetchHandler(app)(new Request("http://h/"));
  const reader = res.body!.getReader();
  await reader.read();
  await reader.cancel();
  assert.equal(log.closed, 1);
  assert.ok(log.pulled < 100);
});

Deno.test("toFetchHandler() calls close() for HEAD and bodiless statuses without sending a body", async () => {
  for (
    const [method, status] of [["HEAD", "200 OK"], ["GET", "304 Not Modified"], [
      "GET",
      "204 No Content",
    ]]
  ) {
    const { body, log } = tracked([encoder.encode("never sent")]);
    const app: WsgiApp = (_environ, startResponse) => {
      startResponse(status, [["Content-Type", "text/plain"], ["Content-Length", "10"]]);
      return body;
    };
    const res = await toFetchHandler(app)(new Request("http://h/", { method }));
    assert.equal(res.status, Number(status.slice(0, 3)));
    assert.equal(res.body, null);
    assert.equal(log.closed, 1, `${method} ${status}`);
    // RFC 9110 §8.6: a 304 may carry the length a 200 would have, a 204 none
    const length = status === "204 No Content" ? null : "10";
    assert.equal(res.headers.get("content-length"), length, `${method} ${status}`);
  }
});

Deno.test("toFetchHandler() answers HEAD with the Content-Length a GET would have, or none", async () => {
  const { body: streamed, log } = tracked([encoder.encode("never sent")]);
  const apps: Record<string, WsgiApp> = {
    list: (_environ, startResponse) => {
      const write = startResponse("200 OK", [["Content-Type", "text/plain"]]);
      write(encoder.encode("ab"));
      return [encoder.encode("cde"), new Uint8Array(0), encoder.encode("f")];
    },
    generator: (_environ, startResponse) => {
      startResponse("200 OK", [["Content-Type", "text/plain"]]);
      return streamed;
    },
  };
  // a list's GET goes out with its length (a Response of 6 bytes); a generator's streams, as
  // does any other iterable (validator()'s checked body too)
  for (const [name, length] of [["list", "6"], ["generator", null]] as const) {
    const res = await toFetchHandler(apps[name])(
      new Request("http://h/", { method: "HEAD" }),
    );
    assert.equal(res.status, 200, name);
    assert.equal(res.headers.get("content-length"), length, name);
    assert.equal(await res.text(), "", name);
  }
  assert.equal(log.closed, 1);
});

Deno.test("toFetchHandler() ends a generator body it leaves early, so its finally blocks run", async () => {
  for (const validated of [false, true]) {
    for (
      const [method, status, chunk] of [
        ["HEAD", "200 OK", encoder.encode("a")],
        ["GET", "304 Not Modified", new Uint8Array(0)],
        ["GET", "200 OK", "not bytes"],
      ] as const
    ) {
      const log: string[] = [];
      const app: WsgiApp = function* (_environ, startResponse) {
        try {
          startResponse(status, [["Content-Type", "text/plain"]]);
          yield chunk as Uint8Array;
          yield encoder.encode("b");
        } finally {
          log.push("finally");
        }
      };
      const handler = toFetchHandler(validated ? validator(app) : app, {
        errors: recordingErrors(),
      });
      const res = await handler(new Request("http://h/", { method }));
      await res.body?.cancel();
      assert.deepEqual(log, ["finally"], `${method} ${status} validated: ${validated}`);
    }
  }
});

Deno.test("toFetchHandler() sends what write() was given, whatever the app does with its buffer", async () => {
  const app: WsgiApp = (_environ, startResponse) => {
    const write = startResponse("200 OK", [["Content-Type", "text/plain"]]);
    const buffer = new Uint8Array(4);
    buffer.fill(65);
    write(buffer);
    buffer.fill(66);
    write(buffer);
    return [];
  };
  assert.equal(await (await toFetchHandler(app)(new Request("http://h/"))).text(), "AAAABBBB");
});

Deno.test("toFetchHandler() holds a list body to its declared Content-Length", async () => {
  const app = (declared: string, body: string): WsgiApp => (_environ, startResponse) => {
    startResponse("200 OK", [["Content-Type", "text/plain"], ["Content-Length", declared]]);
    return [encoder.encode(body)];
  };
  // more bytes than declared: no more than declared are sent, and the app's error is logged
  const errors = recordingErrors();
  const long = await toFetchHandler(app("2", "abcdefgh"), { errors })(new Request("http://h/"));
  assert.equal(long.headers.get("content-length"), "2");
  assert.equal(await long.text(), "ab");
  assert.match(errors.text(), /declared Content-Length 2 and produced 8 bytes/);
  // fewer: the answer would be a short body under a length the app did not mean; a 500 instead
  const short = await toFetchHandler(app("10", "abc"), { errors: recordingErrors() })(
    new Request("http://h/"),
  );
  assert.equal(short.status, 500);
  await short.body?.cancel();
});

Deno.test("toFetchHandler() holds a streamed body to its declared Content-Length", async () => {
  const app = (declared: string, chunks: string[], written = ""): WsgiApp & { log: string[] } => {
    const log: string[] = [];
    const streamed: WsgiApp = (_environ, startResponse) => {
      const write = startResponse("200 OK", [
        ["Content-Type", "text/plain"],
        ["Content-Length", declared],
      ]);
      if (written !== "") write(encoder.encode(written));
      const body = (function* () {
        try {
          for (const chunk of chunks) yield encoder.encode(chunk);
        } finally {
          log.push("finally");
        }
      })(); // a generator is streamed, not buffered
      return Object.assign(body, { close: () => void log.push("close") });
    };
    return Object.assign(streamed, { log });
  };
  // more bytes than declared: the chunk that crosses the length is cut, the rest never pulled
  for (
    const [declared, chunks, written, logged] of [
      ["3", ["abcdef", "ghi"], "", /declared Content-Length 3 and produced at least 6 bytes/],
      ["3", ["abc", "def"], "", /declared Content-Length 3 and produced at least 6 bytes/],
      ["3", ["cdef"], "ab", /declared Content-Length 3 and produced at least 6 bytes/],
    ] as const
  ) {
    const errors = recordingErrors();
    const long = app(declared, [...chunks], written);
    const res = await toFetchHandler(long, { errors })(new Request("http://h/"));
    assert.equal(res.headers.get("content-length"), "3");
    assert.equal(await res.text(), "abc", chunks.join());
    assert.match(errors.text(), logged);
    assert.match(errors.text(), /the rest is not sent/);
    assert.deepEqual(long.log, ["finally", "close"]);
  }
  // fewer: the body fails instead of ending, so the client cannot take it for the whole
  const errors = recordingErrors();
  const short = app("10", ["ab", "cd"]);
  const res = await toFetchHandler(short, { errors })(new Request("http://h/"));
  assert.equal(res.status, 200);
  await assert.rejects(() => res.text(), /declared Content-Length 10 and produced 4 bytes/);
  assert.match(errors.text(), /declared Content-Length 10 and produced 4 bytes/);
  assert.deepEqual(short.log, ["finally", "close"]);
  // exactly the declared length ends normally, with nothing logged
  const exact = recordingErrors();
  const whole = await toFetchHandler(app("4", ["ab", "", "cd"]), { errors: exact })(
    new Request("http://h/"),
  );
  assert.equal(await whole.text(), "abcd");
  assert.equal(exact.text(), "");
});

Deno.test("toFetchHandler() takes a Content-Length given twice alike as one, and refuses one no server can frame by", async () => {
  const app = (...lengths: string[]): WsgiApp => (_environ, startResponse) => {
    startResponse("200 OK", [
      ["Content-Type", "text/plain"],
      ...lengths.map((length) => ["Content-Length", length] as [string, string]),
    ]);
    return (function* () {
      yield encoder.encode("0123456789");
      yield encoder.encode("abcdefghij");
    })();
  };
  // the same length twice (RFC 9110 §8.6): one length, held to as any
  const twice = recordingErrors();
  const res = await toFetchHandler(app("5", "5"), { errors: twice })(new Request("http://h/"));
  assert.equal(res.headers.get("content-length"), "5");
  assert.equal(await res.text(), "01234");
  assert.match(twice.text(), /declared Content-Length 5/);
  // different lengths, or not a length: the application's error, before the headers go out
  for (const lengths of [["5", "6"], ["abc"], ["5, 6"], ["-1"], ["1e3"]]) {
    const errors = recordingErrors();
    const refused = await toFetchHandler(app(...lengths), { errors })(new Request("http://h/"));
    assert.equal(refused.status, 500, lengths.join(" | "));
    await refused.body?.cancel();
    assert.match(errors.text(), /invalid Content-Length/, lengths.join(" | "));
  }
});

Deno.test("toFetchHandler() answers 500 without the stack when the app throws", async () => {
  const errors = recordingErrors();
  const app: WsgiApp = () => {
    throw new Error("secret detail");
  };
  const res = await toFetchHandler(app, { errors })(new Request("http://h/"));
  assert.equal(res.status, 500);
  assert.equal(res.headers.get("content-type"), "application/problem+json");
  const text = await res.text();
  assert.ok(!text.includes("secret detail"));
  assert.ok(!text.includes("at "));
  assert.deepEqual(JSON.parse(text), {
    type: "about:blank",
    title: "Internal Server Error",
    status: 500,
  });
  assert.match(errors.text(), /secret detail/);
});

Deno.test("toFetchHandler() answers 500 and closes when the body fails before the first chunk", async () => {
  const errors = recordingErrors();
  const { body, log } = tracked([encoder.encode("x")], { throwAt: 0 });
  const app: WsgiApp = (_environ, startResponse) => {
    startResponse("200 OK", [["Content-Type", "text/plain"]]);
    return body;
  };
  const res = await toFetchHandler(app, { errors })(new Request("http://h/"));
  assert.equal(res.status, 500);
  await res.body?.cancel();
  assert.equal(log.closed, 1);
  assert.match(errors.text(), /boom in the body/);
});

Deno.test("toFetchHandler() aborts the body and closes when it fails after the headers", async () => {
  const errors = recordingErrors();
  const { body, log } = tracked([encoder.encode("a"), encoder.encode("b")], { throwAt: 1 });
  const app: WsgiApp = (_environ, startResponse) => {
    startResponse("200 OK", [["Content-Type", "text/plain"]]);
    return body;
  };
  const res = await toFetchHandler(app, { errors })(new Request("http://h/"));
  assert.equal(res.status, 200);
  await assert.rejects(() => res.text(), /boom in the body/);
  assert.equal(log.closed, 1);
});

Deno.test("toFetchHandler() answers 500 for a missing startResponse, a bad status or a bad chunk", async () => {
  const apps: Record<string, WsgiApp> = {
    "no startResponse": () => [encoder.encode("x")],
    "no startResponse, empty body": () => [],
    "bad status": (_e, start) => {
      start("OK", [["Content-Type", "text/plain"]]);
      return [];
    },
    "status out of range": (_e, start) => {
      start("600 Nope", [["Content-Type", "text/plain"]]);
      return [encoder.encode("x")];
    },
    "string chunk": (_e, start) => {
      start("200 OK", [["Content-Type", "text/plain"]]);
      return ["text" as unknown as Uint8Array];
    },
    "not iterable": (_e, start) => {
      start("200 OK", [["Content-Type", "text/plain"]]);
      return 42 as unknown as Uint8Array[];
    },
    "invalid header value": (_e, start) => {
      start("200 OK", [["X-Bad", "line\nbreak"]]);
      return [encoder.encode("x")];
    },
    "second startResponse without excInfo": (_e, start) => {
      start("200 OK", [["Content-Type", "text/plain"]]);
      start("200 OK", [["Content-Type", "text/plain"]]);
      return [];
    },
    // null is how a JS port spells Python's exc_info=None: no error is being handled
    "second startResponse with a null excInfo": (_e, start) => {
      start("200 OK", [["Content-Type", "text/plain"]]);
      start("201 Created", [["Content-Type", "text/plain"]], null);
      return [];
    },
  };
  for (const [name, app] of Object.entries(apps)) {
    const res = await toFetchHandler(app, { errors: recordingErrors() })(new Request("http://h/"));
    assert.equal(res.status, 500, name);
    await res.body?.cancel();
  }
});

Deno.test("toFetchHandler() lets excInfo replace the status until the headers are sent", async () => {
  const app: WsgiApp = (_environ, startResponse) => {
    startResponse("200 OK", [["Content-Type", "text/plain"]]);
    try {
      throw new Error("handled");
    } catch (error) {
      startResponse("503 Service Unavailable", [["Content-Type", "text/plain"]], error);
      return [encoder.encode("try later")];
    }
  };
  const res = await toFetchHandler(validator(app))(new Request("http://h/"));
  assert.equal(res.status, 503);
  assert.equal(await res.text(), "try later");
});

Deno.test("toFetchHandler() rethrows excInfo once the headers were sent", async () => {
  let rethrown: unknown;
  const app: WsgiApp = (_environ, startResponse) => {
    const write = startResponse("200 OK", [["Content-Type", "text/plain"]]);
    write(encoder.encode("partial"));
    const error = new Error("too late");
    try {
      startResponse("500 Internal Server Error", [["Content-Type", "text/plain"]], error);
    } catch (e) {
      rethrown = e;
    }
    return [];
  };
  const res = await toFetchHandler(app)(new Request("http://h/"));
  assert.equal((rethrown as Error).message, "too late");
  assert.equal(await res.text(), "partial");
});

Deno.test("toFetchHandler() runs StaticMiddleware: 200, 304, HEAD, 405 and fall-through", async () => {
  const fixture = await buildFixture();
  try {
    const app = validator(StaticMiddleware(validator(fallbackApp()), fixture.root, "/static"));
    const handler = toFetchHandler(app);
    const ok = await handler(new Request("http://h/static/hello.txt"));
    assert.equal(ok.status, 200);
    assert.equal(ok.headers.get("content-length"), "11");
    assert.equal(await ok.text(), "hello world");
    const etag = ok.headers.get("etag")!;

    const notModified = await handler(
      new Request("http://h/static/hello.txt", { headers: { "if-none-match": etag } }),
    );
    assert.equal(notModified.status, 304);
    assert.equal(notModified.headers.get("etag"), etag);
    assert.equal(notModified.headers.get("cache-control"), "max-age=60");

    const head = await handler(new Request("http://h/static/hello.txt", { method: "HEAD" }));
    assert.equal(head.status, 200);
    assert.equal(head.body, null);
    assert.equal(head.headers.get("content-length"), "11");

    const post = await handler(
      new Request("http://h/static/hello.txt", { method: "POST", body: "x" }),
    );
    assert.equal(post.status, 405);
    assert.equal(post.headers.get("allow"), "GET, HEAD");
    await post.body?.cancel();

    const cafe = await handler(new Request("http://h/static/caf%C3%A9.txt"));
    assert.equal(await cafe.text(), "café");

    const big = await handler(new Request("http://h/static/big.bin"));
    assert.equal(big.headers.get("content-length"), String(BIG_SIZE));
    assert.deepEqual(new Uint8Array(await big.arrayBuffer()), pattern(BIG_SIZE));

    const miss = await handler(new Request("http://h/static/missing.txt"));
    assert.equal(miss.status, 404);
    assert.equal(await miss.text(), "fallback");
    app.assertClosed();
  } finally {
    fixture.remove();
  }
});
