// The XSS corpus payloads, shared by xss_corpus_test.ts and browser_test.ts.

const CORPUS = new URL("../fixtures/xss/", import.meta.url);

/** Every non-empty line of every .txt file in tests/fixtures/xss/, with its origin. */
export function readPayloads(): { origin: string; payload: string }[] {
  const payloads: { origin: string; payload: string }[] = [];
  const files = [...Deno.readDirSync(CORPUS)]
    .filter((entry) => entry.name.endsWith(".txt"))
    .map((entry) => entry.name)
    .sort();
  for (const name of files) {
    // UTF-8, split on "\n" (see README.md there: some lines hold tabs and smart quotes).
    const lines = Deno.readTextFileSync(new URL(name, CORPUS)).split("\n");
    lines.forEach((payload, i) => {
      if (payload !== "") payloads.push({ origin: `${name}:${i + 1}`, payload });
    });
  }
  return payloads;
}
