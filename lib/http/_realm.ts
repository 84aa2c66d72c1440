// The realm parameter of an authentication challenge (RFC 9110 §11.6.1), for auth() and
// basicAuth() alike.

/**
 * `realm="…"`, the realm quoted (RFC 9110 §5.6.4). Throws a TypeError naming `creator` for a
 * realm a header value cannot carry (anything but printable Latin-1), which would otherwise fail
 * every 401.
 */
export function realmParameter(realm: unknown, creator: string): string {
  if (typeof realm !== "string" || /[^\x20-\x7e\x80-\xff]/.test(realm)) {
    throw new TypeError(
      `Cannot create ${creator}: realm must be a string of printable Latin-1 characters`,
    );
  }
  return `realm="${realm.replaceAll("\\", "\\\\").replaceAll('"', '\\"')}"`;
}
