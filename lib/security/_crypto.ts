// Byte helpers the security middleware share: base64url without padding (RFC 4648 §5), a
// comparison whose time does not depend on where two byte strings differ, and random tokens.

/** Encodes bytes as base64url without padding. */
export function toBase64Url(bytes: Uint8Array): string {
  let binary = "";
  for (let i = 0; i < bytes.length; i++) binary += String.fromCharCode(bytes[i]);
  const base64 = btoa(binary);
  let end = base64.length;
  while (end > 0 && base64.charCodeAt(end - 1) === 0x3d) end--; // "=" padding
  return base64.slice(0, end).replace(/\+/g, "-").replace(/\//g, "_");
}

const BASE64URL = /^[A-Za-z0-9_-]*$/;

/**
 * Decodes unpadded base64url in its one canonical spelling; `undefined` for anything else. The
 * last character of a length that is not a multiple of four carries bits that no byte uses;
 * `atob` ignores them, so four spellings would decode to the same signature, and an app keying
 * on the raw cookie (a revocation list) could be sidestepped.
 */
export function fromBase64Url(text: string): Uint8Array<ArrayBuffer> | undefined {
  if (!BASE64URL.test(text) || text.length % 4 === 1) return undefined;
  const binary = atob(text.replace(/-/g, "+").replace(/_/g, "/"));
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return toBase64Url(bytes) === text ? bytes : undefined;
}

/**
 * Whether two byte strings are equal, looking at every byte of `expected` whatever the
 * content: the time taken depends on the lengths only (both public here: digests and MACs).
 */
export function timingSafeEqual(expected: Uint8Array, actual: Uint8Array): boolean {
  let diff = expected.length ^ actual.length;
  for (let i = 0; i < expected.length; i++) diff |= expected[i] ^ (actual[i] ?? 0);
  return diff === 0;
}

/** `bytes` random bytes from the platform's CSPRNG, as base64url. */
export function randomToken(bytes: number): string {
  return toBase64Url(crypto.getRandomValues(new Uint8Array(bytes)));
}

const encoder = /* @__PURE__ */ new TextEncoder();

/** The UTF-8 bytes of a string. */
export function utf8(text: string): Uint8Array<ArrayBuffer> {
  return encoder.encode(text);
}

/** SHA-256 of a string's UTF-8 bytes. */
export async function sha256(text: string): Promise<Uint8Array> {
  return new Uint8Array(await crypto.subtle.digest("SHA-256", utf8(text)));
}
