import assert from "node:assert/strict";
import {
  type Environ,
  type StartResponse,
  validator,
  type WsgiApp,
  WsgiValidationError,
} from "../../wsgi/mod.ts";
import { call, encoder, makeEnviron } from "./_harness.ts";

const noop: StartResponse = () => () => {};
const TEXT: [string, string][] = [["Content-Type", "text/plain"]];

function ok(
  headers: [string, string][] = TEXT,
  body: Uint8Array[] = [encoder.encode("ok")],
): WsgiApp {
  return (_environ, startResponse) => {
    startResponse("200 OK", headers);
    return body;
  };
}

function violation(run: () => unknown, pattern: RegExp, what = pattern.source): void {
  assert.throws(run, (error: unknown) => {
    assert.ok(
      error instanceof WsgiValidationError,
      `${what}: expected WsgiValidationError, got ${error}`,
    );
    assert.equal(error.name, "WsgiValidationError");
    assert.match(error.message, pattern);
    return true;
  });
}

Deno.test("validator() passes a conforming application and server", () => {
  const app = validator(ok());
  const res = call(app, makeEnviron("/"));
  assert.equal(res.text, "ok");
  app.assertClosed();
});

Deno.test("validator() checks the server's environ", () => {
  const app = validator(ok());
  const cases: [string, (e: Environ) => void, RegExp][] = [
    [
      "missing key",
      (e) => delete (e as Record<string, unknown>)["wsgi.input"],
      /lacks the required key wsgi.input/,
    ],
    [
      "missing method",
      (e) => delete (e as Record<string, unknown>).REQUEST_METHOD,
      /REQUEST_METHOD/,
    ],
    ["HTTP_CONTENT_TYPE", (e) => (e.HTTP_CONTENT_TYPE = "text/plain"), /HTTP_CONTENT_TYPE/],
    ["HTTP_CONTENT_LENGTH", (e) => (e.HTTP_CONTENT_LENGTH = "1"), /HTTP_CONTENT_LENGTH/],
    ["non-Latin-1 PATH_INFO", (e) => (e.PATH_INFO = "/caf\u0100"), /native \(Latin-1\)/],
    [
      "non-string CGI variable",
      (e) => ((e as Record<string, unknown>).SERVER_PORT = 80),
      /SERVER_PORT must be a string/,
    ],
    [
      "bad wsgi.version",
      (e) => ((e as Record<string, unknown>)["wsgi.version"] = "1.0"),
      /wsgi.version/,
    ],
    ["bad url scheme", (e) => (e["wsgi.url_scheme"] = "ftp"), /url_scheme/],
    ["method not a token", (e) => (e.REQUEST_METHOD = "GET /"), /not a token/],
    ["SCRIPT_NAME of /", (e) => (e.SCRIPT_NAME = "/"), /SCRIPT_NAME must not be \//],
    ["SCRIPT_NAME without /", (e) => (e.SCRIPT_NAME = "app"), /SCRIPT_NAME must be empty or start/],
    ["PATH_INFO without /", (e) => (e.PATH_INFO = "x"), /PATH_INFO must be empty or start/],
    ["both empty", (e) => (e.PATH_INFO = ""), /One of SCRIPT_NAME or PATH_INFO/],
    [
      "input without readline",
      (e) => ((e["wsgi.input"] as unknown as Record<string, unknown>).readline = 1),
      /wsgi.input lacks readline/,
    ],
    [
      "errors without flush",
      (e) => (e["wsgi.errors"] = { write() {}, writelines() {} } as never),
      /wsgi.errors lacks flush/,
    ],
    [
      "multithread not boolean",
      (e) => ((e as Record<string, unknown>)["wsgi.multithread"] = 0),
      /multithread must be a boolean/,
    ],
    [
      "file_wrapper not a function",
      (e) => ((e as Record<string, unknown>)["wsgi.file_wrapper"] = {}),
      /file_wrapper/,
    ],
  ];
  for (const [name, mutate, pattern] of cases) {
    const environ = makeEnviron("/");
    mutate(environ);
    violation(() => app(environ, noop), pattern, name);
  }
  violation(
    () => (app as (...args: unknown[]) => unknown)(makeEnviron("/")),
    /called with \(environ, startResponse\)/,
  );
});

Deno.test("validator() checks the status line", () => {
  const cases: [unknown, RegExp][] = [
    [200, /status must be a string/],
    ["200", /"NNN reason"/],
    ["200 ", /reason phrase/],
    ["OK 200", /"NNN reason"/],
    ["2000 OK", /"NNN reason"/],
    ["099 Low", /at least 100/],
    ["200 O\nK", /control characters/],
    ["200 caf\u0100", /Latin-1/],
  ];
  for (const [status, pattern] of cases) {
    const app = validator((_e, start) => {
      start(status as string, TEXT);
      return [];
    });
    violation(() => app(makeEnviron("/"), noop), pattern);
  }
});

Deno.test("validator() checks the headers, including hop-by-hop ones", () => {
  const cases: [unknown, RegExp][] = [
    [{ "Content-Type": "text/plain" }, /array of \[name, value\] pairs/],
    [[["Content-Type"]], /\[name, value\] pair/],
    [[["Content-Type", "text/plain", "x"]], /\[name, value\] pair/],
    [[[1, "x"], ...TEXT], /name must be a string/],
    [[["X-Num", 1], ...TEXT], /value of X-Num must be a string/],
    [[["Status", "200"], ...TEXT], /Status is not a header/],
    [[["X Bad", "1"], ...TEXT], /Invalid header name/],
    [[["X-Bad:", "1"], ...TEXT], /Invalid header name/],
    [[["X-Trailing-", "1"], ...TEXT], /must not end in - or _/],
    [[["X-Bad", "a\nb"], ...TEXT], /control character/],
    [[["X-Bad", "a\tb"], ...TEXT], /control character/],
    [[["X-Bad", "caf\u0100"], ...TEXT], /must be Latin-1/],
    [[], /No Content-Type header/],
    [[["Content-Length", "-1"], ...TEXT], /Content-Length must be a non-negative integer/],
  ];
  for (
    const hop of [
      "Connection",
      "Keep-Alive",
      "Proxy-Authenticate",
      "Proxy-Authorization",
      "TE",
      "Trailers",
      "Transfer-Encoding",
      "Upgrade",
    ]
  ) {
    cases.push([[[hop, "x"], ...TEXT], new RegExp(`Hop-by-hop header ${hop}`)]);
  }
  for (const [headers, pattern] of cases) {
    const app = validator((_e, start) => {
      start("200 OK", headers as [string, string][]);
      return [];
    });
    violation(() => app(makeEnviron("/"), noop), pattern);
  }
});

Deno.test("validator() forbids Content-Type and a body on 304 and 204", () => {
  for (const status of ["304 Not Modified", "204 No Content"]) {
    const withType = validator((_e, start) => {
      start(status, TEXT);
      return [];
    });
    violation(() => withType(makeEnviron("/"), noop), /must not have a Content-Type/);
    const withBody = validator((_e, start) => {
      start(status, []);
      return [encoder.encode("x")];
    });
    violation(() => call(withBody, makeEnviron("/")), /must not have a body/);
  }
  const fine = validator((_e, start) => {
    start("304 Not Modified", [["ETag", '"x"']]);
    return [];
  });
  assert.equal(call(fine, makeEnviron("/")).code, 304);
});

Deno.test("validator() allows a second startResponse only with excInfo", () => {
  const twice = validator((_e, start) => {
    start("200 OK", TEXT);
    start("500 Oops", TEXT);
    return [];
  });
  violation(() => twice(makeEnviron("/"), noop), /second time without excInfo/);
  // null is Python's exc_info=None, not an error being handled
  const none = validator((_e, start) => {
    start("200 OK", TEXT);
    start("201 Created", TEXT, null);
    return [];
  });
  violation(() => none(makeEnviron("/"), noop), /second time without excInfo/);
  const recovered = validator((_e, start) => {
    start("200 OK", TEXT);
    start("500 Oops", TEXT, new Error("handled"));
    return [];
  });
  assert.equal(call(recovered, makeEnviron("/")).code, 500);
});

Deno.test("validator() checks the returned body", () => {
  const cases: [unknown, RegExp][] = [
    ["text", /not a string/],
    [encoder.encode("x"), /not a lone Uint8Array/],
    [null, /must return an iterable/],
    [42, /must return an iterable/],
  ];
  for (const [result, pattern] of cases) {
    const app = validator((_e, start) => {
      start("200 OK", TEXT);
      return result as Uint8Array[];
    });
    violation(() => app(makeEnviron("/"), noop), pattern);
  }
  const strings = validator(ok(TEXT, ["a" as unknown as Uint8Array]));
  violation(() => call(strings, makeEnviron("/")), /yielded string, not a Uint8Array/);
});

Deno.test("validator() requires startResponse before the first chunk", () => {
  const early = validator(() => [encoder.encode("too soon")]);
  violation(() => call(early, makeEnviron("/")), /before calling startResponse/);
  const never = validator(() => []);
  violation(() => call(never, makeEnviron("/")), /before calling startResponse/);
  // a lazy body may call startResponse when it is first pulled
  const lazy = validator((_e, start) => ({
    *[Symbol.iterator]() {
      start("200 OK", TEXT);
      yield encoder.encode("lazy");
    },
  }));
  assert.equal(call(lazy, makeEnviron("/")).text, "lazy");
});

Deno.test("validator() checks that the body matches Content-Length, except for HEAD", () => {
  const short = validator(ok([...TEXT, ["Content-Length", "5"]], [encoder.encode("abc")]));
  violation(() => call(short, makeEnviron("/")), /3 bytes but Content-Length says 5/);
  const head = validator(ok([...TEXT, ["Content-Length", "5"]], []));
  assert.equal(call(head, makeEnviron("/", { method: "HEAD" })).code, 200);
  const written = validator((_e, start) => {
    const write = start("200 OK", [...TEXT, ["Content-Length", "6"]]);
    write(encoder.encode("abc"));
    return [encoder.encode("def")];
  });
  assert.equal(call(written, makeEnviron("/")).text, "abcdef");
});

Deno.test("validator() checks write() arguments", () => {
  const app = validator((_e, start) => {
    const write = start("200 OK", TEXT);
    write("text" as unknown as Uint8Array);
    return [];
  });
  violation(() => app(makeEnviron("/"), noop), /write\(\) needs a Uint8Array/);
});

Deno.test("validator() checks the server iterates once, not after close(), and closes", () => {
  const app = validator(ok());
  const body = app(makeEnviron("/"), noop);
  violation(() => app.assertClosed(), /did not call close\(\) on the body of: GET \//);
  [...body];
  violation(() => [...body], /iterated over a body twice/);
  body.close?.();
  body.close?.(); // a second close is harmless
  app.assertClosed();
  const closedFirst = app(makeEnviron("/"), noop);
  closedFirst.close?.();
  violation(() => [...closedFirst], /after calling close\(\)/);
  const mid = app(makeEnviron("/"), noop);
  const iterator = mid[Symbol.iterator]();
  mid.close?.();
  violation(() => iterator.next(), /after calling close\(\)/);
});

Deno.test("validator() forwards close() to the application's body exactly once", () => {
  let closed = 0;
  const app = validator((_e, start) => {
    start("200 OK", TEXT);
    return Object.assign([encoder.encode("x")], { close: () => void closed++ });
  });
  const body = app(makeEnviron("/"), noop);
  body.close?.();
  body.close?.();
  assert.equal(closed, 1);
});

Deno.test("validator() checks wsgi.input and wsgi.errors calls on both sides", () => {
  const reads = validator((environ, start) => {
    environ["wsgi.input"].read("5" as unknown as number);
    start("200 OK", TEXT);
    return [];
  });
  violation(() => reads(makeEnviron("/"), noop), /wsgi.input.read\(\) takes an integer/);

  const badServer = makeEnviron("/");
  badServer["wsgi.input"].read = () => "text" as unknown as Uint8Array;
  const reader = validator((environ, start) => {
    environ["wsgi.input"].read();
    start("200 OK", TEXT);
    return [];
  });
  violation(() => reader(badServer, noop), /returned string, not a Uint8Array/);

  const writes = validator((environ, start) => {
    environ["wsgi.errors"].write(42 as unknown as string);
    start("200 OK", TEXT);
    return [];
  });
  violation(() => writes(makeEnviron("/"), noop), /wsgi.errors.write\(\) takes a string/);

  const lines: string[] = [];
  const environ = makeEnviron("/");
  environ["wsgi.errors"] = {
    write: (s) => void lines.push(s),
    writelines: (l) => void lines.push(...l),
    flush() {},
  };
  const logs = validator((env, start) => {
    env["wsgi.errors"].write("one\n");
    env["wsgi.errors"].writelines(["two\n"]);
    env["wsgi.errors"].flush();
    start("200 OK", TEXT);
    return [];
  });
  call(logs, environ);
  assert.deepEqual(lines, ["one\n", "two\n"]);
});
