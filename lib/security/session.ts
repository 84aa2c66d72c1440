/**
 * `session()`: a typed JSON value per visitor, kept in a signed (optionally AES-GCM-encrypted)
 * cookie, or in a server-side {@linkcode SessionStore} with only a signed id in the cookie.
 *
 * @module
 */
import type { Context } from "../context.ts";
import type { Middleware } from "../types.ts";

/** The variable {@linkcode session} sets: the request's session. */
export interface SessionVariables<T = unknown> {
  /** The session; read it with {@linkcode getSession}. */
  session: Session<T>;
}
import {
  type CookieOptions,
  deleteCookie,
  getCookie,
  MAX_COOKIE_SIZE,
  setCookie,
} from "./cookie.ts";
import { secretList, type Secrets, sign, unsign } from "./signed_cookie.ts";
import { fromBase64Url, randomToken, toBase64Url, utf8 } from "./_crypto.ts";

/** The key under which `session()` stores the {@linkcode Session} (see {@linkcode getSession}). */
export const SESSION_KEY = "session";

/**
 * Where server-side sessions live: JSON text by session id, for `maxAge` seconds. A Redis
 * store is `GET id`, `SET id data EX maxAge` and `DEL id`.
 */
export interface SessionStore {
  /** The session's JSON text, or `undefined` when it does not exist or expired. */
  get(id: string): Promise<string | undefined> | string | undefined;
  /** Stores the session's JSON text for `maxAge` seconds. */
  set(id: string, data: string, maxAge: number): Promise<void> | void;
  /**
   * Stores the session's JSON text for `maxAge` seconds only if the session still exists
   * (Redis: `SET … EX … XX`); returns whether it did. session() writes a session it loaded
   * with it, so that a request that ends after a logout cannot bring the session back (its
   * response then sets no cookie). Without it, session() reads the session again just before
   * `set()`, which narrows that window but does not close it.
   */
  update?(id: string, data: string, maxAge: number): Promise<boolean> | boolean;
  /** Removes the session. */
  delete(id: string): Promise<void> | void;
}

/**
 * A {@linkcode SessionStore} in this process's memory, for development, tests and single
 * instances: sessions are lost on restart and not shared between processes. Expired entries
 * are dropped when read, and the oldest go first once `maxEntries` is reached.
 *
 * @example
 * ```ts
 * import { MemoryStore } from "./session.ts";
 * import assert from "node:assert/strict";
 *
 * const store = new MemoryStore();
 * store.set("id", '{"n":1}', 60);
 * assert.equal(store.get("id"), '{"n":1}');
 * store.delete("id");
 * assert.equal(store.get("id"), undefined);
 * ```
 */
export class MemoryStore implements SessionStore {
  #entries = new Map<string, { data: string; expires: number }>();
  #maxEntries: number;

  /**
   * Creates an empty store.
   *
   * @param options `maxEntries`: the most sessions kept (default 10 000).
   */
  constructor(options: { maxEntries?: number } = {}) {
    this.#maxEntries = options.maxEntries ?? 10_000;
  }

  /** Reads a session's JSON text. */
  get(id: string): string | undefined {
    const entry = this.#entries.get(id);
    if (entry === undefined) return undefined;
    if (entry.expires <= Date.now()) {
      this.#entries.delete(id);
      return undefined;
    }
    return entry.data;
  }

  /** Stores a session's JSON text for `maxAge` seconds. */
  set(id: string, data: string, maxAge: number): void {
    this.#entries.delete(id);
    while (this.#entries.size >= this.#maxEntries) {
      this.#entries.delete(this.#entries.keys().next().value!);
    }
    this.#entries.set(id, { data, expires: Date.now() + maxAge * 1000 });
  }

  /** Stores a session's JSON text for `maxAge` seconds if it still exists; returns whether. */
  update(id: string, data: string, maxAge: number): boolean {
    if (this.get(id) === undefined) return false;
    this.set(id, data, maxAge);
    return true;
  }

  /** Removes a session. */
  delete(id: string): void {
    this.#entries.delete(id);
  }
}

/** Options of {@linkcode session}. */
export interface SessionOptions {
  /** The signing secret(s), at least 32 characters each; the first signs, all verify. */
  secret: Secrets;
  /**
   * The cookie's name and attributes.
   *
   * @default {{ name: "session", path: "/", httpOnly: true, sameSite: "Lax" }}
   */
  cookie?: CookieOptions & { name?: string };
  /**
   * How long a session lives after it was last written, in seconds (the cookie's `Max-Age`;
   * also signed into cookie sessions, so an old cookie replayed later is refused).
   *
   * @default {86400}
   */
  maxAge?: number;
  /**
   * Encrypts cookie sessions with AES-256-GCM (the key derived from each secret with HKDF),
   * so the client cannot read them either.
   *
   * @default {false}
   */
  encrypt?: boolean;
  /** Keeps sessions on the server; the cookie then holds a signed random id only. */
  store?: SessionStore;
}

/** Thrown by {@linkcode Session.set} when a cookie session would be over 4096 bytes. */
export class SessionTooLargeError extends RangeError {
  /** The bytes the cookie's name and value would have taken. */
  readonly size: number;

  /**
   * Creates the error.
   *
   * @param size The size the cookie would have had.
   */
  constructor(size: number) {
    super(
      `Cannot store the session: its cookie would be ${size} bytes, over the ${MAX_COOKIE_SIZE} ` +
        "a browser keeps (RFC 6265bis §5.7); keep less in it or give session() a store",
    );
    this.name = "SessionTooLargeError";
    this.size = size;
  }
}

/** The session of one request: read it, replace it, or clear it. */
export class Session<T> {
  #value: T | undefined;
  #payload: string | undefined;
  #state: "clean" | "set" | "cleared" | "regenerated" = "clean";
  #measure: (payload: string) => number;
  #maxAge: number;

  /** @internal Created by `session()`. */
  constructor(value: T | undefined, maxAge: number, measure: (payload: string) => number) {
    this.#value = value;
    this.#maxAge = maxAge;
    this.#measure = measure;
  }

  /** The session's value; `undefined` for a new visitor or after {@linkcode Session.clear}. */
  get value(): T | undefined {
    return this.#value;
  }

  /**
   * Replaces the session's value; the response carries the new cookie.
   *
   * @param value A JSON-serialisable value.
   * @throws {SessionTooLargeError} When a cookie session would be over 4096 bytes.
   * @throws {TypeError} When the value cannot be serialised as JSON.
   */
  set(value: T): void {
    const json = JSON.stringify(value);
    if (json === undefined) throw new TypeError("Cannot store the session: the value is not JSON");
    const payload = JSON.stringify({ v: value, e: Math.floor(Date.now() / 1000) + this.#maxAge });
    const size = this.#measure(payload);
    if (size > MAX_COOKIE_SIZE) throw new SessionTooLargeError(size);
    this.#value = JSON.parse(json);
    this.#payload = payload;
    if (this.#state !== "regenerated") this.#state = "set";
  }

  /** Ends the session: its cookie is deleted (and its stored data, with a store). */
  clear(): void {
    this.#value = undefined;
    this.#payload = undefined;
    this.#state = "cleared";
  }

  /**
   * Keeps the value under a new session id (with a store) and a new cookie: call it after a
   * login so that an id known before the login is worthless after it.
   */
  regenerate(): void {
    if (this.#value !== undefined && this.#payload === undefined) this.set(this.#value);
    this.#state = "regenerated";
  }

  /** @internal What `session()` writes after the handler ran. */
  get pending(): { state: string; payload: string | undefined } {
    return { state: this.#state, payload: this.#payload };
  }
}

/**
 * Reads the session that `session()` attached to the request.
 *
 * @param ctx The request context.
 * @returns The session; its type parameter is the value's type.
 * @throws {TypeError} When no `session()` middleware ran for this request.
 *
 * @example
 * ```ts
 * import { chain, get, router } from "../../mod.ts";
 * import { getSession, session } from "./session.ts";
 * import assert from "node:assert/strict";
 *
 * const app = chain([session({ secret: "a-secret-of-at-least-thirty-two-characters" })], router([
 *   get("/visit", (ctx) => {
 *     const visits = getSession<{ visits: number }>(ctx);
 *     visits.set({ visits: (visits.value?.visits ?? 0) + 1 });
 *     return ctx.json(visits.value);
 *   }),
 * ]));
 * const first = await app.fetch(new Request("http://localhost/visit"));
 * const cookie = first.headers.getSetCookie()[0].split(";")[0];
 * const second = await app.fetch(new Request("http://localhost/visit", { headers: { cookie } }));
 * assert.deepEqual(await second.json(), { visits: 2 });
 * ```
 */
export function getSession<T>(ctx: { readonly var: SessionVariables | object }): Session<T> {
  const current = (ctx.var as Partial<SessionVariables<T>>)[SESSION_KEY];
  if (current === undefined) {
    throw new TypeError("Cannot read the session: no session() middleware ran for this request");
  }
  return current;
}

const aesKeys = /* @__PURE__ */ new Map<string, Promise<CryptoKey>>();

// AES-256-GCM key for a secret: HKDF-SHA-256 (RFC 5869) with a fixed info, so the signing
// and the encryption never use the same key.
function aesKey(secret: string): Promise<CryptoKey> {
  let key = aesKeys.get(secret);
  if (key === undefined) {
    if (aesKeys.size >= 64) aesKeys.clear();
    key = crypto.subtle.importKey("raw", utf8(secret), "HKDF", false, ["deriveKey"]).then((base) =>
      crypto.subtle.deriveKey(
        { name: "HKDF", hash: "SHA-256", salt: new Uint8Array(0), info: utf8("weft session") },
        base,
        { name: "AES-GCM", length: 256 },
        false,
        ["encrypt", "decrypt"],
      )
    );
    aesKeys.set(secret, key);
  }
  return key;
}

const IV_BYTES = 12;
const TAG_BYTES = 16;
const SIGNED_SUFFIX = 44; // "." and a 43-character signature

async function seal(name: string, payload: string, secret: string): Promise<string> {
  const iv = crypto.getRandomValues(new Uint8Array(IV_BYTES));
  const sealed = new Uint8Array(
    await crypto.subtle.encrypt(
      { name: "AES-GCM", iv, additionalData: utf8(name) },
      await aesKey(secret),
      utf8(payload),
    ),
  );
  const out = new Uint8Array(IV_BYTES + sealed.length);
  out.set(iv);
  out.set(sealed, IV_BYTES);
  return toBase64Url(out);
}

async function open(
  name: string,
  data: Uint8Array<ArrayBuffer>,
  secrets: readonly string[],
): Promise<string | undefined> {
  if (data.length < IV_BYTES + TAG_BYTES) return undefined;
  for (const secret of secrets) {
    try {
      const plain = await crypto.subtle.decrypt(
        { name: "AES-GCM", iv: data.subarray(0, IV_BYTES), additionalData: utf8(name) },
        await aesKey(secret),
        data.subarray(IV_BYTES),
      );
      return new TextDecoder().decode(plain);
    } catch {
      // another secret may have encrypted it
    }
  }
  return undefined;
}

function base64UrlLength(bytes: number): number {
  return Math.ceil(bytes * 4 / 3);
}

// The session value from a verified payload `{ v, e }`, or undefined when it expired.
function fromPayload(text: string): unknown {
  try {
    const payload = JSON.parse(text) as { v?: unknown; e?: unknown };
    if (typeof payload?.e !== "number" || payload.e <= Date.now() / 1000) return undefined;
    return payload.v;
  } catch {
    return undefined;
  }
}

/**
 * Gives every request a {@linkcode Session} (read it with {@linkcode getSession}) holding a
 * typed JSON value. Without a store the value lives in the cookie itself: signed with
 * HMAC-SHA-256 (and encrypted with AES-256-GCM when `encrypt` is set), with its expiry signed
 * in, and at most 4096 bytes (RFC 6265bis §5.7): `set()` throws a
 * {@linkcode SessionTooLargeError} rather than let the browser drop the cookie. With a store
 * the cookie holds a signed random id. A missing, tampered, expired or undecryptable cookie
 * is ignored: the request gets a new, empty session. The cookie is written only when the
 * session changed.
 *
 * @param options The secret(s), the cookie's attributes, `maxAge`, `encrypt` and `store`.
 * @returns The middleware.
 * @throws {TypeError} When a secret is shorter than 32 characters or an option is invalid.
 *
 * @example Server-side sessions in memory
 * ```ts
 * import { chain, get, router } from "../../mod.ts";
 * import { getSession, MemoryStore, session } from "./session.ts";
 * import assert from "node:assert/strict";
 *
 * const app = chain([
 *   session({ secret: "a-secret-of-at-least-thirty-two-characters", store: new MemoryStore() }),
 * ], router([
 *   get("/login", (ctx) => {
 *     getSession<{ user: string }>(ctx).set({ user: "ada" });
 *     return ctx.json({ ok: true });
 *   }),
 *   get("/me", (ctx) => ctx.json(getSession<{ user: string }>(ctx).value ?? null)),
 * ]));
 * const login = await app.fetch(new Request("http://localhost/login"));
 * const cookie = login.headers.getSetCookie()[0].split(";")[0];
 * const me = await app.fetch(new Request("http://localhost/me", { headers: { cookie } }));
 * assert.deepEqual(await me.json(), { user: "ada" });
 * ```
 */
export function session(options: SessionOptions): Middleware<SessionVariables> {
  const secrets = secretList(options?.secret, "create session()");
  const { name = "session", ...attributes } = options.cookie ?? {};
  const cookie: CookieOptions = { path: "/", httpOnly: true, sameSite: "Lax", ...attributes };
  const maxAge = options.maxAge ?? 86_400;
  if (!Number.isInteger(maxAge) || maxAge <= 0) {
    throw new TypeError(
      "Cannot create session(): maxAge must be a positive whole number of seconds",
    );
  }
  const cookieOptions: CookieOptions = { ...cookie, maxAge };
  // Checks the name and the attributes once, here, rather than on the first write.
  setCookieCheck(name, cookieOptions);
  const store = options.store;
  const encrypt = options.encrypt === true;

  // The bytes of name and value the cookie would take for a payload (cookie sessions).
  const measure = store !== undefined ? () => 0 : (payload: string) => {
    const bytes = utf8(payload).length + (encrypt ? IV_BYTES + TAG_BYTES : 0);
    return name.length + base64UrlLength(bytes) + SIGNED_SUFFIX; // what a browser counts
  };

  async function load(ctx: Context): Promise<{ value: unknown; id: string | undefined }> {
    const raw = getCookie(ctx, name);
    if (raw === undefined) return { value: undefined, id: undefined };
    const data = await unsign(name, raw, secrets);
    if (data === false) return { value: undefined, id: undefined };
    if (store !== undefined) {
      const text = await store.get(data);
      return text === undefined ? { value: undefined, id: undefined } : {
        value: fromPayload(text),
        id: data,
      };
    }
    const bytes = fromBase64Url(data);
    if (bytes === undefined) return { value: undefined, id: undefined };
    const text = encrypt ? await open(name, bytes, secrets) : new TextDecoder().decode(bytes);
    return { value: text === undefined ? undefined : fromPayload(text), id: undefined };
  }

  return async function session(ctx, next) {
    const loaded = await load(ctx);
    const current = new Session<unknown>(loaded.value, maxAge, measure);
    ctx.set(SESSION_KEY, current);
    const res = await next();
    const { state, payload } = current.pending;
    if (state === "clean") return res;
    if (state === "cleared" || payload === undefined) {
      if (store !== undefined && loaded.id !== undefined) await store.delete(loaded.id);
      if (loaded.value !== undefined || getCookie(ctx, name) !== undefined) {
        deleteCookie(ctx, name, cookie);
      }
      return res;
    }
    if (store !== undefined) {
      let id = loaded.id;
      if (id !== undefined && state !== "regenerated") {
        // The session this request loaded: written only if it still exists, so that a logout
        // (or an expiry, or a regenerate()) while the request ran is not undone. The cookie is
        // then left as it is: the id it names is gone, so it reads as no session, and deleting
        // it would drop the cookie a login answered meanwhile, the client's new session.
        if (await update(store, id, payload, maxAge)) {
          setCookie(ctx, name, await sign(name, id, secrets), cookieOptions);
        }
        return res;
      }
      if (id !== undefined) await store.delete(id);
      id = randomToken(24);
      await store.set(id, payload, maxAge);
      setCookie(ctx, name, await sign(name, id, secrets), cookieOptions);
      return res;
    }
    const data = encrypt ? await seal(name, payload, secrets[0]) : toBase64Url(utf8(payload));
    setCookie(ctx, name, await sign(name, data, secrets), cookieOptions);
    return res;
  };
}

// Writes a session only if it still exists: with the store's update(), or else a get() just
// before the set(), which narrows the window a logout could fall in without closing it.
async function update(
  store: SessionStore,
  id: string,
  data: string,
  maxAge: number,
): Promise<boolean> {
  if (store.update !== undefined) return await store.update(id, data, maxAge);
  if (await store.get(id) === undefined) return false;
  await store.set(id, data, maxAge);
  return true;
}

function setCookieCheck(name: string, options: CookieOptions): void {
  const probe = { setHeader() {} } as unknown as Context;
  try {
    setCookie(probe, name, "", options);
  } catch (error) {
    throw new TypeError(`Cannot create session(): ${(error as Error).message}`);
  }
}
