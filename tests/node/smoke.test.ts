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

test("weft/jwt verifies tokens from the packed package, with jose installed as its dependency", async () => {
  assert.ok(manifest.dependencies.jose, "jose is a dependency of the npm package");
  writeFileSync(
    join(project, "jwt.mjs"),
    `
import { createHmac } from "node:crypto";
import { chain, get, router, serve } from "weft";
import { jwt } from "weft/jwt";
import { exportJWK, generateKeyPair, SignJWT } from "jose";
const secret = "a-jwt-secret-of-at-least-thirty-two-bytes";
const app = chain([jwt({ secret, algorithms: ["HS256"] })], router([
  get("/me", (ctx) => ctx.json({ sub: ctx.var.user.sub })),
]));
const server = serve(app, { port: 0, hostname: "127.0.0.1", onListen() {} });
const token = await new SignJWT({ sub: "node" }).setProtectedHeader({ alg: "HS256" })
  .setExpirationTime("1m").sign(new TextEncoder().encode(secret));
const base = "http://127.0.0.1:" + server.addr.port + "/me";
const ok = await fetch(base, { headers: { authorization: "Bearer " + token } });
const bad = await fetch(base, { headers: { authorization: "Bearer " + token.slice(0, -3) } });
// an exp JSON.parse reads as Infinity: a token that would never expire
const b64 = (text) => Buffer.from(text).toString("base64url");
const input = b64('{"alg":"HS256"}') + "." + b64('{"sub":"node","exp":1e400}');
const mac = createHmac("sha256", secret).update(input).digest("base64url");
const forever = await fetch(base, { headers: { authorization: "Bearer " + input + "." + mac } });
let tolerance = "accepted";
try {
  jwt({ secret, algorithms: ["HS256"], clockTolerance: "abc" });
} catch (error) {
  tolerance = error.name + ": " + error.message;
}
// a key set that rotates: two keys fit a token without a kid, the second one signed it
const [older, newer] = await Promise.all([generateKeyPair("ES256"), generateKeyPair("ES256")]);
const rotating = chain([jwt({
  jwks: { keys: [await exportJWK(older.publicKey), await exportJWK(newer.publicKey)] },
  algorithms: ["ES256"],
})], router([get("/me", (ctx) => ctx.json({ sub: ctx.var.user.sub }))]));
const signedByNewer = await new SignJWT({ sub: "rotated" }).setProtectedHeader({ alg: "ES256" })
  .setExpirationTime("1m").sign(newer.privateKey);
const rotated = await rotating.fetch(new Request("http://localhost/me", {
  headers: { authorization: "Bearer " + signedByNewer },
}));
const out = {
  ok: ok.status,
  body: await ok.json(),
  bad: bad.status,
  challenge: bad.headers.get("www-authenticate"),
  forever: forever.status,
  foreverChallenge: forever.headers.get("www-authenticate"),
  tolerance,
  rotated: rotated.status,
};
await server.shutdown();
console.log(JSON.stringify(out));
`,
  );
  const out = JSON.parse(await run(process.execPath, ["jwt.mjs"], project));
  assert.deepEqual(out.body, { sub: "node" });
  assert.equal(out.ok, 200);
  assert.equal(out.bad, 401);
  assert.match(out.challenge, /error="invalid_token", error_description="The token's signature/);
  assert.equal(out.forever, 401);
  assert.match(out.foreverChallenge, /error_description="The token's exp claim is missing/);
  // checked when jwt() is created: jose refused it on every request, a 500 each
  assert.match(out.tolerance, /^TypeError: Cannot create jwt\(\): clockTolerance "abc"/);
  assert.equal(out.rotated, 200, "a token without a kid, signed by the second key of the set");
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

test("the weft-templates bin refuses a template that is not UTF-8, at its first bad byte", async () => {
  const dir = join(project, "latin1");
  mkdirSync(dir, { recursive: true });
  // Saved as Latin-1: "é" is the byte 0xE9, which a lenient read turned into U+FFFD.
  writeFileSync(
    join(dir, "menu.html"),
    Buffer.from("<ul>\n\t<li>Caf\xe9 {{ x }}</li>\n", "latin1"),
  );
  const { code, stderr } = await runChild("npx", {
    args: ["--no-install", "weft-templates", "latin1"],
    cwd: project,
    deadlineMs: 50_000,
  });
  assert.equal(code, 1);
  assert.match(
    new TextDecoder().decode(stderr),
    /latin1\/menu\.html:2:9: Invalid UTF-8 \(byte 0xE9\): save the template as UTF-8\n/,
  );
});

test("require() loads every entry point from CommonJS, as Node >= 20.19 loads ES modules", async () => {
  const entries: Record<string, string> = {
    weft: "router",
    "weft/json": "json",
    "weft/wsgi": "StaticMiddleware",
    "weft/template": "compileTemplate",
    "weft/jwt": "jwt",
    "weft/redis": "redisTransport",
    "weft/multipart": "multipart",
    "weft/compress": "compress",
    "weft/openapi": "openapi",
    "weft/client": "client",
  };
  for (const [name, member] of Object.entries(entries)) {
    const script = `const m = require(${JSON.stringify(name)}); ` +
      `if (typeof m[${JSON.stringify(member)}] === "undefined") throw new Error("no ${member}");` +
      ` console.log("loaded")`;
    const out = await run(process.execPath, ["-e", script], project);
    assert.match(out, /loaded/, name);
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
