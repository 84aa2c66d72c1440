// The npm package the way a user gets it: `npm pack` npm/, install the tarball into a scratch
// project, import every entry point from plain Node (no vitest transform), serve and fetch,
// and run the template compiler through its `weft-templates` bin.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import assert from "node:assert/strict";
import { afterAll, beforeAll, test } from "vitest";
import { runChild } from "./_child.ts";

const npmDir = fileURLToPath(new URL("../../npm", import.meta.url));
const manifest = JSON.parse(readFileSync(join(npmDir, "package.json"), "utf8"));
let project: string;

// Deadlines stay below vitest's timeouts (60 s a test, 120 s a hook), so that a hung npm is
// killed and named rather than left running.
async function run(
  command: string,
  args: string[],
  cwd: string,
  deadlineMs = 50_000,
): Promise<string> {
  const { success, stdout, stderr } = await runChild(command, { args, cwd, deadlineMs });
  const decoder = new TextDecoder();
  if (!success) {
    throw new Error(
      `${command} ${args.join(" ")} failed:\n${decoder.decode(stdout)}${decoder.decode(stderr)}`,
    );
  }
  return decoder.decode(stdout);
}

beforeAll(async () => {
  project = mkdtempSync(join(tmpdir(), "weft-smoke-"));
  const packed = JSON.parse(
    await run(
      "npm",
      ["pack", npmDir, "--json", "--pack-destination", project],
      project,
    ),
  );
  const tarball = join(project, packed[0].filename);
  writeFileSync(
    join(project, "package.json"),
    JSON.stringify({ name: "weft-smoke", private: true, type: "module" }),
  );
  await run(
    "npm",
    [
      "install",
      tarball,
      "--no-audit",
      "--no-fund",
      "--prefer-offline",
      "--no-package-lock",
    ],
    project,
    100_000,
  );
});

afterAll(() => {
  if (project) rmSync(project, { recursive: true, force: true });
});

test("every entry point imports from Node; serve() answers a fetch", async () => {
  const entries = Object.keys(manifest.exports)
    .filter((key) => key !== "./package.json")
    .map((key) => key === "." ? "weft" : `weft/${key.slice(2)}`);
  assert.ok(entries.includes("weft") && entries.includes("weft/wsgi"));
  writeFileSync(
    join(project, "check.mjs"),
    `
const names = ${JSON.stringify(entries)};
const modules = {};
for (const name of names) modules[name] = Object.keys(await import(name)).sort();
const { chain, get, router, serve } = await import("weft");
const app = chain([(ctx, next) => next()], router([
  get("/users/:id", (ctx) => ctx.json({ id: ctx.params.id })),
]));
const server = serve(app, { port: 0, hostname: "127.0.0.1", onListen() {} });
const res = await fetch("http://127.0.0.1:" + server.addr.port + "/users/7");
const body = await res.json();
await server.shutdown();
console.log(JSON.stringify({ modules, status: res.status, body }));
`,
  );
  const out = JSON.parse(await run(process.execPath, ["check.mjs"], project));
  assert.equal(out.status, 200);
  assert.deepEqual(out.body, { id: "7" });
  for (const name of entries) {
    assert.ok(out.modules[name].length > 0, `${name} exports nothing`);
  }
  assert.ok(out.modules.weft.includes("serve"));
  assert.ok(out.modules["weft/wsgi"].includes("StaticMiddleware"));
});

test("the weft-templates bin compiles a template into a typed module", async () => {
  const dir = join(project, "templates");
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "hello.html"), "<p>Hello {{ name }}</p>\n");
  const help = await run(
    "npx",
    ["--no-install", "weft-templates", "--help"],
    project,
  );
  assert.match(help, /Usage/);
  const out = await run(
    "npx",
    ["--no-install", "weft-templates", "templates"],
    project,
  );
  assert.match(out, /Compiled 1 template/);
  const module = readFileSync(join(dir, "hello.ts"), "utf8");
  assert.match(module, /export function render/);
});

test("require() of an entry point fails saying the package is ESM only and how to import it", async () => {
  for (const name of ["weft", "weft/json", "weft/wsgi", "weft/template"]) {
    const failure = await run(process.execPath, ["-e", `require(${JSON.stringify(name)})`], project)
      .then(() => "", (error: Error) => error.message);
    assert.ok(failure.includes(`Cannot require("${name}"): the package is ESM only`), failure);
    assert.ok(failure.includes(`import { … } from "${name}"`), failure);
    assert.ok(failure.includes(`await import("${name}")`), failure);
  }
});

test("the package's README is written for Node: npm install, imports from weft, node app.mjs", () => {
  const readme = readFileSync(join(project, "node_modules", "weft", "README.md"), "utf8");
  assert.match(readme, /npm install weft/);
  assert.match(readme, /from "weft"/);
  assert.match(readme, /node app\.mjs/);
  assert.match(readme, /weft-templates/);
  assert.doesNotMatch(readme, /\.\/mod\.ts|npx -y deno|deno task/);
});
