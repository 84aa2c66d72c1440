// Decoding where code generation from strings is forbidden (a CSP, an edge runtime): Weft's
// reference checker walks the schema, and checks generated ahead of time still apply. Run:
//   deno bench -A --v8-flags=--disallow-code-generation-from-strings bench/json_noeval_bench.ts
// Without the flag this file declares nothing (the other JSON benchmarks cover that case).
import { json, schema as s } from "../lib/json/mod.ts";
import { bench } from "./_groups.ts";
import { Order as OrderAhead } from "./json_schemas.checks.ts";

let forbidden = false;
try {
  new Function("return 1");
} catch {
  forbidden = true;
}

if (!forbidden) {
  console.log("json_noeval_bench.ts: run with --v8-flags=--disallow-code-generation-from-strings");
} else {
  const Order = s.object(OrderAhead.shape);
  const ORDER_TEXT = JSON.stringify({
    id: "ord_01J9Z3K4M5N6P7Q8R9S0T1V2W3",
    createdAt: "2024-10-07T09:14:03.512Z",
    status: "paid",
    customer: {
      id: 48213,
      name: "Ada Lovelace",
      email: "ada.lovelace@example.com",
      vip: true,
      address: {
        line1: "Bahnhofstrasse 21",
        line2: null,
        city: "Zürich",
        postalCode: "8001",
        country: "CH",
      },
      tags: ["newsletter", "early-adopter", "b2b"],
    },
    items: Array.from({ length: 9 }, (_, i) => ({
      sku: `SKU-${1000 + i * 37}`,
      name: ["Espresso beans 1 kg", "Ceramic mug", "Milk frother", "Grinder burr set"][i % 4],
      quantity: 1 + (i % 3),
      unitPrice: 12.5 + i * 3.25,
      discount: i % 2 === 0 ? null : 0.1,
      attributes: { color: ["black", "white", "red"][i % 3], size: i % 2 ? "L" : "M" },
    })),
    payment: { method: "card", brand: "visa", last4: "4242", expMonth: 11 },
    shipping: {
      carrier: "Swiss Post",
      tracking: "99.00.123456.78901234",
      address: {
        line1: "Bahnhofstrasse 21",
        line2: null,
        city: "Zürich",
        postalCode: "8001",
        country: "CH",
      },
    },
    totals: { subtotal: 187.25, tax: 15.17, shipping: 7.9, total: 210.32, currency: "CHF" },
    note: "Please leave the parcel with the concierge on the ground floor.",
  });
  const BYTES = new TextEncoder().encode(ORDER_TEXT);
  const decoder = new TextDecoder();
  const parse = () => JSON.parse(decoder.decode(BYTES));
  if (!json.decode(BYTES, Order).ok || !json.decode(BYTES, OrderAhead).ok) {
    throw new Error("weft rejects the benchmark document");
  }
  let sink: unknown;
  const group = "decode 2 KiB, code generation forbidden";
  bench(group, "TextDecoder + JSON.parse (floor)", () => {
    sink = parse();
  }, true);
  bench(group, "weft json.decode (reference checker)", () => {
    sink = json.decode(BYTES, Order);
  });
  bench(group, "weft json.decode, checks generated ahead of time", () => {
    sink = json.decode(BYTES, OrderAhead);
  });
  globalThis.addEventListener("unload", () => {
    if (sink === Symbol.for("never")) console.log(sink);
  });
}
