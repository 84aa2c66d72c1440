// Headless Chromium, driven over the DevTools protocol with Deno's own WebSocket (no driver
// package): a page served from 127.0.0.1 renders every XSS corpus payload in text, quoted
// attributes, RCDATA and a URL path; no dialog may open, no script may run, no element, event
// handler or request may appear beyond the template's own. Chromium comes from Debian
// (`apt-get install chromium`; tests/_browser.ts says what happens without it). Chromium, every
// DevTools reply and every page event are bounded in time.
import assert from "node:assert/strict";
import { compileTemplate } from "../../lib/template/mod.ts";
import { browserTest } from "../_browser.ts";
import { spawnChild } from "../_child.ts";
import { withDeadline } from "../_deadline.ts";
import { readPayloads } from "./_xss_payloads.ts";

const DEADLINE_MS = 60_000;
const REPLY_MS = 15_000;

const PAGE = `<!doctype html>
<html>
<head><meta charset="utf-8"><title>XSS corpus</title></head>
<body>
{{#each payloads as payload}}
<section>
<p class="text">{{payload}}</p>
<p class="double" title="{{payload}}">d</p>
<p class="single" title='{{payload}}'>s</p>
<textarea>{{payload}}</textarea>
<a class="link" href="/p/{{payload}}">l</a>
</section>
{{/each}}
</body>
</html>
`;

const CONTROL = `<!doctype html><img src="/x.png" onerror="alert(1)"><script>alert(2)</script>`;

// Runs in the page before anything else: every way to open a dialog is recorded.
const HOOKS = `
window.__weft = { calls: [] };
for (const name of ["alert", "confirm", "prompt", "print", "open", "eval"]) {
  const original = window[name];
  window[name] = function (...args) {
    window.__weft.calls.push(name + "(" + args.map(String).join(",") + ")");
    return name === "eval" ? original.apply(this, args) : undefined;
  };
}
addEventListener("click", (event) => event.preventDefault(), true);
`;

// Runs after load: pokes every element the way users and payloads would, then reports.
const PROBE = `(async () => {
  const payloads = PAYLOADS;
  for (const element of document.querySelectorAll("*")) {
    for (const type of ["mouseover", "mouseenter", "focus", "click", "error", "load"]) {
      element.dispatchEvent(new Event(type, { bubbles: true }));
    }
    if (typeof element.focus === "function") element.focus();
  }
  await new Promise((resolve) => setTimeout(resolve, 300));
  const handlers = [];
  const urls = [];
  for (const element of document.querySelectorAll("*")) {
    for (const attr of element.attributes) {
      if (/^on/i.test(attr.name)) handlers.push(element.tagName + " " + attr.name);
      const url = /^(href|src|action|formaction|data|poster|srcset|xlink:href)$/i.test(attr.name);
      if (url && /^\\s*(javascript|data|vbscript):/i.test(attr.value)) urls.push(attr.value);
    }
  }
  const sections = [...document.querySelectorAll("section")];
  const mismatches = [];
  sections.forEach((section, i) => {
    const expected = payloads[i];
    const texts = [
      section.querySelector(".text")?.textContent,
      section.querySelector(".double")?.getAttribute("title"),
      section.querySelector(".single")?.getAttribute("title"),
      section.querySelector("textarea")?.value,
    ];
    if (texts.some((t) => t !== expected) || section.children.length !== 5) mismatches.push(i);
  });
  return JSON.stringify({
    calls: window.__weft.calls,
    scripts: document.scripts.length,
    elements: document.querySelectorAll("*").length,
    sections: sections.length,
    handlers,
    urls,
    mismatches,
  });
})()`;

class Cdp {
  #socket: WebSocket;
  #next = 1;
  #pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  readonly events: { method: string; params: Record<string, unknown>; sessionId?: string }[] = [];
  onEvent: (event: { method: string; params: Record<string, unknown> }) => void = () => {};

  private constructor(socket: WebSocket) {
    this.#socket = socket;
    socket.onmessage = (message) => {
      const data = JSON.parse(message.data);
      if (data.id !== undefined) {
        const pending = this.#pending.get(data.id);
        this.#pending.delete(data.id);
        if (data.error) pending?.reject(new Error(`${data.error.message}`));
        else pending?.resolve(data.result);
      } else {
        this.events.push(data);
        this.onEvent(data);
      }
    };
    // Chromium gone (its deadline passed, or it crashed): no reply will come.
    socket.onclose = () => {
      for (const pending of this.#pending.values()) {
        pending.reject(new Error("The DevTools connection closed"));
      }
      this.#pending.clear();
    };
  }

  static async connect(url: string): Promise<Cdp> {
    const socket = new WebSocket(url);
    await withDeadline(
      new Promise((resolve, reject) => {
        socket.onopen = resolve;
        socket.onerror = () => reject(new Error(`Cannot connect to ${url}`));
      }),
      REPLY_MS,
      `the DevTools connection to ${url}`,
      { onTimeout: () => socket.close() },
    );
    return new Cdp(socket);
  }

  send(
    method: string,
    params: Record<string, unknown> = {},
    sessionId?: string,
  ): Promise<Record<string, unknown>> {
    const id = this.#next++;
    this.#socket.send(JSON.stringify({ id, method, params, sessionId }));
    const reply = new Promise<Record<string, unknown>>((resolve, reject) => {
      this.#pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
    });
    return withDeadline(reply, REPLY_MS, `the DevTools reply to ${method}`, {
      onTimeout: () => this.#pending.delete(id),
    });
  }

  waitFor(method: string): Promise<void> {
    if (this.events.some((e) => e.method === method)) return Promise.resolve();
    return withDeadline(
      new Promise((resolve) => {
        const previous = this.onEvent;
        this.onEvent = (event) => {
          previous(event);
          if (event.method === method) resolve();
        };
      }),
      REPLY_MS,
      `the DevTools event ${method}`,
    );
  }

  close(): void {
    this.#socket.close();
  }
}

async function xssCorpusInChromium(executable: string): Promise<void> {
  const payloads = readPayloads().map((p) => p.payload);
  const code = compileTemplate(PAGE, { file: "browser_page.html" });
  const { render } = await import(
    `data:application/typescript;base64,${
      btoa(String.fromCharCode(...new TextEncoder().encode(code)))
    }`
  );
  const html: string = render({ payloads });

  const stop = new AbortController();
  const server = Deno.serve({
    hostname: "127.0.0.1",
    port: 0,
    signal: stop.signal,
    onListen: () => {},
  }, (request) => {
    // The control page runs script on purpose, to show that the probe would notice.
    const body = new URL(request.url).pathname === "/control" ? CONTROL : html;
    return new Response(body, { headers: { "content-type": "text/html; charset=utf-8" } });
  });
  const origin = `http://127.0.0.1:${server.addr.port}`;
  const profile = await Deno.makeTempDir({ prefix: "weft_chromium_" });
  const chromium = spawnChild(executable, {
    what: "Chromium",
    args: [
      "--no-sandbox",
      "--headless",
      "--disable-gpu",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--disable-extensions",
      "--disable-default-apps",
      "--no-first-run",
      "--no-default-browser-check",
      "--mute-audio",
      // Nothing but 127.0.0.1 resolves: an injected <script src=http://…> cannot leave the box.
      "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",
      "--remote-debugging-port=0",
      "--remote-debugging-address=127.0.0.1",
      `--user-data-dir=${profile}`,
      "about:blank",
    ],
    stdout: "null",
    stderr: "piped",
    deadlineMs: DEADLINE_MS,
  });
  let cdp: Cdp | undefined;
  try {
    // 1. The DevTools endpoint, from Chromium's stderr.
    const [, endpoint] = await chromium.waitForOutput(
      "stderr",
      /DevTools listening on (ws:\/\/\S+)/,
      {
        ms: 30_000,
        what: "Chromium to print its DevTools endpoint",
      },
    );

    // 2. A page with the hooks installed before its own content.
    cdp = await Cdp.connect(endpoint);
    const { targetId } = await cdp.send("Target.createTarget", { url: "about:blank" });
    const { sessionId } = await cdp.send("Target.attachToTarget", { targetId, flatten: true });
    const session = sessionId as string;
    const dialogs: string[] = [];
    const requests: string[] = [];
    cdp.onEvent = (event) => {
      if (event.method === "Page.javascriptDialogOpening") {
        dialogs.push(String(event.params.message));
        cdp!.send("Page.handleJavaScriptDialog", { accept: false }, session).catch(() => {});
      }
      if (event.method === "Network.requestWillBeSent") {
        requests.push(String((event.params.request as { url: string }).url));
      }
    };
    await cdp.send("Page.enable", {}, session);
    await cdp.send("Network.enable", {}, session);
    await cdp.send("Runtime.enable", {}, session);
    await cdp.send("Page.addScriptToEvaluateOnNewDocument", { source: HOOKS }, session);
    const loaded = cdp.waitFor("Page.loadEventFired");
    await cdp.send("Page.navigate", { url: `${origin}/` }, session);
    await loaded;

    // 3. Poke everything, then read the report.
    const result = await cdp.send("Runtime.evaluate", {
      expression: PROBE.replace("PAYLOADS", JSON.stringify(payloads)),
      awaitPromise: true,
      returnByValue: true,
    }, session);
    const report = JSON.parse((result.result as { value: string }).value);
    assert.deepEqual(dialogs, [], "no dialog opened");
    assert.deepEqual(report.calls, [], "no alert/confirm/prompt/print/open/eval was called");
    assert.equal(report.scripts, 0, "no <script> element exists");
    assert.deepEqual(report.handlers, [], "no on* attribute exists");
    assert.deepEqual(report.urls, [], "no javascript:/data: URL attribute exists");
    assert.equal(report.sections, payloads.length);
    assert.deepEqual(report.mismatches, [], "every payload reads back unchanged");
    // html, head, meta, title, body + 6 elements per payload.
    assert.equal(report.elements, 5 + payloads.length * 6);
    const foreign = requests.filter((url) => !url.startsWith(`${origin}/`));
    assert.deepEqual(foreign, [], "no request left the page's origin");
    assert.deepEqual(
      requests.filter((url) => url !== `${origin}/` && !url.endsWith("/favicon.ico")),
      [],
    );

    // 4. The control: the same probe does see script that runs.
    const controlLoaded = cdp.waitFor("Page.loadEventFired");
    cdp.events.length = 0;
    await cdp.send("Page.navigate", { url: `${origin}/control` }, session);
    await controlLoaded;
    const control = await cdp.send("Runtime.evaluate", {
      expression: PROBE.replace("PAYLOADS", "[]"),
      awaitPromise: true,
      returnByValue: true,
    }, session);
    const controlReport = JSON.parse((control.result as { value: string }).value);
    // (The probe fires "error" events too, so the onerror handler may run more than once.)
    assert.deepEqual([...new Set(controlReport.calls)].sort(), ["alert(1)", "alert(2)"]);
    await cdp.send("Browser.close").catch(() => {});
  } finally {
    cdp?.close();
    try {
      // Browser.close lets Chromium end its own child processes: signal it only if it lingers.
      await chromium.stop({ waitOnly: true });
    } finally {
      stop.abort();
      await withDeadline(server.finished, 10_000, "the page server to close");
      await Deno.remove(profile, { recursive: true }).catch(() => {});
    }
  }
}

browserTest({
  name: "headless Chromium: the XSS corpus page opens no dialog and runs no script",
  sanitizeResources: false,
  fn: xssCorpusInChromium,
});
