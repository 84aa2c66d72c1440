// Builds the npm package into npm/ (what dnt did; dnt is JSR-only and unreachable here):
//
//   1. stage the published sources into .build/ with every import of lib/server/deno.ts
//      pointed at lib/server/node.ts (the module mapping), the private parts of the Node
//      adapter (lib/server/_node_*.ts) next to it, and a deno.json that adds the template CLI
//      to the graph;
//   2. `deno pack --no-source-maps`: TS → JS with `.js` specifiers, .d.ts for the public API,
//      `npm:` specifiers → bare names; type-checks the Node variant of the whole graph;
//   3. unpack into npm/, drop what no export reaches, add the `weft-templates` bin shim and
//      write the package.json (exports derived from deno.json's: ES modules, which CommonJS
//      loads with require() too, as Node ≥ 20.19 does), the README for Node users
//      (scripts/npm_readme.md) and LICENSE;
//      `ws` goes in as an ES module of its own (lib/server/_ws.js, its license at the top,
//      built with esbuild from the version deno.json names): a CommonJS package in the graph
//      would need a `require` that an ES module bundle of an app does not have, and would
//      bring esbuild's CommonJS helpers into the chunk every app loads;
//   4. verify: every relative specifier in npm/ resolves to a file, no `.ts`/`npm:`/`jsr:`
//      specifier is left, no module imports `ws`, and no file of the Deno adapter slipped in.
//
//   deno run -A scripts/build_npm.ts               into npm/ (staged in .build/)
//   deno run -A scripts/build_npm.ts --out <dir>   into <dir> (staged in <dir>.stage), so that
//                                                  builds at the same time share no folder
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import * as esbuild from "esbuild";

const ROOT = fileURLToPath(new URL("..", import.meta.url)).replace(/\/$/, "");
const OUT_AT = Deno.args.indexOf("--out");
if (OUT_AT !== -1 && !Deno.args[OUT_AT + 1]) {
  console.error("usage: deno run -A scripts/build_npm.ts [--out <dir>]");
  Deno.exit(2);
}
const OUT = OUT_AT === -1 ? join(ROOT, "npm") : resolve(Deno.args[OUT_AT + 1]);
const STAGE = OUT_AT === -1 ? join(ROOT, ".build") : `${OUT}.stage`;
const DENO_ADAPTER = "lib/server/deno.ts";
const NODE_ADAPTER = "lib/server/node.ts";
const NODE_PARTS = /^_node_[a-z0-9_]+\.ts$/; // in lib/server/, imported by NODE_ADAPTER only
const CLI = "lib/template/cli.ts";
const CLI_EXPORT = "./_template_cli"; // in the staged deno.json only, so that pack emits it
const BIN_NAME = "weft-templates";
// The repository's README.md is written for Deno (`./mod.ts`, `npx deno`); npm users get this.
const NPM_README = "scripts/npm_readme.md";
const NPM_NAME = "weft";
const NODE_ENGINE = ">=20.19.0";
const DESCRIPTION = "A TypeScript web framework on Web-standard Request/Response: a radix-tree " +
  "router, an onion middleware chain, a typed context and serve() for HTTP/1.1 and HTTP/2 " +
  "(node:http, node:http2), with a WSGI-convention static middleware and a template compiler";
// The public repository. There is no git remote in this clone to derive it from.
const REPOSITORY = "git+https://github.com/weft-framework/weft.git";
const KEYWORDS = [
  "web framework",
  "router",
  "middleware",
  "http2",
  "request",
  "response",
  "wsgi",
];

interface DenoConfig {
  name: string;
  version: string;
  exports: string | Record<string, string>;
  imports?: Record<string, string>;
  publish?: { include?: string[]; exclude?: string[] };
}

async function run(cmd: string, args: string[], cwd: string): Promise<string> {
  const out = await new Deno.Command(cmd, {
    args,
    cwd,
    stdout: "piped",
    stderr: "piped",
  })
    .output();
  const text = new TextDecoder().decode(out.stdout) +
    new TextDecoder().decode(out.stderr);
  if (!out.success) {
    throw new Error(`${cmd} ${args.join(" ")} failed:\n${text}`);
  }
  return text;
}

async function* walk(dir: string): AsyncGenerator<string> {
  for await (const entry of Deno.readDir(dir)) {
    const path = join(dir, entry.name);
    if (entry.isDirectory) yield* walk(path);
    else if (entry.isFile) yield path;
  }
}

/** The module specifiers of a JS/TS source, comments left out (doc examples import too). */
export function specifiers(source: string): string[] {
  const code = source.replace(/\/\*[\s\S]*?\*\//g, "").replace(
    /^\s*\/\/.*$/gm,
    "",
  );
  const found: string[] = [];
  const patterns = [
    /\bfrom\s*["']([^"']+)["']/g,
    /\bimport\s*\(\s*["']([^"']+)["']\s*\)/g,
    /^\s*import\s*["']([^"']+)["']/gm,
  ];
  for (const pattern of patterns) {
    for (const match of code.matchAll(pattern)) found.push(match[1]);
  }
  return found;
}

// 1. Stage: copy what deno.json publishes, and point imports of the Deno adapter at Node's.
async function stage(config: DenoConfig): Promise<void> {
  await Deno.remove(STAGE, { recursive: true }).catch(() => {});
  await Deno.mkdir(STAGE, { recursive: true });
  const include = (config.publish?.include ?? ["mod.ts", "lib/", "README.md", "LICENSE"])
    .filter((path) => path !== "deno.json");
  for (const path of include) {
    const from = join(ROOT, path);
    const info = await Deno.stat(from);
    if (info.isDirectory) {
      for await (const file of walk(from)) await copy(relative(ROOT, file));
    } else await copy(path);
  }
  // The Node adapter whatever publish.include/exclude say (JSR users never need it).
  await copy(NODE_ADAPTER);
  for await (const entry of Deno.readDir(join(ROOT, dirname(NODE_ADAPTER)))) {
    if (entry.isFile && NODE_PARTS.test(entry.name)) {
      await copy(join(dirname(NODE_ADAPTER), entry.name));
    }
  }
  await Deno.remove(join(STAGE, DENO_ADAPTER)).catch(() => {});

  const exports = typeof config.exports === "string" ? { ".": config.exports } : config.exports;
  const staged = {
    name: config.name,
    version: config.version,
    exports: { ...exports, [CLI_EXPORT]: `./${CLI}` },
    imports: config.imports ?? {},
    nodeModulesDir: "none",
  };
  await Deno.writeTextFile(
    join(STAGE, "deno.json"),
    JSON.stringify(staged, null, 2) + "\n",
  );
}

async function copy(path: string): Promise<void> {
  const from = join(ROOT, path);
  const to = join(STAGE, path);
  await Deno.mkdir(dirname(to), { recursive: true });
  if (!/\.(ts|tsx|js|mjs)$/.test(path)) {
    await Deno.copyFile(from, to);
    return;
  }
  const source = await Deno.readTextFile(from);
  await Deno.writeTextFile(to, mapAdapter(path, source));
}

/** Rewrites relative specifiers of `path` that name the Deno adapter to the Node adapter. */
export function mapAdapter(path: string, source: string): string {
  const base = dirname(join("/", path));
  return source.replace(
    /(\bfrom\s*|\bimport\s*\(\s*|^\s*import\s*)(["'])(\.{1,2}\/[^"']+)\2/gm,
    (whole, lead: string, quote: string, specifier: string) => {
      if (resolve(base, specifier) !== join("/", DENO_ADAPTER)) return whole;
      let target = relative(base, join("/", NODE_ADAPTER));
      if (!target.startsWith(".")) target = `./${target}`;
      return `${lead}${quote}${target}${quote}`;
    },
  );
}

// 2. Pack.
async function pack(): Promise<string> {
  const tarball = join(STAGE, "weft.tgz");
  const log = await run(Deno.execPath(), [
    "pack",
    "--no-source-maps",
    "--allow-dirty",
    "--output",
    tarball,
  ], STAGE);
  const untyped = [...log.matchAll(/Could not generate types for '([^']+)'/g)].length;
  console.log(
    `deno pack: ${untyped} internal modules without .d.ts (no public type needs them)`,
  );
  return tarball;
}

// 3. Unpack and complete the package.
async function complete(
  config: DenoConfig,
  tarball: string,
): Promise<string[]> {
  await Deno.remove(OUT, { recursive: true }).catch(() => {});
  await Deno.mkdir(OUT, { recursive: true });
  await run("tar", ["-xzf", tarball, "-C", OUT, "--strip-components=1"], ROOT);
  const packed = JSON.parse(await Deno.readTextFile(join(OUT, "package.json")));

  // Sources that no export reaches are copied by pack as they are: leave them out.
  const dropped: string[] = [];
  for await (const file of walk(OUT)) {
    if (/\.tsx?$/.test(file) && !file.endsWith(".d.ts")) {
      dropped.push(relative(OUT, file));
      await Deno.remove(file);
    }
  }

  const exports: Record<string, Record<string, unknown> | string> = {};
  const declared = typeof config.exports === "string" ? { ".": config.exports } : config.exports;
  for (const [key, source] of Object.entries(declared)) {
    const js = source.replace(/\.ts$/, ".js");
    const types = source.replace(/\.ts$/, ".d.ts");
    for (const file of [js, types]) {
      await Deno.stat(join(OUT, file)).catch(() => {
        throw new Error(
          `Export "${key}" (${source}): deno pack wrote no ${file}`,
        );
      });
    }
    // One condition for import() and require(): Node ≥ 20.19 (the engines floor) loads an ES
    // module with require() when its graph has no top-level await, and no entry point has one
    // (tests/node/smoke.test.ts requires each from CommonJS).
    exports[key] = { types, default: js };
  }
  exports["./package.json"] = "./package.json";

  await Deno.mkdir(join(OUT, "bin"), { recursive: true });
  const bin = join(OUT, "bin", `${BIN_NAME}.js`);
  await Deno.writeTextFile(
    bin,
    [
      "#!/usr/bin/env node",
      "// The weft-templates command: compiles HTML templates into typed TS modules.",
      'import process from "node:process";',
      `import { main } from "../${CLI.replace(/\.ts$/, ".js")}";`,
      "",
      "process.exitCode = await main(process.argv.slice(2));",
      "",
    ].join("\n"),
  );
  await Deno.chmod(bin, 0o755);

  const dependencies: Record<string, string> = packed.dependencies ?? {};
  if (dependencies.ws === undefined) {
    throw new Error("deno pack found no dependency on ws");
  }
  await vendorWs(config);
  delete dependencies.ws;
  // weft/jwt (lib/jwt/mod.ts) verifies tokens with jose; the core stays free of it.
  if (dependencies.jose === undefined) {
    throw new Error("deno pack found no dependency on jose (weft/jwt needs it)");
  }
  // weft/redis is built on ioredis: the package must bring it.
  if (declared["./redis"] !== undefined && dependencies.ioredis === undefined) {
    throw new Error("deno pack found no dependency on ioredis (weft/redis)");
  }
  const pkg = {
    name: NPM_NAME,
    version: config.version,
    description: DESCRIPTION,
    keywords: KEYWORDS,
    license: "MIT",
    repository: { type: "git", url: REPOSITORY },
    homepage: `https://jsr.io/${config.name}`,
    type: "module",
    engines: { node: NODE_ENGINE },
    sideEffects: false,
    exports,
    bin: { [BIN_NAME]: `./bin/${BIN_NAME}.js` },
    dependencies,
  };
  await Deno.writeTextFile(
    join(OUT, "package.json"),
    JSON.stringify(pkg, null, 2) + "\n",
  );
  await Deno.copyFile(join(ROOT, NPM_README), join(OUT, "README.md"));
  await Deno.copyFile(join(ROOT, "LICENSE"), join(OUT, "LICENSE"));
  return dropped;
}

/** The module of the Node adapter that imports `ws`, and the vendored module it imports. */
const WS_IMPORTER = "lib/server/_node_ws_handshake.js";
const WS_VENDORED = "lib/server/_ws.js";

/**
 * Writes `ws` (the version deno.json maps "ws" to) as one ES module with its license, and points
 * the adapter's import at it. ws `require()`s Node's built-in modules, and tries the optional
 * native addons bufferutil and utf-8-validate, doing without them when they are absent. The
 * module's own `require` gives built-in modules only (process.getBuiltinModule, Node 20.16):
 * it needs nothing of the app's bundle in either output format, resolves no path (a module
 * planted in the working directory is never loaded), and ws uses its JavaScript fallbacks
 * (Node's own buffer.isUtf8 validates UTF-8).
 */
async function vendorWs(config: DenoConfig): Promise<void> {
  const mapped = /^npm:ws@(\d+\.\d+\.\d+)$/.exec(config.imports?.ws ?? "");
  if (mapped === null) throw new Error('deno.json must map "ws" to npm:ws@<exact version>');
  const version = mapped[1];
  const info = JSON.parse(await run(Deno.execPath(), ["info", "--json"], ROOT));
  // One folder per registry host in Deno's npm cache (registry.npmjs.org, or a mirror's).
  let dir: string | undefined;
  for await (const registry of Deno.readDir(info.npmCache)) {
    const candidate = join(info.npmCache, registry.name, "ws", version);
    if (registry.isDirectory && await Deno.stat(join(candidate, "LICENSE")).catch(() => null)) {
      dir = candidate;
    }
  }
  if (dir === undefined) {
    throw new Error(
      `ws ${version} is not in Deno's npm cache (${info.npmCache}), where deno pack puts it`,
    );
  }
  const license = await Deno.readTextFile(join(dir, "LICENSE"));
  try {
    await esbuild.build({
      entryPoints: [join(dir, "wrapper.mjs")],
      bundle: true,
      format: "esm",
      platform: "node",
      target: "node20",
      external: ["bufferutil", "utf-8-validate"],
      outfile: join(OUT, WS_VENDORED),
      banner: {
        js: [
          `/*! ws ${version}, https://github.com/websockets/ws, bundled as an ES module for weft.`,
          license.trim().replaceAll("*/", "* /"),
          "*/",
          "const require = (id) => {",
          "  const builtin = process.getBuiltinModule(id);",
          "  if (builtin !== undefined) return builtin;",
          '  const error = new Error(`Cannot find module "${id}" (weft\'s ws loads Node built-ins only)`);',
          '  error.code = "MODULE_NOT_FOUND";',
          "  throw error;",
          "};",
        ].join("\n"),
      },
      legalComments: "inline",
      logLevel: "error",
    });
  } finally {
    await esbuild.stop();
  }
  const importer = join(OUT, WS_IMPORTER);
  const source = await Deno.readTextFile(importer);
  const rewritten = source.replace(/(\bfrom\s*)(["'])ws\2/, '$1"./_ws.js"');
  if (rewritten === source) throw new Error(`${WS_IMPORTER} no longer imports "ws"`);
  await Deno.writeTextFile(importer, rewritten);
}

// 4. Verify the output's module graph.
async function verify(): Promise<number> {
  const problems: string[] = [];
  let files = 0;
  for await (const file of walk(OUT)) {
    if (!/\.(js|d\.ts)$/.test(file)) continue;
    files++;
    const name = relative(OUT, file);
    if (name === "lib/server/deno.js" || name === "lib/server/deno.d.ts") {
      problems.push(`${name}: the Deno adapter is in the package`);
    }
    for (const specifier of specifiers(await Deno.readTextFile(file))) {
      if (specifier === "ws" && name !== WS_VENDORED) {
        problems.push(`${name}: imports ws, which the package carries as ${WS_VENDORED}`);
      } else if (/^(npm|jsr|https?|file):/.test(specifier)) {
        problems.push(`${name}: unmapped specifier ${specifier}`);
      } else if (specifier.startsWith(".")) {
        if (!specifier.endsWith(".js")) {
          problems.push(`${name}: ${specifier} does not end in .js`);
        }
        const target = resolve(dirname(file), specifier);
        const candidates = file.endsWith(".d.ts")
          ? [target.replace(/\.js$/, ".d.ts"), target]
          : [target];
        const exists = await Promise.any(candidates.map((c) => Deno.stat(c)))
          .then(
            () => true,
            () => false,
          );
        if (!exists) problems.push(`${name}: ${specifier} does not resolve`);
      }
    }
  }
  if (problems.length > 0) {
    throw new Error(`npm/ is broken:\n  ${problems.join("\n  ")}`);
  }
  return files;
}

if (import.meta.main) {
  const config: DenoConfig = JSON.parse(
    await Deno.readTextFile(join(ROOT, "deno.json")),
  );
  await stage(config);
  const tarball = await pack();
  const dropped = await complete(config, tarball);
  if (dropped.length > 0) {
    console.log(
      `left out (no export reaches them): ${dropped.sort().join(", ")}`,
    );
  }
  const files = await verify();
  console.log(
    `npm/: ${NPM_NAME}@${config.version}, ${files} modules and declarations`,
  );
}
