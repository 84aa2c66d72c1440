import assert from "node:assert/strict";
import { evaluatePreconditions, type PreconditionResult } from "../../lib/http/conditional.ts";

const VECTORS = new URL("../fixtures/rfc-vectors/vectors.json", import.meta.url);
const rules = JSON.parse(Deno.readTextFileSync(VECTORS)).conditional_rules_rfc9110;

const ETAG = '"v2"';
const LAST_MODIFIED = Date.UTC(2024, 0, 15, 12, 0, 0) + 999; // a fraction the date cannot carry
const AT = "Mon, 15 Jan 2024 12:00:00 GMT";
const BEFORE = "Mon, 15 Jan 2024 11:59:59 GMT";
const AFTER = "Mon, 15 Jan 2024 12:00:01 GMT";

interface Case {
  method?: string;
  headers: Record<string, string>;
  expect: PreconditionResult;
}

function run({ method = "GET", headers }: Case): PreconditionResult {
  return evaluatePreconditions({
    method,
    headers: new Headers(headers),
    etag: ETAG,
    lastModifiedMs: LAST_MODIFIED,
  });
}

// Each rule of the corpus (rfc-vectors/vectors.json) with the cases that exercise it.
const CASES: Record<string, Case[]> = {
  if_match: [
    { headers: { "if-match": ETAG }, expect: "ok" },
    { headers: { "if-match": '"v1", "v2"' }, expect: "ok" },
    { headers: { "if-match": "*" }, expect: "ok" },
    { headers: { "if-match": '"v1"' }, expect: 412 },
    { headers: { "if-match": `W/${ETAG}` }, expect: 412 }, // strong comparison
    { method: "PUT", headers: { "if-match": '"v1"' }, expect: 412 },
    { method: "PUT", headers: { "if-match": ETAG }, expect: "ok" },
  ],
  if_none_match: [
    { headers: { "if-none-match": ETAG }, expect: 304 },
    { headers: { "if-none-match": `W/${ETAG}` }, expect: 304 }, // weak comparison
    { headers: { "if-none-match": `"v0", W/"v1", ${ETAG}` }, expect: 304 },
    { headers: { "if-none-match": "*" }, expect: 304 },
    { method: "HEAD", headers: { "if-none-match": ETAG }, expect: 304 },
    { headers: { "if-none-match": '"v1"' }, expect: "ok" },
    { method: "POST", headers: { "if-none-match": "*" }, expect: 412 },
    { method: "PUT", headers: { "if-none-match": ETAG }, expect: 412 },
    { method: "DELETE", headers: { "if-none-match": `W/${ETAG}` }, expect: 412 },
    { method: "PUT", headers: { "if-none-match": '"v1"' }, expect: "ok" },
  ],
  if_modified_since: [
    { headers: { "if-modified-since": AT }, expect: 304 }, // second precision
    { headers: { "if-modified-since": AFTER }, expect: 304 },
    { headers: { "if-modified-since": BEFORE }, expect: "ok" },
    { method: "HEAD", headers: { "if-modified-since": AT }, expect: 304 },
    // ignored with If-None-Match present, even a non-matching one
    { headers: { "if-none-match": '"v1"', "if-modified-since": AFTER }, expect: "ok" },
    // ignored when not a valid HTTP-date or with more than one member
    { headers: { "if-modified-since": "tomorrow" }, expect: "ok" },
    { headers: { "if-modified-since": `${AT}, ${AFTER}` }, expect: "ok" },
    // ignored for methods other than GET and HEAD
    { method: "POST", headers: { "if-modified-since": AFTER }, expect: "ok" },
    { method: "PUT", headers: { "if-modified-since": AFTER }, expect: "ok" },
  ],
  if_unmodified_since: [
    { headers: { "if-unmodified-since": BEFORE }, expect: 412 },
    { headers: { "if-unmodified-since": AT }, expect: "ok" },
    { headers: { "if-unmodified-since": AFTER }, expect: "ok" },
    { method: "PUT", headers: { "if-unmodified-since": BEFORE }, expect: 412 },
    // ignored with If-Match present, or when not a valid HTTP-date
    { headers: { "if-match": ETAG, "if-unmodified-since": BEFORE }, expect: "ok" },
    { headers: { "if-unmodified-since": "Mon, 15 Jan 2024 11:59:59 UTC" }, expect: "ok" },
  ],
};

// RFC 9110 §13.2.2: the steps in order, each case only decided by the step it names.
const ORDER: Case[][] = [
  // 1. If-Match (else If-Unmodified-Since) -> 412, before anything about If-None-Match
  [
    { headers: { "if-match": '"v1"', "if-none-match": ETAG }, expect: 412 },
    { headers: { "if-unmodified-since": BEFORE, "if-none-match": ETAG }, expect: 412 },
    { headers: { "if-unmodified-since": BEFORE, "if-modified-since": AT }, expect: 412 },
  ],
  // 2. If-None-Match (else If-Modified-Since, GET/HEAD only) -> 304 for GET/HEAD, 412 otherwise
  [
    { headers: { "if-match": ETAG, "if-none-match": ETAG }, expect: 304 },
    { method: "PUT", headers: { "if-match": ETAG, "if-none-match": ETAG }, expect: 412 },
    { headers: { "if-unmodified-since": AT, "if-modified-since": AT }, expect: 304 },
  ],
  // 3. If-Range is evaluated by evaluateRange() after "ok" (tests/http/range_test.ts)
  [],
  // 4. otherwise perform the method
  [
    { headers: {}, expect: "ok" },
    { method: "POST", headers: {}, expect: "ok" },
  ],
];

Deno.test("evaluatePreconditions() follows each precondition rule of RFC 9110 §13.1", () => {
  for (const [rule, cases] of Object.entries(CASES)) {
    assert.ok(typeof rules[rule] === "string", `the corpus describes ${rule}`);
    for (const c of cases) assert.equal(run(c), c.expect, `${rule}: ${JSON.stringify(c)}`);
  }
});

Deno.test("evaluatePreconditions() evaluates in the order of RFC 9110 §13.2.2", () => {
  assert.equal(rules.evaluation_order.length, ORDER.length);
  ORDER.forEach((cases, step) => {
    for (const c of cases) {
      assert.equal(run(c), c.expect, `${rules.evaluation_order[step]}: ${JSON.stringify(c)}`);
    }
  });
});
