// The schemas of the JSON benchmarks (bench/json_bench.ts): an order of ~2 KiB and an array of
// log events. json_schemas.checks.ts holds their checks generated ahead of time; generate it
// again after a change here with `deno task json:checks` (`deno task check` fails while stale).
import { schema as s } from "../lib/json/mod.ts";

const Address = s.object({
  line1: s.string(),
  line2: s.nullable(s.string()),
  city: s.string(),
  postalCode: s.string(),
  country: s.enum(["CH", "DE", "FR", "IT", "AT"]),
});

const Item = s.object({
  sku: s.string(),
  name: s.string(),
  quantity: s.integer(),
  unitPrice: s.number(),
  discount: s.nullable(s.number()),
  attributes: s.record(s.string()),
});

const Payment = s.union("method", [
  s.object({
    method: s.literal("card"),
    brand: s.string(),
    last4: s.string(),
    expMonth: s.integer(),
  }),
  s.object({ method: s.literal("invoice"), dueDays: s.integer() }),
]);

export const Order = s.object({
  id: s.string(),
  createdAt: s.string(),
  status: s.enum(["pending", "paid", "shipped", "cancelled"]),
  customer: s.object({
    id: s.integer(),
    name: s.string(),
    email: s.string(),
    vip: s.boolean(),
    address: Address,
    tags: s.array(s.string()),
  }),
  items: s.array(Item),
  payment: Payment,
  shipping: s.object({ carrier: s.string(), tracking: s.nullable(s.string()), address: Address }),
  totals: s.object({
    subtotal: s.number(),
    tax: s.number(),
    shipping: s.number(),
    total: s.number(),
    currency: s.literal("CHF"),
  }),
  note: s.optional(s.string()),
});

const Event = s.object({
  ts: s.integer(),
  level: s.enum(["debug", "info", "warn", "error"]),
  message: s.string(),
  user: s.nullable(s.object({ id: s.integer(), name: s.string() })),
  durationMs: s.number(),
  tags: s.array(s.string()),
});
export const Events = s.array(Event);

// The order again with a constraint on every string and number, as an API would state them.
const text = (maxLength = 200) => s.string({ minLength: 1, maxLength });
const amount = () => s.number({ minimum: 0, maximum: 1_000_000 });
const count = () => s.integer({ minimum: 0, maximum: 1_000_000 });

const AddressC = s.object({
  line1: text(),
  line2: s.nullable(text()),
  city: text(),
  postalCode: text(16),
  country: s.enum(["CH", "DE", "FR", "IT", "AT"]),
});

export const OrderConstrained = s.object({
  id: text(64),
  createdAt: text(40),
  status: s.enum(["pending", "paid", "shipped", "cancelled"]),
  customer: s.object({
    id: count(),
    name: text(),
    email: text(254),
    vip: s.boolean(),
    address: AddressC,
    tags: s.array(text(40), { maxItems: 20 }),
  }),
  items: s.array(
    s.object({
      sku: text(32),
      name: text(),
      quantity: s.integer({ minimum: 1, maximum: 1000 }),
      unitPrice: amount(),
      discount: s.nullable(s.number({ minimum: 0, maximum: 1 })),
      attributes: s.record(text(40), { maxProperties: 20 }),
    }),
    { maxItems: 100 },
  ),
  payment: s.union("method", [
    s.object({
      method: s.literal("card"),
      brand: text(20),
      last4: text(4),
      expMonth: s.integer({ minimum: 1, maximum: 12 }),
    }),
    s.object({ method: s.literal("invoice"), dueDays: s.integer({ minimum: 0, maximum: 365 }) }),
  ]),
  shipping: s.object({ carrier: text(), tracking: s.nullable(text(64)), address: AddressC }),
  totals: s.object({
    subtotal: amount(),
    tax: amount(),
    shipping: amount(),
    total: amount(),
    currency: s.literal("CHF"),
  }),
  note: s.optional(text(500)),
});
