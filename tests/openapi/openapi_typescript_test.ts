// A real client generator consumes the documents: openapi-typescript (npm) turns the demo app's
// document into TypeScript types, and `deno check` accepts them, with a use of them that must
// type-check and one that must not.
import assert from "node:assert/strict";
import openapiTS, { astToString } from "openapi-typescript";
import { openapi } from "../../lib/openapi/mod.ts";
import { router } from "../../mod.ts";
import { runChild } from "../_child.ts";
import { generatedRoutes } from "./_generated.ts";

async function typesOf(doc: unknown): Promise<string> {
  return astToString(await openapiTS(structuredClone(doc) as never));
}

async function check(dir: string, code: string): Promise<{ success: boolean; stderr: string }> {
  await Deno.writeTextFile(`${dir}/use.ts`, code);
  const { success, stderr } = await runChild(Deno.execPath(), {
    what: "deno check of the generated types",
    args: ["check", "--no-lock", "--no-config", `${dir}/use.ts`],
    cwd: dir,
  });
  return { success, stderr: new TextDecoder().decode(stderr) };
}

Deno.test("openapi-typescript turns the demo's document into types deno check accepts", async () => {
  const { app } = await import("../../examples/app.ts");
  const res = await app.fetch(new Request("http://localhost/openapi.json"));
  const dir = await Deno.makeTempDir({ prefix: "weft-openapi-" });
  try {
    await Deno.writeTextFile(`${dir}/api.ts`, await typesOf(await res.json()));
    const use = `import type { paths } from "./api.ts";\n` +
      `type Note = paths["/api/notes/{id}"]["get"]["responses"][200]["content"]["application/json"];\n` +
      `type Id = paths["/api/notes/{id}"]["get"]["parameters"]["path"]["id"];\n` +
      `const note: Note = { id: 1, author: "ada", text: "hi" };\n` +
      `const id: Id = 7;\n` +
      `console.log(note, id);\n`;
    const good = await check(dir, use);
    assert.ok(good.success, good.stderr);
    // The types say something: an id is a number (from validate()), not a string.
    const bad = await check(dir, use.replace("const id: Id = 7;", 'const id: Id = "7";'));
    assert.equal(bad.success, false);
    assert.match(bad.stderr, /TS2322/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("openapi-typescript turns a generated 200-route app's document into checked types", async () => {
  const doc = openapi(router(generatedRoutes(200)), { title: "Generated", version: "1" });
  const dir = await Deno.makeTempDir({ prefix: "weft-openapi-" });
  try {
    await Deno.writeTextFile(`${dir}/api.ts`, await typesOf(doc));
    const result = await check(
      dir,
      `import type { paths } from "./api.ts";\n` +
        `type Body = paths["/r7/{id}/items"]["post"]["requestBody"]["content"]["application/json"];\n` +
        `const body: Body = { id: 1, name: "x" };\nconsole.log(body);\n`,
    );
    assert.ok(result.success, result.stderr);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
