/**
 * The template compiler's command line:
 *
 * ```sh
 * deno run -A lib/template/cli.ts <dir> [--out <dir>] [--check] [--watch]
 * ```
 *
 * compiles every `*.html` under `<dir>` into a `.ts` module beside it (or under `--out`).
 * `--check` writes nothing and exits 1 when a module is missing or stale (for CI); `--watch`
 * compiles again whenever a template changes. Every error of every template is printed as
 * `file:line:column: reason` with a caret excerpt, and the exit code is 1 when there is any.
 * Only `node:` built-ins are used, so the same file runs on Node (the npm build's `bin`).
 *
 * @module
 */
import { watch } from "node:fs";
import process from "node:process";
import { compileDirectory, type CompileDirectoryResult } from "./compile_directory.ts";

const USAGE = `Usage: cli.ts <dir> [--out <dir>] [--check] [--watch]

Compiles every *.html template under <dir> into a sibling .ts module.

Options:
  --out <dir>  write the modules under <dir> instead, mirroring the folders
  --check      write nothing; exit 1 when a module is missing or out of date
  --watch      compile again whenever a template changes
  -h, --help   show this help`;

interface Options {
  dir: string;
  out?: string;
  check: boolean;
  watch: boolean;
}

function parseArgs(args: string[]): Options | string {
  const positional: string[] = [];
  const options: Omit<Options, "dir"> = { check: false, watch: false };
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (arg === "--check") options.check = true;
    else if (arg === "--watch") options.watch = true;
    else if (arg === "--out") {
      const value = args[++i];
      if (value === undefined) return "Missing folder after --out";
      options.out = value;
    } else if (arg.startsWith("--out=")) options.out = arg.slice(6);
    else if (arg.startsWith("-")) return `Unknown option ${arg}`;
    else positional.push(arg);
  }
  if (positional.length !== 1) return "Expected exactly one template folder";
  if (options.check && options.watch) return "Cannot combine --check and --watch";
  return { dir: positional[0], ...options };
}

function report(result: CompileDirectoryResult, check: boolean): number {
  for (const error of result.errors) console.error(`${error.message}\n`);
  for (const file of result.stale) console.error(`stale: ${file}`);
  const failed = new Set(result.errors.map((error) => error.file)).size;
  const count = `${result.templates.length} template${result.templates.length === 1 ? "" : "s"}`;
  if (result.errors.length > 0) {
    const errors = `${result.errors.length} error${result.errors.length === 1 ? "" : "s"}`;
    console.error(`error: ${errors} in ${failed} file${failed === 1 ? "" : "s"} (${count})`);
    return 1;
  }
  if (check) {
    if (result.stale.length > 0) {
      console.error(
        `error: ${result.stale.length} of ${count} out of date; compile them again`,
      );
      return 1;
    }
    console.log(`${count} up to date`);
    return 0;
  }
  console.log(`Compiled ${count} (${result.written.length} written)`);
  return 0;
}

/**
 * Runs the command line with `args` (without the program name).
 *
 * @param args The arguments, e.g. `["examples/templates", "--check"]`.
 * @param signal With `--watch`, stops watching when aborted.
 * @returns The exit code; with `--watch`, after `signal` aborts.
 */
export async function main(args: string[], signal?: AbortSignal): Promise<number> {
  const options = parseArgs(args);
  if (args.includes("-h") || args.includes("--help")) {
    console.log(USAGE);
    return 0;
  }
  if (typeof options === "string") {
    console.error(`error: ${options}\n\n${USAGE}`);
    return 2;
  }
  const run = () => {
    try {
      return report(compileDirectory(options.dir, options), options.check);
    } catch (error) {
      console.error(`error: ${error instanceof Error ? error.message : error}`);
      return 1;
    }
  };
  const code = run();
  if (!options.watch) return code;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const watcher = watch(options.dir, { recursive: true }, (_event, name) => {
    if (name === null || !String(name).endsWith(".html")) return;
    clearTimeout(timer);
    timer = setTimeout(run, 50); // one compile for a burst of events (editors write twice)
  });
  console.log(`Watching ${options.dir} for changes…`);
  await new Promise<void>((resolve) => {
    if (signal?.aborted) return resolve();
    signal?.addEventListener("abort", () => resolve(), { once: true });
    process.once("SIGINT", () => resolve());
  });
  clearTimeout(timer);
  watcher.close();
  return 0;
}

if (import.meta.main) process.exitCode = await main(process.argv.slice(2));
