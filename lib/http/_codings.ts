// One member of an Accept-Encoding list (RFC 9110 §12.5.3), read the same way by compress()'s
// negotiation (lib/middleware/_accept_encoding.ts) and by staticFiles()' choice of a
// precompressed file (lib/middleware/_static_encoding.ts).

const QVALUE = /^(?:0(?:\.\d{0,3})?|1(?:\.0{0,3})?)$/;

/**
 * The coding (lower case) of one member, `coding *( OWS ";" OWS "q=" qvalue )`, and its weight
 * (1 without a `q`); `null` for an empty coding or a weight that does not parse, which the
 * member is then ignored for. Other parameters are not defined for codings and are skipped.
 */
export function parseCoding(member: string): [coding: string, q: number] | null {
  const parts = member.split(";");
  const coding = parts[0].trim().toLowerCase();
  if (coding === "") return null;
  let q = 1;
  for (let i = 1; i < parts.length; i++) {
    const param = parts[i].trim();
    const eq = param.indexOf("=");
    if (eq === -1 || param.slice(0, eq).trim().toLowerCase() !== "q") continue;
    const value = param.slice(eq + 1).trim();
    if (!QVALUE.test(value)) return null;
    q = Number(value);
  }
  return [coding, q];
}
