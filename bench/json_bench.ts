// weft/json against its anchors, each group with its floor as the baseline, so every figure
// is a ratio measured in one run:
//   decode 2 KiB  TextDecoder + JSON.parse (floor) · weft (checks generated on first use, the
//                 same after 200 other schemas were used first, and checks generated ahead of
//                 time) · a check written by hand for the schema · zod 4 · valibot · TypeBox
//                 compiled
//   decode 2 KiB, constrained  the same order with a constraint on every string and number:
//                 floor · weft · TypeBox compiled and zod 4 with the same constraints
//   decode 1 MiB  the same but the hand-written check, on an array of 4,000 log events
//   encode        JSON.stringify (floor) · weft with a schema · fast-json-stringify
// Decoding where code generation is forbidden: bench/json_noeval_bench.ts.
// Run: deno bench -A bench/json_bench.ts
import { type Infer, json, schema as s } from "../lib/json/mod.ts";
import { z } from "zod";
import * as v from "valibot";
import { type TSchema, Type as T } from "@sinclair/typebox";
import { TypeCompiler } from "@sinclair/typebox/compiler";
import fastJson from "fast-json-stringify";
import { bench } from "./_groups.ts";
import {
  Events as EventsAhead,
  Order as OrderAhead,
  OrderConstrained as OrderConstrainedAhead,
} from "./json_schemas.checks.ts";

// 1. Weft schemas and documents

// The same schemas twice: with their checks generated ahead of time (json_schemas.checks.ts),
// and built again, so that they are checked as Weft builds checks at run time.
const Order = s.object(OrderAhead.shape);
const Events = s.array(EventsAhead.item);
const OrderConstrained = s.object(OrderConstrainedAhead.shape);
type Order = Infer<typeof Order>;

// 200 other schemas are used first; then the order's schema is built again and used: it must
// be as fast as the first (every schema gets its generated check, whatever came before).
for (let i = 0; i < 200; i++) {
  const Other = s.object({ [`field${i}`]: s.string(), n: s.optional(s.integer()), k: s.any() });
  json.decode(`{"field${i}": "x", "k": [${i}]}`, Other);
}
const OrderLate = s.object(OrderAhead.shape);

const address: Order["customer"]["address"] = {
  line1: "Bahnhofstrasse 21",
  line2: null,
  city: "Zürich",
  postalCode: "8001",
  country: "CH",
};

const ORDER: Order = {
  id: "ord_01J9Z3K4M5N6P7Q8R9S0T1V2W3",
  createdAt: "2024-10-07T09:14:03.512Z",
  status: "paid",
  customer: {
    id: 48213,
    name: "Ada Lovelace",
    email: "ada.lovelace@example.com",
    vip: true,
    address,
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
  shipping: { carrier: "Swiss Post", tracking: "99.00.123456.78901234", address },
  totals: { subtotal: 187.25, tax: 15.17, shipping: 7.9, total: 210.32, currency: "CHF" },
  note: "Please leave the parcel with the concierge on the ground floor.",
};

const ORDER_TEXT: string = JSON.stringify(ORDER);
const ORDER_BYTES: Uint8Array = new TextEncoder().encode(ORDER_TEXT);

function events(bytes: number): Infer<typeof Events> {
  const out: Infer<typeof Events> = [];
  let size = 2;
  for (let i = 0; size < bytes; i++) {
    const event = {
      ts: 1_700_000_000_000 + i * 1_337,
      level: (["debug", "info", "warn", "error"] as const)[i % 4],
      message: `request ${i} served from cache shard ${i % 16} in region eu-central-${i % 3}`,
      user: i % 5 === 0 ? null : { id: 10_000 + (i % 977), name: `user-${i % 977}` },
      durationMs: (i % 1000) / 7,
      tags: i % 2 ? ["http", "cache"] : ["http"],
    };
    size += JSON.stringify(event).length + 1;
    out.push(event);
  }
  return out;
}

const EVENTS_BYTES: Uint8Array = new TextEncoder().encode(JSON.stringify(events(1 << 20)));

// 2. The same schemas in zod 4, valibot and TypeBox (whose schemas are JSON Schema, which
// fast-json-stringify reads)
const zAddress = z.object({
  line1: z.string(),
  line2: z.string().nullable(),
  city: z.string(),
  postalCode: z.string(),
  country: z.enum(["CH", "DE", "FR", "IT", "AT"]),
});
const zOrder = z.object({
  id: z.string(),
  createdAt: z.string(),
  status: z.enum(["pending", "paid", "shipped", "cancelled"]),
  customer: z.object({
    id: z.int(),
    name: z.string(),
    email: z.string(),
    vip: z.boolean(),
    address: zAddress,
    tags: z.array(z.string()),
  }),
  items: z.array(z.object({
    sku: z.string(),
    name: z.string(),
    quantity: z.int(),
    unitPrice: z.number(),
    discount: z.number().nullable(),
    attributes: z.record(z.string(), z.string()),
  })),
  payment: z.discriminatedUnion("method", [
    z.object({
      method: z.literal("card"),
      brand: z.string(),
      last4: z.string(),
      expMonth: z.int(),
    }),
    z.object({ method: z.literal("invoice"), dueDays: z.int() }),
  ]),
  shipping: z.object({ carrier: z.string(), tracking: z.string().nullable(), address: zAddress }),
  totals: z.object({
    subtotal: z.number(),
    tax: z.number(),
    shipping: z.number(),
    total: z.number(),
    currency: z.literal("CHF"),
  }),
  note: z.string().optional(),
});
const zEvents = z.array(z.object({
  ts: z.int(),
  level: z.enum(["debug", "info", "warn", "error"]),
  message: z.string(),
  user: z.object({ id: z.int(), name: z.string() }).nullable(),
  durationMs: z.number(),
  tags: z.array(z.string()),
}));

const vAddress = v.object({
  line1: v.string(),
  line2: v.nullable(v.string()),
  city: v.string(),
  postalCode: v.string(),
  country: v.picklist(["CH", "DE", "FR", "IT", "AT"]),
});
const vInt = v.pipe(v.number(), v.safeInteger());
const vOrder = v.object({
  id: v.string(),
  createdAt: v.string(),
  status: v.picklist(["pending", "paid", "shipped", "cancelled"]),
  customer: v.object({
    id: vInt,
    name: v.string(),
    email: v.string(),
    vip: v.boolean(),
    address: vAddress,
    tags: v.array(v.string()),
  }),
  items: v.array(v.object({
    sku: v.string(),
    name: v.string(),
    quantity: vInt,
    unitPrice: v.number(),
    discount: v.nullable(v.number()),
    attributes: v.record(v.string(), v.string()),
  })),
  payment: v.variant("method", [
    v.object({ method: v.literal("card"), brand: v.string(), last4: v.string(), expMonth: vInt }),
    v.object({ method: v.literal("invoice"), dueDays: vInt }),
  ]),
  shipping: v.object({ carrier: v.string(), tracking: v.nullable(v.string()), address: vAddress }),
  totals: v.object({
    subtotal: v.number(),
    tax: v.number(),
    shipping: v.number(),
    total: v.number(),
    currency: v.literal("CHF"),
  }),
  note: v.optional(v.string()),
});

const tNullable = <S extends TSchema>(schema: S) => T.Union([schema, T.Null()]);
const tAddress = T.Object({
  line1: T.String(),
  line2: tNullable(T.String()),
  city: T.String(),
  postalCode: T.String(),
  country: T.Union(["CH", "DE", "FR", "IT", "AT"].map((c) => T.Literal(c))),
});
const tOrder = T.Object({
  id: T.String(),
  createdAt: T.String(),
  status: T.Union(["pending", "paid", "shipped", "cancelled"].map((c) => T.Literal(c))),
  customer: T.Object({
    id: T.Integer(),
    name: T.String(),
    email: T.String(),
    vip: T.Boolean(),
    address: tAddress,
    tags: T.Array(T.String()),
  }),
  items: T.Array(T.Object({
    sku: T.String(),
    name: T.String(),
    quantity: T.Integer(),
    unitPrice: T.Number(),
    discount: tNullable(T.Number()),
    attributes: T.Record(T.String(), T.String()),
  })),
  payment: T.Union([
    T.Object({
      method: T.Literal("card"),
      brand: T.String(),
      last4: T.String(),
      expMonth: T.Integer(),
    }),
    T.Object({ method: T.Literal("invoice"), dueDays: T.Integer() }),
  ]),
  shipping: T.Object({ carrier: T.String(), tracking: tNullable(T.String()), address: tAddress }),
  totals: T.Object({
    subtotal: T.Number(),
    tax: T.Number(),
    shipping: T.Number(),
    total: T.Number(),
    currency: T.Literal("CHF"),
  }),
  note: T.Optional(T.String()),
});
const tEvents = T.Array(T.Object({
  ts: T.Integer(),
  level: T.Union(["debug", "info", "warn", "error"].map((c) => T.Literal(c))),
  message: T.String(),
  user: tNullable(T.Object({ id: T.Integer(), name: T.String() })),
  durationMs: T.Number(),
  tags: T.Array(T.String()),
}));
const tOrderCheck = TypeCompiler.Compile(tOrder);

// The constrained order (bench/json_schemas.ts OrderConstrained) in TypeBox and zod.
const tText = (maxLength = 200) => T.String({ minLength: 1, maxLength });
const tAmount = () => T.Number({ minimum: 0, maximum: 1_000_000 });
const tAddressC = T.Object({
  line1: tText(),
  line2: tNullable(tText()),
  city: tText(),
  postalCode: tText(16),
  country: T.Union(["CH", "DE", "FR", "IT", "AT"].map((c) => T.Literal(c))),
});
const tOrderConstrained = T.Object({
  id: tText(64),
  createdAt: tText(40),
  status: T.Union(["pending", "paid", "shipped", "cancelled"].map((c) => T.Literal(c))),
  customer: T.Object({
    id: T.Integer({ minimum: 0, maximum: 1_000_000 }),
    name: tText(),
    email: tText(254),
    vip: T.Boolean(),
    address: tAddressC,
    tags: T.Array(tText(40), { maxItems: 20 }),
  }),
  items: T.Array(
    T.Object({
      sku: tText(32),
      name: tText(),
      quantity: T.Integer({ minimum: 1, maximum: 1000 }),
      unitPrice: tAmount(),
      discount: tNullable(T.Number({ minimum: 0, maximum: 1 })),
      attributes: T.Record(T.String(), tText(40), { maxProperties: 20 }),
    }),
    { maxItems: 100 },
  ),
  payment: T.Union([
    T.Object({
      method: T.Literal("card"),
      brand: tText(20),
      last4: tText(4),
      expMonth: T.Integer({ minimum: 1, maximum: 12 }),
    }),
    T.Object({ method: T.Literal("invoice"), dueDays: T.Integer({ minimum: 0, maximum: 365 }) }),
  ]),
  shipping: T.Object({ carrier: tText(), tracking: tNullable(tText(64)), address: tAddressC }),
  totals: T.Object({
    subtotal: tAmount(),
    tax: tAmount(),
    shipping: tAmount(),
    total: tAmount(),
    currency: T.Literal("CHF"),
  }),
  note: T.Optional(tText(500)),
});
const tOrderConstrainedCheck = TypeCompiler.Compile(tOrderConstrained);

const zText = (max = 200) => z.string().min(1).max(max);
const zAmount = () => z.number().min(0).max(1_000_000);
const zAddressC = z.object({
  line1: zText(),
  line2: zText().nullable(),
  city: zText(),
  postalCode: zText(16),
  country: z.enum(["CH", "DE", "FR", "IT", "AT"]),
});
const zOrderConstrained = z.object({
  id: zText(64),
  createdAt: zText(40),
  status: z.enum(["pending", "paid", "shipped", "cancelled"]),
  customer: z.object({
    id: z.int().min(0).max(1_000_000),
    name: zText(),
    email: zText(254),
    vip: z.boolean(),
    address: zAddressC,
    tags: z.array(zText(40)).max(20),
  }),
  items: z.array(z.object({
    sku: zText(32),
    name: zText(),
    quantity: z.int().min(1).max(1000),
    unitPrice: zAmount(),
    discount: z.number().min(0).max(1).nullable(),
    attributes: z.record(z.string(), zText(40)),
  })).max(100),
  payment: z.discriminatedUnion("method", [
    z.object({
      method: z.literal("card"),
      brand: zText(20),
      last4: zText(4),
      expMonth: z.int().min(1).max(12),
    }),
    z.object({ method: z.literal("invoice"), dueDays: z.int().min(0).max(365) }),
  ]),
  shipping: z.object({ carrier: zText(), tracking: zText(64).nullable(), address: zAddressC }),
  totals: z.object({
    subtotal: zAmount(),
    tax: zAmount(),
    shipping: zAmount(),
    total: zAmount(),
    currency: z.literal("CHF"),
  }),
  note: zText(500).optional(),
});
const tEventsCheck = TypeCompiler.Compile(tEvents);
const fjsOrder = fastJson(tOrder);

// 2b. The order's check written by hand for this one schema: what no checker built from a
// schema can beat, the lower bound of any validation that walks the parsed value.
type Value = Record<string, unknown>;
const isPlain = (v: unknown): v is Value =>
  typeof v === "object" && v !== null && !Array.isArray(v);
const isString = (v: unknown) => typeof v === "string";
const isFinite = (v: unknown) => typeof v === "number" && v - v === 0;
const isAddress = (a: unknown) =>
  isPlain(a) && isString(a.line1) && (a.line2 === null || isString(a.line2)) &&
  isString(a.city) && isString(a.postalCode) &&
  (a.country === "CH" || a.country === "DE" || a.country === "FR" || a.country === "IT" ||
    a.country === "AT");
function isStringRecord(r: unknown): boolean {
  if (!isPlain(r)) return false;
  for (const key in r) if (typeof r[key] !== "string") return false;
  return true;
}
const isItem = (i: unknown) =>
  isPlain(i) && isString(i.sku) && isString(i.name) && Number.isSafeInteger(i.quantity) &&
  isFinite(i.unitPrice) && (i.discount === null || isFinite(i.discount)) &&
  isStringRecord(i.attributes);
function isList(v: unknown, item: (x: unknown) => boolean): boolean {
  if (!Array.isArray(v)) return false;
  for (let i = 0; i < v.length; i++) if (!item(v[i])) return false;
  return true;
}
function handWritten(o: unknown): boolean {
  if (!isPlain(o) || !isString(o.id) || !isString(o.createdAt)) return false;
  const { status, customer: c, payment: p, shipping: s, totals: t } = o;
  return (status === "pending" || status === "paid" || status === "shipped" ||
    status === "cancelled") &&
    isPlain(c) && Number.isSafeInteger(c.id) && isString(c.name) && isString(c.email) &&
    typeof c.vip === "boolean" && isAddress(c.address) && isList(c.tags, isString) &&
    isList(o.items, isItem) &&
    isPlain(p) &&
    (p.method === "card"
      ? isString(p.brand) && isString(p.last4) && Number.isSafeInteger(p.expMonth)
      : p.method === "invoice" && Number.isSafeInteger(p.dueDays)) &&
    isPlain(s) && isString(s.carrier) && (s.tracking === null || isString(s.tracking)) &&
    isAddress(s.address) &&
    isPlain(t) && isFinite(t.subtotal) && isFinite(t.tax) && isFinite(t.shipping) &&
    isFinite(t.total) && t.currency === "CHF" &&
    (o.note === undefined || isString(o.note));
}

// 3. Every contender must accept the documents (and agree) before anything is timed.
const decoder = new TextDecoder();
const parse = (bytes: Uint8Array): unknown => JSON.parse(decoder.decode(bytes));
function must(ok: boolean, what: string): void {
  if (!ok) throw new Error(`${what} rejects the benchmark document`);
}
must(json.decode(ORDER_BYTES, Order).ok, "weft");
must(json.decode(ORDER_BYTES, OrderLate).ok, "weft, after 200 other schemas");
must(json.decode(ORDER_BYTES, OrderConstrained).ok, "weft, constrained");
must(json.decode(ORDER_BYTES, OrderConstrainedAhead).ok, "weft, constrained, ahead of time");
must(tOrderConstrainedCheck.Check(parse(ORDER_BYTES)), "TypeBox, constrained");
must(zOrderConstrained.safeParse(parse(ORDER_BYTES)).success, "zod, constrained");
const LONG = JSON.stringify({ ...ORDER, customer: { ...ORDER.customer, name: "x".repeat(201) } });
must(!json.decode(LONG, OrderConstrained).ok, "weft, constrained (a long name)");
must(!tOrderConstrainedCheck.Check(JSON.parse(LONG)), "TypeBox, constrained (a long name)");
must(!zOrderConstrained.safeParse(JSON.parse(LONG)).success, "zod, constrained (a long name)");
must(json.decode(ORDER_BYTES, OrderAhead).ok, "weft, checks generated ahead of time");
must(zOrder.safeParse(parse(ORDER_BYTES)).success, "zod");
must(v.safeParse(vOrder, parse(ORDER_BYTES)).success, "valibot");
must(tOrderCheck.Check(parse(ORDER_BYTES)), "TypeBox");
must(handWritten(parse(ORDER_BYTES)), "the hand-written check");
must(
  !handWritten({ ...ORDER, items: [{ ...ORDER.items[0], quantity: 1.5 }] }),
  "the hand-written check",
);
must(json.decode(EVENTS_BYTES, Events).ok, "weft (1 MiB)");
must(json.decode(EVENTS_BYTES, EventsAhead).ok, "weft, checks generated ahead of time (1 MiB)");
must(zEvents.safeParse(parse(EVENTS_BYTES)).success, "zod (1 MiB)");
must(tEventsCheck.Check(parse(EVENTS_BYTES)), "TypeBox (1 MiB)");

// A database row carries a member the response schema must not write.
const ROW = { ...ORDER, customer: { ...ORDER.customer, passwordHash: "$argon2id$v=19$m=65536" } };
must(json.encode(ROW, Order) === JSON.stringify(ORDER), "weft encode");
must(!json.encode(ROW, Order).includes("argon2"), "weft encode (leak)");
must(JSON.parse(fjsOrder(ROW)).customer.passwordHash === undefined, "fast-json-stringify");
console.log(`order: ${ORDER_BYTES.length} bytes, events: ${EVENTS_BYTES.length} bytes`);

// 4. The groups
let sink: unknown;
const g1 = "decode 2 KiB (Uint8Array → validated value)";
bench(g1, "TextDecoder + JSON.parse (floor)", () => {
  sink = parse(ORDER_BYTES);
}, true);
bench(g1, "weft json.decode", () => {
  sink = json.decode(ORDER_BYTES, Order);
});
bench(g1, "weft json.decode, after 200 other schemas were used", () => {
  sink = json.decode(ORDER_BYTES, OrderLate);
});
bench(g1, "weft json.decode, checks generated ahead of time", () => {
  sink = json.decode(ORDER_BYTES, OrderAhead);
});
bench(g1, "floor + hand-written check (a walk's lower bound)", () => {
  sink = handWritten(parse(ORDER_BYTES));
});
bench(g1, "floor + TypeBox compiled Check", () => {
  sink = tOrderCheck.Check(parse(ORDER_BYTES));
});
bench(g1, "floor + zod 4 safeParse", () => {
  sink = zOrder.safeParse(parse(ORDER_BYTES));
});
bench(g1, "floor + valibot safeParse", () => {
  sink = v.safeParse(vOrder, parse(ORDER_BYTES));
});

const g1c = "decode 2 KiB, a constraint on every string and number";
bench(g1c, "TextDecoder + JSON.parse (floor)", () => {
  sink = parse(ORDER_BYTES);
}, true);
bench(g1c, "weft json.decode", () => {
  sink = json.decode(ORDER_BYTES, OrderConstrained);
});
bench(g1c, "weft json.decode, checks generated ahead of time", () => {
  sink = json.decode(ORDER_BYTES, OrderConstrainedAhead);
});
bench(g1c, "floor + TypeBox compiled Check, same constraints", () => {
  sink = tOrderConstrainedCheck.Check(parse(ORDER_BYTES));
});
bench(g1c, "floor + zod 4 safeParse, same constraints", () => {
  sink = zOrderConstrained.safeParse(parse(ORDER_BYTES));
});

const g2 = "decode 1 MiB array of events";
bench(g2, "TextDecoder + JSON.parse (floor)", () => {
  sink = parse(EVENTS_BYTES);
}, true);
bench(g2, "weft json.decode", () => {
  sink = json.decode(EVENTS_BYTES, Events);
});
bench(g2, "weft json.decode, checks generated ahead of time", () => {
  sink = json.decode(EVENTS_BYTES, EventsAhead);
});
bench(g2, "floor + TypeBox compiled Check", () => {
  sink = tEventsCheck.Check(parse(EVENTS_BYTES));
});
bench(g2, "floor + zod 4 safeParse", () => {
  sink = zEvents.safeParse(parse(EVENTS_BYTES));
});

const g3 = "encode the order with a schema";
bench(g3, "JSON.stringify (floor, writes every member)", () => {
  sink = JSON.stringify(ROW);
}, true);
bench(g3, "weft json.encode, row with an extra member", () => {
  sink = json.encode(ROW, Order);
});
bench(g3, "weft json.encode, exactly the schema's members", () => {
  sink = json.encode(ORDER, Order);
});
bench(g3, "fast-json-stringify", () => {
  sink = fjsOrder(ROW);
});

globalThis.addEventListener("unload", () => {
  if (sink === Symbol.for("never")) console.log(sink);
});
