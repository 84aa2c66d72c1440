import assert from "node:assert/strict";
import { Context } from "../../mod.ts";
import {
  getSignedCookie,
  setSignedCookie,
  sign,
  unsign,
} from "../../lib/security/signed_cookie.ts";

const OLD = "an-old-secret-of-at-least-thirty-two-chars";
const NEW = "the-new-secret-of-at-least-thirty-two-chars";

async function roundTrip(value: string, setWith: string | string[], readWith: string | string[]) {
  const out = new Context(new Request("http://localhost/"));
  await setSignedCookie(out, "sid", value, setWith);
  const pair = out.res.headers.getSetCookie()[0].split(";")[0];
  const back = new Context(new Request("http://localhost/", { headers: { cookie: pair } }));
  return { pair, read: await getSignedCookie(back, "sid", readWith) };
}

Deno.test("signed cookies round-trip any value", async () => {
  for (const value of ["42", "", "a.b.c", "é ✓; ,=", "x".repeat(3000)]) {
    assert.equal((await roundTrip(value, NEW, NEW)).read, value);
  }
});

Deno.test("key rotation: the first secret signs, every secret verifies", async () => {
  assert.equal((await roundTrip("v", OLD, [NEW, OLD])).read, "v");
  const { pair } = await roundTrip("v", [NEW, OLD], [NEW, OLD]);
  assert.equal(pair, `sid=v.${(await sign("sid", "v", NEW)).split(".")[1]}`);
  assert.equal((await roundTrip("v", OLD, NEW)).read, false, "a retired secret no longer verifies");
});

Deno.test("tampered, truncated, unsigned and renamed values are refused", async () => {
  const signed = await sign("sid", "user=7", NEW);
  const [value, mac] = [
    signed.slice(0, signed.lastIndexOf(".")),
    signed.slice(signed.lastIndexOf(".") + 1),
  ];
  const flipped = mac[0] === "A" ? "B" + mac.slice(1) : "A" + mac.slice(1);
  for (
    const candidate of [
      `user=8.${mac}`,
      `${value}.${flipped}`,
      `${value}.${mac.slice(0, -1)}`,
      `${value}.${mac}A`,
      value,
      `${value}.`,
      `.${mac}`,
      `${value}.${"*".repeat(43)}`,
    ]
  ) {
    assert.equal(await unsign("sid", candidate, NEW), false, candidate);
  }
  assert.equal(await unsign("other", signed, NEW), false, "a value is bound to its cookie name");
  assert.equal(await unsign("sid", signed, NEW), "user=7");
});

Deno.test("a signature has one spelling: the unused bits of its last character must be zero", async () => {
  const signed = await sign("sid", "uid=42", NEW);
  const dot = signed.lastIndexOf(".");
  const mac = signed.slice(dot + 1); // 32 bytes: 43 characters, the last carrying 2 spare bits
  const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
  const last = ALPHABET.indexOf(mac.at(-1)!);
  let accepted = 0;
  for (let spare = 0; spare < 4; spare++) {
    const spelling = mac.slice(0, -1) + ALPHABET[(last & ~3) | spare];
    if (await unsign("sid", `${signed.slice(0, dot)}.${spelling}`, NEW) === "uid=42") accepted++;
  }
  assert.equal(accepted, 1);
});

Deno.test("getSignedCookie() tells a missing cookie (undefined) from a bad one (false)", async () => {
  const none = new Context(new Request("http://localhost/"));
  assert.equal(await getSignedCookie(none, "sid", NEW), undefined);
  const bad = new Context(
    new Request("http://localhost/", { headers: { cookie: "sid=%ZZ; sid=second" } }),
  );
  assert.equal(await getSignedCookie(bad, "sid", NEW), false);
});

Deno.test("short or missing secrets are refused at the call", async () => {
  const ctx = new Context(new Request("http://localhost/"));
  await assert.rejects(() => setSignedCookie(ctx, "a", "v", "short"), /at least 32 characters/);
  await assert.rejects(() => setSignedCookie(ctx, "a", "v", []), /non-empty list/);
  await assert.rejects(() => getSignedCookie(ctx, "a", [NEW, "short"]), /at least 32/);
});
