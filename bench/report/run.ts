// `deno task bench:report`: runs every benchmark with its anchors in one run and writes
// docs/benchmarks.md with tables and SVG charts (docs/benchmarks/*.svg) drawn from the data.
//
//   deno task bench:report [--quick] [--only micro,load,node,static,techempower]
//   deno task bench:report --render     # the report again from docs/benchmarks/data.json
//
// Each section runs an existing script with --json (bench/interleaved.ts, bench/load/run.ts,
// bench/node/run.ts, bench/static/run.ts, bench/techempower/run.ts); the report gives the
// exact command line of each, so that any figure can be reproduced alone. --quick takes a
// second or two per case (to prove the pipeline, not to measure), the default about 25
// minutes on a 2-core machine. The Node sections need the npm build, made first. Everything
// measured is also written to docs/benchmarks/data.json, from which --render redraws the report.
import type { LoadResult } from "../_load.ts";
import { median, track } from "../_proc.ts";
import { barChart, type BarGroup } from "./svg.ts";
import type { GroupResult } from "../interleaved.ts";

const root = new URL("../../", import.meta.url).pathname;
const args = Deno.args;
const option = (name: string) => {
  const i = args.indexOf(name);
  return i === -1 ? undefined : args[i + 1];
};
const RENDER = args.includes("--render");
const DATA_FILE = new URL("../../docs/benchmarks/data.json", import.meta.url);
const SECTIONS = ["micro", "load", "node", "static", "techempower"];
const ONLY = option("--only")?.split(",") ?? SECTIONS;
const STEP_LIMIT_MS = 20 * 60_000;

// Odd numbers of rounds, so that a median is a measured round (bench/_proc.ts's median() takes
// the upper middle one of an even count).
const settings = (quick: boolean) =>
  quick
    ? {
      micro: ["--rounds", "15", "--batch-ms", "1"],
      load: ["--seconds", "1", "--warmup", "1", "--rounds", "3"],
      static: ["--seconds", "1", "--warmup", "0", "--rounds", "1"],
      techempower: ["--seconds", "1", "--warmup", "1", "--rounds", "3"],
    }
    : {
      micro: ["--rounds", "60", "--batch-ms", "2"],
      load: ["--seconds", "4", "--warmup", "1", "--rounds", "3"],
      static: ["--seconds", "3", "--warmup", "1", "--rounds", "3"],
      techempower: ["--seconds", "2", "--warmup", "1", "--rounds", "3"],
    };

const decoder = new TextDecoder();
async function output(cmd: string, ...rest: string[]): Promise<string> {
  try {
    const out = await new Deno.Command(cmd, { args: rest, stdout: "piped", stderr: "piped" })
      .output();
    return (decoder.decode(out.stdout) + decoder.decode(out.stderr)).trim();
  } catch {
    return "missing";
  }
}

/** Runs a command with its output shown, ended (SIGTERM) after STEP_LIMIT_MS. */
async function step(cmd: string[], cwd = root): Promise<void> {
  console.log(`\n$ ${cmd.join(" ")}`);
  const child = track(
    new Deno.Command(cmd[0], { args: cmd.slice(1), cwd, stdout: "inherit" }).spawn(),
  );
  const timer = setTimeout(() => child.kill("SIGTERM"), STEP_LIMIT_MS);
  const status = await child.status;
  clearTimeout(timer);
  if (!status.success) throw new Error(`${cmd.join(" ")} failed (${status.code})`);
}

interface StaticResult {
  rounds: number;
  seconds: number;
  warmup: number;
  kinds: string[];
  cases: Record<string, Record<string, { rps: number[]; cpuUs: number[] }>>;
}
interface Measured<T> {
  data: T;
  command: string;
}
/** Everything a report is drawn from (docs/benchmarks/data.json). */
interface ReportData {
  quick: boolean;
  started: string;
  minutes: number;
  loadBefore: number;
  loadAfter: number;
  machine: string;
  versions: Record<string, string>;
  techempowerCommand: string;
  micro?: Measured<GroupResult[]>;
  loads: { name: string; result: Measured<LoadResult> }[];
  statics?: Measured<StaticResult>;
  techempower?: Measured<Record<string, LoadResult>>;
}

async function measureAll(quick: boolean, only: string[]): Promise<ReportData> {
  const SETTINGS = settings(quick);
  const tmp = await Deno.makeTempDir({ prefix: "weft-report-" });
  const deno = Deno.execPath();
  /** Runs a bench script with --json and returns what it wrote, and the command to show. */
  async function measure<T>(
    script: string,
    extra: string[],
  ): Promise<{ data: T; command: string }> {
    const file = `${tmp}/${script.replaceAll("/", "_")}${extra.join("_")}.json`;
    await step([deno, "run", "-A", script, ...extra, "--json", file]);
    return {
      data: JSON.parse(await Deno.readTextFile(file)),
      command: `deno run -A ${script} ${extra.join(" ")}`,
    };
  }

  const started = new Date();
  const loadBefore = Deno.loadavg();
  const needsNode = only.includes("node") || only.includes("techempower");
  if (needsNode) {
    await step([deno, "task", "build:npm"]);
    await step(["npm", "ci", "--no-audit", "--no-fund"], `${root}bench/node`);
    await step(["npm", "ci", "--no-audit", "--no-fund"], `${root}bench/techempower/node`);
  }

  const micro = only.includes("micro")
    ? await measure<GroupResult[]>("bench/interleaved.ts", SETTINGS.micro)
    : undefined;
  const loads: { name: string; result: { data: LoadResult; command: string } }[] = [];
  if (only.includes("load")) {
    loads.push({
      name: "deno-h1",
      result: await measure<LoadResult>("bench/load/run.ts", SETTINGS.load),
    });
    loads.push({
      name: "deno-h2",
      result: await measure<LoadResult>("bench/load/run.ts", [...SETTINGS.load, "--h2"]),
    });
  }
  if (only.includes("node")) {
    loads.push({
      name: "node-h1",
      result: await measure<LoadResult>("bench/node/run.ts", SETTINGS.load),
    });
  }
  const statics = only.includes("static")
    ? await measure<StaticResult>("bench/static/run.ts", SETTINGS.static)
    : undefined;
  const techempower = only.includes("techempower")
    ? await measure<Record<string, LoadResult>>(
      "bench/techempower/run.ts",
      [...SETTINGS.techempower, "--db", "both"],
    )
    : undefined;
  const loadAfter = Deno.loadavg();
  await Deno.remove(tmp, { recursive: true });

  const versions = {
    deno: `${Deno.version.deno} (V8 ${Deno.version.v8})`,
    node: await output("node", "--version"),
    wrk: (await output("wrk", "-v")).split("\n")[0].replace(/ Copyright.*/, ""),
    h2load: (await output("h2load", "--version")).split("\n")[0],
    nginx: (await output("nginx", "-v")).split("\n")[0],
    postgres: await postgresVersion(),
    weft: JSON.parse(await Deno.readTextFile(`${root}deno.json`)).version,
    packages: Object.entries(
      JSON.parse(await Deno.readTextFile(`${root}deno.json`)).imports as Record<
        string,
        string
      >,
    )
      .filter(([name]) => ["hono", "eta", "handlebars", "mustache", "postgres"].includes(name))
      .map(([, spec]) => spec.replace("npm:", "")).join(", "),
    nodePackages: Object.entries(
      JSON.parse(await Deno.readTextFile(`${root}bench/node/package.json`)).dependencies as Record<
        string,
        string
      >,
    ).filter(([, v]) => !v.startsWith("file:")).map(([k, v]) => `${k}@${v}`).join(", "),
  };
  async function postgresVersion(): Promise<string> {
    try {
      for await (const entry of Deno.readDir("/usr/lib/postgresql")) {
        return await output(`/usr/lib/postgresql/${entry.name}/bin/postgres`, "--version");
      }
    } catch {
      // not installed
    }
    return "missing";
  }
  const cpu = (await Deno.readTextFile("/proc/cpuinfo")).match(/model name\s*:\s*(.*)/)?.[1] ??
    "unknown";
  const memory =
    Number((await Deno.readTextFile("/proc/meminfo")).match(/MemTotal:\s*(\d+)/)?.[1]) /
    1024 / 1024;

  return {
    quick,
    started: started.toISOString(),
    minutes: Math.round((Date.now() - started.getTime()) / 60_000),
    loadBefore: loadBefore[0],
    loadAfter: loadAfter[0],
    machine: `${cpu}, ${navigator.hardwareConcurrency} cores, ${
      memory.toFixed(1)
    } GiB, Linux ${Deno.osRelease()}`,
    versions,
    techempowerCommand: `deno run -A bench/techempower/run.ts ${
      SETTINGS.techempower.join(" ")
    } --db both`,
    micro,
    loads,
    statics,
    techempower,
  };
}

const report: ReportData = RENDER
  ? JSON.parse(await Deno.readTextFile(DATA_FILE))
  : await measureAll(args.includes("--quick"), ONLY);
const { quick: QUICK, micro, loads, statics, techempower, versions } = report;

// ---- the report ----

const charts = new Map<string, string>();
const chart = (name: string, svg: string) => {
  charts.set(name, svg);
  return `![${name}](benchmarks/${name}.svg)`;
};
const fmt = (n: number, digits = 0) => n.toFixed(digits);
const range = (xs: number[], digits = 0) =>
  `${fmt(Math.min(...xs), digits)}–${fmt(Math.max(...xs), digits)}`;
const paired = (own: number[], base: number[]) => own.map((x, r) => x / base[r]);

const md: string[] = [];
md.push("# Benchmarks", "");
if (QUICK) {
  md.push(
    "> **Quick run on a busy machine.** These figures come from `deno task bench:report --quick`",
    "> (one second per case, three rounds, one for static files) on a shared 2-core machine with other",
    "> work running. They prove that the pipeline runs; they are not measurements to quote.",
    "> Regenerate them with `deno task bench:report` on a quiet machine.",
    "",
  );
}
md.push(
  `Generated by \`deno task bench:report${QUICK ? " --quick" : ""}\` on ${
    report.started.slice(0, 16).replace("T", " ")
  } UTC, in ${report.minutes} minutes.`,
  "",
  "| | |",
  "|---|---|",
  `| Machine | ${report.machine} |`,
  `| Load average (1 min) | ${fmt(report.loadBefore, 2)} before, ${
    fmt(report.loadAfter, 2)
  } after |`,
  `| Deno | ${versions.deno} |`,
  `| Node | ${versions.node} |`,
  `| Weft | ${versions.weft} (this repository) |`,
  `| Anchors (Deno) | ${versions.packages} |`,
  `| Anchors (Node) | ${versions.nodePackages} |`,
  `| Load generators | ${versions.wrk}; ${versions.h2load} |`,
  `| Servers | ${versions.nginx}; ${versions.postgres} |`,
  "",
  "Every figure below is a median over rounds, with the spread of the rounds next to it. Ratios",
  "are taken within each round (paired), so that a drift of the machine's speed between rounds",
  "cancels out; their median and range are given. The charts are drawn from the same data by",
  "`bench/report/svg.ts`.",
  "",
  "## How to run",
  "",
  "```sh",
  "deno task bench:report            # everything, about 25 minutes on 2 cores",
  "deno task bench:report --quick    # a second or two per case, to check the pipeline",
  "deno task bench:report --only micro,techempower   # some sections: micro, load, node, static, techempower",
  "```",
  "",
  "It needs wrk, h2load, nginx and PostgreSQL (`apt-get install wrk nghttp2-client nginx",
  "postgresql`), Node and npm; it builds the npm package (`deno task build:npm`) and installs the",
  "Node benchmarks' dependencies (`npm ci` in `bench/node` and `bench/techempower/node`). The",
  "load generator runs on core 1, the servers on core 0 (`taskset`). Each section below gives",
  "the command that reproduces its figures alone. Everything measured is kept in",
  "`docs/benchmarks/data.json`; `deno task bench:report --render` draws this page and its",
  "charts again from it without measuring.",
  "",
  "What CI runs (with `deno task test`), without timing anything:",
  "",
  "- `tests/scripts/techempower_check_test.ts`: the rules checker against Weft and Hono on Deno",
  "  with SQLite, and against a deliberately wrong server (it must report each violation). The",
  "  PostgreSQL and Node variants are checked by `deno run -A bench/techempower/check.ts`, which",
  "  starts and removes its own PostgreSQL cluster.",
  "- `tests/scripts/report_svg_test.ts`: the chart generator (scales, whiskers, escaping).",
  "- `tests/scripts/benchmarks_svg_browser_test.ts`: every chart this page links loads in",
  "  Chromium (`naturalWidth > 0`); ignored without Chromium unless `WEFT_REQUIRE_BROWSER=1`.",
  "",
);

if (micro) {
  md.push(
    "## Micro-benchmarks: router, JSON, templates, request handling",
    "",
    `\`${micro.command}\` (\`${micro.data[0]?.rounds}\` rounds per group, batches of about`,
    `${micro.data[0]?.batchMs} ms). Each group's cases run in interleaved batches; a case's`,
    "ratio is its time per call over the baseline's in the same round (lower is faster), with",
    "the 95% confidence interval of the median ratio. Also runnable one case after the other with",
    "`deno task bench` (`deno bench`).",
    "",
  );
  const kinds: [string, string, (title: string) => boolean][] = [
    ["micro-router", "Router lookups", (t) => t.startsWith("hono set") || t.startsWith("github")],
    ["micro-json", "JSON decoding and encoding", (t) => /^(de|en)code/.test(t)],
    ["micro-template", "Templates", (t) => t.startsWith("template")],
    ["micro-fetch", "Whole requests through app.fetch", (t) => t.startsWith("fetch")],
  ];
  for (const [name, heading, match] of kinds) {
    const groups = micro.data.filter((g) => match(g.title));
    if (groups.length === 0) continue;
    md.push(`### ${heading}`, "", "| Group | Case | Time per call | Ratio to baseline | 95% CI |");
    md.push("|---|---|---:|---:|---|");
    for (const group of groups) {
      for (const c of group.cases) {
        md.push(
          `| ${group.title} | ${c.name} | ${time(c.medianMs)} | ${
            c.baseline ? "baseline" : fmt(c.ratio, 3)
          } | ${c.baseline ? "" : `${fmt(c.ciLow, 3)}–${fmt(c.ciHigh, 3)}`} |`,
        );
      }
    }
    md.push("");
    const chartGroups: BarGroup[] = groups.map((g) => ({
      label: `${g.title} (baseline: ${g.cases.find((c) => c.baseline)?.name ?? "none"})`,
      bars: g.cases.filter((c) => !c.baseline).map((c) => ({
        label: c.name,
        value: c.ratio,
        low: c.ciLow,
        high: c.ciHigh,
        highlight: c.name.startsWith("weft"),
      })),
    }));
    md.push(
      chart(
        name,
        barChart({
          title: `${heading}: time per call relative to the baseline`,
          axis: "time per call ÷ baseline's, same round (lower is faster); whisker: 95% CI",
          reference: 1,
          groups: chartGroups,
        }),
      ),
      "",
    );
  }
}

function time(ms: number): string {
  const ns = ms * 1e6;
  return ns < 1e3
    ? `${fmt(ns, 1)} ns`
    : ns < 1e6
    ? `${fmt(ns / 1e3, 2)} µs`
    : `${fmt(ns / 1e6, 2)} ms`;
}

/** A table and a chart of a paired load run (bench/_load.ts's result). */
function loadSection(name: string, result: LoadResult, command: string, note: string[]): void {
  const anchor = result.kinds[0];
  md.push(
    `\`${command}\`: ${result.rounds} paired rounds of ${result.seconds} s per case after ${result.warmup} s`,
    "of warm-up.",
    ...note,
    "",
    `| Path | Server | req/s | rounds' range | CPU µs/req | req/s ÷ ${anchor} (paired) | rounds |`,
    "|---|---|---:|---|---:|---|---:|",
  );
  const groups: BarGroup[] = [];
  for (const path of result.paths) {
    const base = result.cells[path][anchor];
    const bars = [];
    for (const kind of result.kinds) {
      const own = result.cells[path][kind];
      const ratios = paired(own.rps, base.rps);
      md.push(
        `| \`${path}\` | ${kind} | ${fmt(median(own.rps))} | ${range(own.rps)} | ${
          fmt(median(own.cpuUs), 1)
        } | ${
          kind === anchor ? "anchor" : `${fmt(median(ratios), 3)} [${range(ratios, 3)}]`
        } | ${own.rps.length} |`,
      );
      bars.push({
        label: kind,
        value: median(ratios),
        low: Math.min(...ratios),
        high: Math.max(...ratios),
        highlight: kind.startsWith("weft"),
      });
    }
    groups.push({ label: path, bars });
  }
  md.push(
    "",
    chart(
      name,
      barChart({
        title: `${result.title}: requests/s relative to ${anchor}`,
        axis: `req/s ÷ ${anchor}'s in the same round (higher is better); whisker: rounds' range`,
        reference: 1,
        groups,
      }),
    ),
    "",
  );
}

const LOAD_HEADINGS: Record<string, [string, string[]]> = {
  "deno-h1": ["Load: Deno, HTTP/1.1", [
    "Raw `Deno.serve` (the anchor), Hono and Weft; `/` is a hello world, `/user/:id` a small",
    "JSON body, each behind two no-op middlewares (bench/load/servers.ts). wrk, 1 thread, 64",
    "connections.",
  ]],
  "deno-h2": ["Load: Deno, HTTP/2 over TLS", [
    "The same servers over TLS with ALPN; h2load, 16 connections × 8 streams.",
  ]],
  "node-h1": ["Load: Node, HTTP/1.1", [
    "Weft's npm build on Node against raw `node:http` (the anchor), Fastify and Hono on",
    "@hono/node-server (bench/node/servers.mjs).",
  ]],
};
for (const { name, result } of loads) {
  const [heading, note] = LOAD_HEADINGS[name];
  md.push(`## ${heading}`, "");
  loadSection(`load-${name}`, result.data, result.command, note);
}

if (statics) {
  const { data, command } = statics;
  md.push(
    "## Static files",
    "",
    `\`${command}\`: ${data.rounds} rounds of ${data.seconds} s per case (warm-up ${data.warmup} s),`,
    "the servers in alternating order. nginx (the anchor, one process, sendfile), Hono's",
    "serveStatic on Deno, a minimal raw `Deno.serve` file handler, Deno's ceiling (`mem`, files",
    "preloaded) and Weft's `staticFiles()`; wrk, 1 thread, 64 connections.",
    "",
    "| Case | Server | req/s | rounds' range | CPU µs/req | req/s ÷ nginx | rounds |",
    "|---|---|---:|---|---:|---|---:|",
  );
  const groups: BarGroup[] = [];
  for (const [name, byKind] of Object.entries(data.cases)) {
    const base = byKind.nginx;
    const bars = [];
    for (const kind of data.kinds) {
      const own = byKind[kind];
      if (!own) continue;
      const ratios = base ? paired(own.rps, base.rps) : [];
      md.push(
        `| ${name} | ${kind} | ${fmt(median(own.rps))} | ${range(own.rps)} | ${
          fmt(median(own.cpuUs), 1)
        } | ${
          kind === "nginx" || !base ? "anchor" : `${fmt(median(ratios), 3)} [${range(ratios, 3)}]`
        } | ${own.rps.length} |`,
      );
      if (base) {
        bars.push({
          label: kind,
          value: median(ratios),
          low: Math.min(...ratios),
          high: Math.max(...ratios),
          highlight: kind === "weft",
        });
      }
    }
    groups.push({ label: name, bars });
  }
  md.push(
    "",
    chart(
      "static",
      barChart({
        title: "Static files: requests/s relative to nginx",
        axis: "req/s ÷ nginx's in the same round (higher is better); whisker: rounds' range",
        reference: 1,
        groups,
      }),
    ),
    "",
  );
}

if (techempower) {
  md.push(
    "## TechEmpower-style workload",
    "",
    "The test types of the TechEmpower Framework Benchmarks, following their published rules:",
    "plaintext, JSON, single query (`/db`), multiple queries (`/queries?queries=20`), fortunes",
    "(all rows, one added at request time, sorted by message, rendered through a compiled Weft",
    "template with escaping) and updates (`/updates?queries=20`), for Weft on Deno, Weft on Node",
    "(the npm build), Hono on Deno and Fastify on Node. `bench/techempower/check.ts` verifies",
    "every implementation's responses against the rules (status, Server and Date headers,",
    "exact Content-Type, body shape, ids in 1..10 000, clamping of `queries`, fortunes sorted",
    "and escaped with the added row, updates persisted) before anything is timed; a violation",
    "stops the run. The databases: SQLite through `node:sqlite` (a seeded file per server) and",
    "PostgreSQL (a throwaway cluster created with initdb in a temporary directory, on a free",
    "loopback port, with `synchronous_commit=off`, removed at the end) through the `postgres`",
    "driver.",
    "",
    "```sh",
    "deno run -A bench/techempower/check.ts            # the rules, for every implementation",
    report.techempowerCommand,
    "```",
    "",
  );
  if (!techempower.data.sqlite?.kinds.some((k) => k.endsWith("-node"))) {
    md.push(
      `On Node ${versions.node}, \`node:sqlite\` is missing (it arrived in Node 22.5): the Node`,
      "implementations run on PostgreSQL only, and the SQLite section compares Weft and Hono on",
      "Deno.",
      "",
    );
  }
  for (const [engine, result] of Object.entries(techempower.data)) {
    const label = engine === "sqlite" ? "SQLite" : "PostgreSQL";
    md.push(`### On ${label}`, "");
    loadSection(`techempower-${engine}`, result, techempower.command, []);
    const pairs = [["weft-deno", "hono-deno"], ["weft-node", "fastify-node"]].filter(([a, b]) =>
      result.kinds.includes(a) && result.kinds.includes(b)
    );
    md.push(
      `| Test type | ${pairs.map(([a, b]) => `${a} ÷ ${b} (paired req/s)`).join(" | ")} |`,
      `|---|${pairs.map(() => "---").join("|")}|`,
    );
    for (const path of result.paths) {
      md.push(
        `| \`${path}\` | ${
          pairs.map(([a, b]) => {
            const ratios = paired(result.cells[path][a].rps, result.cells[path][b].rps);
            return `${fmt(median(ratios), 3)} [${range(ratios, 3)}]`;
          }).join(" | ")
        } |`,
      );
    }
    md.push("");
  }
}

await Deno.mkdir(`${root}docs/benchmarks`, { recursive: true });
for (const [name, svg] of charts) {
  await Deno.writeTextFile(`${root}docs/benchmarks/${name}.svg`, svg);
}
await Deno.writeTextFile(`${root}docs/benchmarks.md`, md.join("\n"));
if (!RENDER) await Deno.writeTextFile(DATA_FILE, JSON.stringify(report, null, 2) + "\n");
// formatted as `deno fmt --check` (in `deno task check`) wants the repository's files
await step([Deno.execPath(), "fmt", "--quiet", "docs/benchmarks.md", "docs/benchmarks/"]);
console.log(`\nwrote docs/benchmarks.md and ${charts.size} charts in docs/benchmarks/`);
