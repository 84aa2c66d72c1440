// Type-check time of a typed client over a 200-route app (issue 26): the same app written with
// Weft (describe() schemas, weft/client) and with Hono (validator(), chained routes, hono/client's
// hc), each in a generated file that declares the routes and calls every one of them through the
// client, reading a typed field of each answer. `deno check` runs on each file a few times (a
// comment with the run number changes the file, so Deno's check cache never answers) and the
// median wall time is reported, next to that of a file with one line (Deno's own start-up). The
// files take turns, so that the machine's load weighs on each alike.
//
//   deno run -A bench/client_typecheck.ts [--routes 200] [--runs 3] [--write DIR]
//
// --write DIR writes the two generated apps into DIR (weft_app.ts, hono_app.ts) and stops.
import { parseArgs } from "node:util";

const { values } = parseArgs({
  args: Deno.args,
  options: {
    routes: { type: "string", default: "200" },
    runs: { type: "string", default: "3" },
    write: { type: "string" },
  },
});
const ROUTES = Number(values.routes);
const RUNS = Number(values.runs);
const ROOT = new URL("../", import.meta.url);
const HONO = "npm:hono@4.13.19";

function weftApp(n: number): string {
  const at = (path: string) => new URL(path, ROOT).href;
  const routes: string[] = [];
  const calls: string[] = [];
  for (let i = 0; i < n; i++) {
    if (i % 2 === 0) {
      routes.push(`  get("/r${i}/:id", [describe({
    params: schema.object({ id: schema.integer() }),
    query: schema.object({ q: schema.optional(schema.string()) }),
    responses: { 200: Item },
  })], (ctx) => ctx.json({ id: ctx.var.params.id, name: ctx.var.query.q ?? "" })),`);
      calls.push(
        `  const r${i} = await api.get("/r${i}/:id", { params: { id: ${i} }, query: { q: "x" } });
  if (!r${i}.problem && r${i}.status === 200) names.push(r${i}.data.name);`,
      );
    } else {
      routes.push(`  post("/r${i}", [describe({ body: Item, responses: { 201: Item } })], (ctx) =>
    ctx.json(ctx.var.body, { status: 201 })),`);
      calls.push(`  const r${i} = await api.post("/r${i}", { json: { id: ${i}, name: "x" } });
  if (r${i}.ok) names.push(r${i}.data.name);`);
    }
  }
  return `import { get, post, router, schema } from "${at("mod.ts")}";
import { describe } from "${at("lib/openapi/mod.ts")}";
import { client } from "${at("lib/client/mod.ts")}";

const Item = schema.object({ id: schema.integer(), name: schema.string() });
const app = router([
${routes.join("\n")}
]);

export async function calls(): Promise<string[]> {
  const api = client<typeof app>("http://localhost:8000");
  const names: string[] = [];
${calls.join("\n")}
  return names;
}
`;
}

function honoApp(n: number): string {
  const routes: string[] = [];
  const calls: string[] = [];
  for (let i = 0; i < n; i++) {
    if (i % 2 === 0) {
      routes.push(`  .get(
    "/r${i}/:id",
    validator("param", (value) => ({ id: Number(value.id) })),
    validator("query", (value) => value as { q?: string }),
    (c) => c.json({ id: c.req.valid("param").id, name: c.req.valid("query").q ?? "" }, 200),
  )`);
      calls.push(
        `  const r${i} = await api.r${i}[":id"].$get({ param: { id: "${i}" }, query: { q: "x" } });
  if (r${i}.ok) names.push((await r${i}.json()).name);`,
      );
    } else {
      routes.push(`  .post(
    "/r${i}",
    validator("json", (value) => value as Item),
    (c) => c.json(c.req.valid("json"), 201),
  )`);
      calls.push(`  const r${i} = await api.r${i}.$post({ json: { id: ${i}, name: "x" } });
  if (r${i}.ok) names.push((await r${i}.json()).name);`);
    }
  }
  return `import { Hono } from "${HONO}";
import { validator } from "${HONO}/validator";
import { hc } from "${HONO}/client";

interface Item {
  id: number;
  name: string;
}
const app = new Hono()
${routes.join("\n")};

export async function calls(): Promise<string[]> {
  const api = hc<typeof app>("http://localhost:8000");
  const names: string[] = [];
${calls.join("\n")}
  return names;
}
`;
}

async function check(file: string): Promise<number> {
  const started = performance.now();
  const { code, stderr } = await new Deno.Command(Deno.execPath(), {
    args: ["check", "--quiet", "--no-lock", "--no-config", file],
    stdout: "null",
    stderr: "piped",
    env: { NO_COLOR: "1" },
  }).output();
  const elapsed = performance.now() - started;
  if (code !== 0) {
    throw new Error(`deno check ${file} failed:\n${new TextDecoder().decode(stderr)}`);
  }
  return elapsed;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

if (values.write !== undefined) {
  await Deno.writeTextFile(`${values.write}/weft_app.ts`, weftApp(ROUTES));
  await Deno.writeTextFile(`${values.write}/hono_app.ts`, honoApp(ROUTES));
  Deno.exit(0);
}

const dir = await Deno.makeTempDir({ prefix: "weft-client-typecheck-" });
try {
  const sources: [string, string][] = [
    ["one line (deno check's start-up)", "export const one = 1;\n"],
    [`Weft: weft/client, ${ROUTES} routes`, weftApp(ROUTES)],
    [`Hono 4.13.19: hc, ${ROUTES} routes`, honoApp(ROUTES)],
  ];
  // Round-robin, so that a change in the machine's load reaches every file alike; run 0 warms
  // the npm and module caches and is not counted.
  const results = sources.map(([name]) => ({ name, runs: [] as number[] }));
  for (let run = 0; run <= RUNS; run++) {
    for (const [i, [, source]] of sources.entries()) {
      const file = `${dir}/app_${i}.ts`;
      await Deno.writeTextFile(file, `// run ${run} ${crypto.randomUUID()}\n${source}`);
      const ms = await check(file);
      if (run > 0) results[i].runs.push(ms);
    }
  }
  console.log(`deno check, median of ${RUNS} runs (wall time; the machine's load counts):`);
  for (const { name, runs } of results) {
    const list = runs.map((ms) => ms.toFixed(0)).join(", ");
    console.log(`  ${name.padEnd(40)} ${median(runs).toFixed(0).padStart(6)} ms   (${list})`);
  }
  const [, weft, hono] = results.map(({ runs }) => median(runs));
  console.log(`  Weft / Hono: ${(weft / hono).toFixed(2)}`);
} finally {
  await Deno.remove(dir, { recursive: true });
}
