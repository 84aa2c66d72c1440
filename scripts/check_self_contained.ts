// Fails when a tracked file refers to a path outside the repository: a sibling `shared`
// directory reached with `..`, or an absolute path of one machine (the CI workspace, root's
// or a user's home directory, a job runner's scratch directory). A clone must hold everything
// its tests, benchmarks, examples and docs need; see docs/architecture.md.
//
// Files are listed with `git ls-files`, or by walking the directory where git or the
// repository is absent. Lock files and the vendored corpora under tests/fixtures/ are skipped:
// their contents are upstream data, not references (traversal payloads are full of `..`).
//
//   deno run -A scripts/check_self_contained.ts
import { relative } from "node:path";
import { fileURLToPath } from "node:url";

/** What counts as a reference outside the repository, tested line by line. */
const OUTSIDE: readonly RegExp[] = [
  // `..` segments climbing to a sibling `shared` directory (not `shared_cases.ts`)
  /(?:^|[^\w.])(?:\.\.\/)+shared(?![\w.-])/,
  // absolute paths of a machine, at the start of a path: after a delimiter, or in a file URL
  /(?:^|[\s"'`(\[{<=,;|]|file:\/\/)\/(?:work|root)\//,
  /(?:^|[\s"'`(\[{<=,;|]|file:\/\/)\/(?:home|Users)\/[\w-][\w.-]*\//,
  /(?:^|[\s"'`(\[{<=,;|]|file:\/\/)\/tmp\/bash_jobs/,
];

/** Files whose contents are data, not references. */
const SKIPPED: readonly RegExp[] = [
  /(?:^|\/)(?:deno\.lock|package-lock\.json|npm-shrinkwrap\.json|yarn\.lock|pnpm-lock\.yaml)$/,
  /^tests\/fixtures\/JSONTestSuite\/test_parsing\//,
  /^tests\/fixtures\/rfc-vectors\/vectors\.json$/,
  /^tests\/fixtures\/(?:traversal|xss)\/[^/]+\.txt$/,
];

// Never walked when git cannot list the files (besides the root .gitignore's directories).
const NEVER_WALKED = new Set([".git", "node_modules"]);

async function gitFiles(root: string): Promise<string[] | undefined> {
  try {
    const out = await new Deno.Command("git", {
      args: ["-C", root, "ls-files", "-z"],
      stdout: "piped",
      stderr: "null",
    }).output();
    if (!out.success) return undefined;
    return new TextDecoder().decode(out.stdout).split("\0").filter((name) => name !== "");
  } catch {
    return undefined; // no git on this machine
  }
}

// The plain directory entries of the root .gitignore (`npm/`, `.ci/out/`): generated output.
async function ignoredDirectories(root: string): Promise<Set<string>> {
  const ignored = new Set<string>();
  try {
    for (const line of (await Deno.readTextFile(`${root}/.gitignore`)).split("\n")) {
      const entry = line.trim().replace(/^\//, "");
      if (/^[\w.\-/]+\/$/.test(entry)) ignored.add(entry.slice(0, -1));
    }
  } catch {
    // no .gitignore
  }
  return ignored;
}

async function walkFiles(root: string): Promise<string[]> {
  const ignored = await ignoredDirectories(root);
  const files: string[] = [];
  async function walk(dir: string): Promise<void> {
    for await (const entry of Deno.readDir(dir)) {
      const path = `${dir}/${entry.name}`;
      const name = relative(root, path);
      if (entry.isDirectory) {
        if (!NEVER_WALKED.has(entry.name) && !ignored.has(name)) await walk(path);
      } else if (entry.isFile) {
        files.push(name);
      }
    }
  }
  await walk(root);
  return files.sort();
}

/**
 * Lists `file:line: text` for every line of a file in `root` that refers to a path outside
 * the repository; exported for the test of this script.
 *
 * @param root The repository root.
 * @returns The offending lines, in file order; empty when the repository is self-contained.
 */
export async function findOutsideReferences(root: string): Promise<string[]> {
  const files = await gitFiles(root) ?? await walkFiles(root);
  const decoder = new TextDecoder();
  const found: string[] = [];
  for (const name of files) {
    if (SKIPPED.some((re) => re.test(name))) continue;
    let bytes: Uint8Array;
    try {
      bytes = await Deno.readFile(`${root}/${name}`);
    } catch {
      continue; // listed by git but deleted in the work tree
    }
    if (bytes.includes(0)) continue; // binary
    decoder.decode(bytes).split("\n").forEach((line, i) => {
      if (OUTSIDE.some((re) => re.test(line))) {
        const text = line.trim();
        found.push(`${name}:${i + 1}: ${text.length > 120 ? text.slice(0, 117) + "..." : text}`);
      }
    });
  }
  return found;
}

if (import.meta.main) {
  const root = fileURLToPath(new URL("..", import.meta.url)).replace(/\/$/, "");
  const found = await findOutsideReferences(root);
  if (found.length > 0) {
    console.error("These files refer to paths outside the repository:");
    for (const line of found) console.error(`  ${line}`);
    Deno.exit(1);
  }
  console.log("self-contained: ok");
}
