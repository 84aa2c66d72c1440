/**
 * Generates the checks of a module's schemas ahead of time:
 *
 * ```sh
 * deno run -A lib/json/cli.ts <schemas.ts> [--out <file>] [--runtime <specifier>] [--check]
 * ```
 *
 * imports `<schemas.ts>` and writes `<schemas>.checks.ts` beside it (or `--out`), which exports
 * the same schemas with checks written as code for them (see precompiled.ts). `--runtime` is
 * how the generated module imports `weft/json` (default `weft/json`). `--check` writes nothing
 * and exits 1 when the generated module is missing or out of date (for CI).
 *
 * @module
 */
import { readFileSync, writeFileSync } from "node:fs";
import { dirname, relative, resolve } from "node:path";
import process from "node:process";
import { pathToFileURL } from "node:url";
import { generateChecks } from "./codegen.ts";

const USAGE = `Usage: cli.ts <schemas.ts> [--out <file>] [--runtime <specifier>] [--check]

Writes <schemas>.checks.ts: the schemas <schemas.ts> exports, with checks generated as code.

Options:
  --out <file>            write the module there instead
  --runtime <specifier>   how the module imports weft/json (default: weft/json)
  --check                 write nothing; exit 1 when the module is missing or out of date
  -h, --help              show this help`;

interface Options {
  file: string;
  out?: string;
  runtime: string;
  check: boolean;
}

function parseArgs(args: string[]): Options | string {
  const positional: string[] = [];
  const options: Omit<Options, "file"> = { runtime: "weft/json", check: false };
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (arg === "--check") options.check = true;
    else if (arg === "--out" || arg === "--runtime") {
      const value = args[++i];
      if (value === undefined) return `Missing value after ${arg}`;
      if (arg === "--out") options.out = value;
      else options.runtime = value;
    } else if (arg.startsWith("-")) return `Unknown option ${arg}`;
    else positional.push(arg);
  }
  if (positional.length !== 1) return "Expected exactly one module of schemas";
  return { file: positional[0], ...options };
}

/**
 * Runs the command line with `args` (without the program name).
 *
 * @param args The arguments, e.g. `["bench/json_schemas.ts", "--check"]`.
 * @returns The exit code.
 */
export async function main(args: string[]): Promise<number> {
  if (args.includes("-h") || args.includes("--help")) {
    console.log(USAGE);
    return 0;
  }
  const options = parseArgs(args);
  if (typeof options === "string") {
    console.error(`error: ${options}\n\n${USAGE}`);
    return 2;
  }
  const file = resolve(options.file);
  const out = resolve(options.out ?? file.replace(/(\.[cm]?[jt]sx?)?$/, ".checks.ts"));
  let schemas = relative(dirname(out), file).replaceAll("\\", "/");
  if (!schemas.startsWith(".")) schemas = `./${schemas}`;
  let code: string;
  try {
    const exports = await import(pathToFileURL(file).href);
    code = generateChecks(exports, { schemas, runtime: options.runtime });
  } catch (error) {
    console.error(`error: ${options.file}: ${error instanceof Error ? error.message : error}`);
    return 1;
  }
  let current: string | undefined;
  try {
    current = readFileSync(out, "utf8");
  } catch {
    current = undefined;
  }
  if (options.check) {
    if (current === code) {
      console.log(`${relative(".", out)} is up to date`);
      return 0;
    }
    console.error(
      `error: ${relative(".", out)} is ${current === undefined ? "missing" : "out of date"}; ` +
        "generate the checks again",
    );
    return 1;
  }
  if (current !== code) writeFileSync(out, code);
  console.log(`${relative(".", out)}: ${current === code ? "up to date" : "written"}`);
  return 0;
}

if (import.meta.main) process.exitCode = await main(process.argv.slice(2));
