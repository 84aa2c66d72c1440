// The demo's HTML pages through app.fetch(): the login form with its CSRF token, a signed
// session cookie (HttpOnly, SameSite=Lax), the notes page rendered from the template with a CSP
// nonce, a note added through the form, a cross-site post refused, and logging out. Then the
// live feed: a note added through the API reaches an open event stream.
import assert from "node:assert/strict";
import { createDemo, type Demo } from "../../examples/app.ts";
import { openStore } from "../../examples/notes_store.ts";
import { createTopics } from "../../mod.ts";
import { eventReader } from "./_events.ts";

const SECRET = "a-test-secret-of-at-least-32-characters";

async function testDemo(): Promise<Demo> {
  return createDemo({
    store: await openStore(),
    topics: createTopics(),
    sessionSecret: SECRET,
    password: "s3cret",
  });
}

/** A browser's cookie jar over app.fetch(): sends what it was given, as a same-origin page. */
function browser(demo: Demo) {
  const jar = new Map<string, string>();
  return {
    jar,
    async fetch(path: string, init: RequestInit = {}): Promise<Response> {
      const headers = new Headers(init.headers);
      if (!headers.has("sec-fetch-site")) headers.set("sec-fetch-site", "same-origin");
      headers.set("cookie", [...jar].map(([name, value]) => `${name}=${value}`).join("; "));
      const res = await demo.app.fetch(
        new Request(`http://localhost${path}`, { ...init, headers, redirect: "manual" }),
      );
      for (const line of res.headers.getSetCookie()) {
        const [pair] = line.split(";");
        const [name, value] = [pair.slice(0, pair.indexOf("=")), pair.slice(pair.indexOf("=") + 1)];
        if (value === "" || /max-age=0/i.test(line)) jar.delete(name);
        else jar.set(name, value);
      }
      return res;
    },
  };
}

function form(fields: Record<string, string>): RequestInit {
  return { method: "POST", body: new URLSearchParams(fields) };
}

Deno.test("the demo's pages: login form, session cookie, notes page, a note, logout", async () => {
  const demo = await testDemo();
  try {
    const user = browser(demo);
    // 1. Signed out, the notes page sends to the login form, which carries a CSRF token.
    const away = await user.fetch("/notes");
    assert.equal(away.status, 303);
    assert.equal(away.headers.get("location"), "/login");
    const login = await user.fetch("/login");
    assert.equal(login.status, 200);
    const token = (await login.text()).match(/name="_csrf" value="([^"]+)"/)?.[1];
    assert.ok(token !== undefined && token === user.jar.get("csrf_token"));

    // 2. A wrong password: 401 and the form again, no session.
    const wrong = await user.fetch(
      "/login",
      form({ _csrf: token, username: "demo", password: "x" }),
    );
    assert.equal(wrong.status, 401);
    assert.match(await wrong.text(), /Wrong name or password/);
    assert.equal(user.jar.has("notes_session"), false);

    // 3. The right one: a signed session cookie, HttpOnly and SameSite=Lax.
    const ok = await user.fetch(
      "/login",
      form({ _csrf: token, username: "demo", password: "s3cret" }),
    );
    assert.equal(ok.status, 303);
    assert.equal(ok.headers.get("location"), "/notes");
    const cookie = ok.headers.getSetCookie().find((line) => line.startsWith("notes_session="));
    assert.ok(cookie !== undefined);
    assert.match(cookie, /; HttpOnly/i);
    assert.match(cookie, /; SameSite=Lax/i);
    assert.match(cookie, /; Path=\//i);

    // 4. The notes page, from the template, with security headers and the script's nonce.
    const page = await user.fetch("/notes");
    assert.equal(page.status, 200);
    const html = await page.text();
    assert.match(html, /Signed in as <strong id="user">demo<\/strong>/);
    assert.match(html, /Welcome to the demo/);
    const csp = page.headers.get("content-security-policy") ?? "";
    const nonce = csp.match(/'nonce-([^']+)'/)?.[1];
    assert.ok(nonce !== undefined, csp);
    assert.ok(html.includes(`<script src="/static/notes.js" nonce="${nonce}" defer></script>`));
    assert.equal(page.headers.get("x-content-type-options"), "nosniff");

    // 5. A note through the form, escaped on the page; an empty one is a 400 problem.
    const added = await user.fetch("/notes", form({ _csrf: token, text: "<b>ship it</b>" }));
    assert.equal(added.status, 303);
    const after = await (await user.fetch("/notes")).text();
    assert.match(after, /<strong>demo<\/strong>: &lt;b&gt;ship it&lt;\/b&gt;/);
    const empty = await user.fetch("/notes", form({ _csrf: token, text: "  " }));
    assert.equal(empty.status, 400);
    assert.equal(empty.headers.get("content-type"), "application/problem+json");
    await empty.body?.cancel();
    // The API sees the page's note too.
    const api = await demo.app.fetch(new Request("http://localhost/api/notes?author=demo"));
    assert.deepEqual(await api.json(), [{ id: 2, author: "demo", text: "<b>ship it</b>" }]);

    // 6. Another site's form post is refused before the handler runs.
    const forged = await user.fetch("/notes", {
      ...form({ text: "forged" }),
      headers: { "sec-fetch-site": "cross-site", origin: "https://evil.example" },
    });
    assert.equal(forged.status, 403);
    await forged.body?.cancel();
    assert.equal(demo.store.list({ limit: 10 }).length, 2);

    // 7. Logging out ends the session.
    const out = await user.fetch("/logout", form({ _csrf: token }));
    assert.equal(out.status, 303);
    assert.equal(user.jar.has("notes_session"), false);
    assert.equal((await user.fetch("/notes")).status, 303);
  } finally {
    await demo.close();
  }
});

Deno.test("the demo's session cookie is refused when tampered with", async () => {
  const demo = await testDemo();
  try {
    const user = browser(demo);
    const token = (await (await user.fetch("/login")).text()).match(/value="([^"]+)"/)![1];
    await user.fetch("/login", form({ _csrf: token, username: "demo", password: "s3cret" }));
    const value = user.jar.get("notes_session")!;
    user.jar.set("notes_session", value.slice(0, -2) + (value.endsWith("A") ? "BB" : "AA"));
    const page = await user.fetch("/notes");
    assert.equal(page.status, 303);
    await page.body?.cancel();
  } finally {
    await demo.close();
  }
});

Deno.test("the demo's live feed: a note added through the API reaches an open event stream", async () => {
  const demo = await testDemo();
  try {
    const feed = await demo.app.fetch(new Request("http://localhost/api/feed"));
    assert.equal(feed.status, 200);
    assert.equal(feed.headers.get("content-type"), "text/event-stream");
    const events = eventReader(feed.body!);
    assert.deepEqual(await events.next("the ready event"), { event: "ready", data: "notes" });
    const created = await demo.app.fetch(
      new Request("http://localhost/api/me/notes", {
        method: "POST",
        headers: { authorization: "Bearer demo-token" },
        body: "live note",
      }),
    );
    assert.equal(created.status, 201);
    const note = await created.json();
    const message = await events.next("the note's event");
    assert.equal(message.event, "message");
    assert.deepEqual(JSON.parse(message.data), note);
    await events.cancel();
  } finally {
    await demo.close();
  }
});

Deno.test("the demo refuses an unknown NOTES_TOPICS at start, naming it", async () => {
  const { demoFromEnv } = await import("../../examples/app.ts");
  const env: Record<string, string> = { NOTES_TOPICS: "carrier-pigeon" };
  await assert.rejects(demoFromEnv((name) => env[name]), {
    name: "TypeError",
    message: 'Cannot start the demo: NOTES_TOPICS is "carrier-pigeon", not memory or broadcast',
  });
});
