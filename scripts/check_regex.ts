// Fails when a regular expression in lib/ or wsgi/ can backtrack super-linearly (ReDoS): every
// regex literal and every RegExp(…) call is found with the TypeScript parser and checked by
// recheck (https://makenowjust-labs.github.io/recheck/), which proves a pattern safe or gives an
// attack string. A pattern recheck cannot check (one built at run time) or that it flags must be
// in ALLOWED below, with the reason it is safe to keep; anything applied to request-derived
// input is replaced by a scanner instead.
//
//   deno run -A scripts/check_regex.ts
import ts from "typescript";
import { check } from "recheck";

/** A regular expression found in a source file. */
export interface FoundRegex {
  /** The file, relative to the root. */
  file: string;
  /** The 1-based line of the expression. */
  line: number;
  /** The expression as written: `/a+/g` or `new RegExp(…)`. */
  text: string;
  /** The pattern and flags, or null for a RegExp built from values known only at run time. */
  pattern: { source: string; flags: string } | null;
}

/** A regular expression kept although recheck cannot prove it safe. */
interface Allowed {
  file: string;
  text: string;
  why: string;
}

const ALLOWED: Allowed[] = [
  {
    file: "lib/json/to_json_schema.ts",
    text: 'new RegExp(source, "u")',
    why: "compiled only to learn whether the application's pattern is valid with the u flag; " +
      "it never runs on any input",
  },
  {
    file: "lib/middleware/cors.ts",
    text: 'new RegExp(origin.source, origin.flags.replace(/[gy]/g, ""))',
    why: "a stateless copy of the application's own `origin` RegExp; its pattern is the " +
      "application's to keep linear, as with any RegExp it runs on a header",
  },
  {
    file: "lib/middleware/static_files.ts",
    text: 'new RegExp(test.source, test.flags.replace(/[gy]/g, ""))',
    why: "a stateless copy of the application's own `immutable` RegExp, as for cors",
  },
  {
    file: "lib/json/_constraints.ts",
    text: 'new RegExp(c.pattern.source, c.pattern.flags.replace(/[gy]/g, ""))',
    why: "a stateless copy of the application's own `pattern` constraint; its pattern is the " +
      "application's to keep linear (docs/json.md), and it runs only on strings within the " +
      "schema's maxLength",
  },
  {
    file: "lib/template/html_context.ts",
    text: 'new RegExp(`</${tag}[\\\\t\\\\n\\\\f\\\\r />]`, "i")',
    why: "runs on template source at compile time, not on requests; `tag` is a raw-text " +
      "element name (script, style, textarea, title, …) and the pattern has no quantifier",
  },
];

/** Lists the regex literals and RegExp calls of one TypeScript source. */
export function findRegexes(file: string, text: string): FoundRegex[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: FoundRegex[] = [];
  const lineOf = (node: ts.Node) =>
    source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
  function visit(node: ts.Node): void {
    if (node.kind === ts.SyntaxKind.RegularExpressionLiteral) {
      const literal = node.getText(source);
      const slash = literal.lastIndexOf("/");
      found.push({
        file,
        line: lineOf(node),
        text: literal,
        pattern: { source: literal.slice(1, slash), flags: literal.slice(slash + 1) },
      });
    } else if (
      (ts.isNewExpression(node) || ts.isCallExpression(node)) &&
      ts.isIdentifier(node.expression) && node.expression.text === "RegExp"
    ) {
      const [pattern, flags] = node.arguments ?? [];
      const constant = (arg: ts.Expression | undefined) =>
        arg !== undefined && (ts.isStringLiteral(arg) || ts.isNoSubstitutionTemplateLiteral(arg))
          ? arg.text
          : null;
      const patternText = constant(pattern);
      const flagsText = flags === undefined ? "" : constant(flags);
      found.push({
        file,
        line: lineOf(node),
        text: node.getText(source),
        pattern: patternText === null || flagsText === null
          ? null
          : { source: patternText, flags: flagsText },
      });
    }
    ts.forEachChild(node, visit);
  }
  visit(source);
  return found;
}

async function* walk(dir: string): AsyncGenerator<string> {
  for await (const entry of Deno.readDir(dir)) {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory) yield* walk(path);
    else if (entry.name.endsWith(".ts")) yield path;
  }
}

/**
 * Checks every regular expression under `root`'s lib/ and wsgi/ and lists `file:line: text:
 * why` for each one that is neither proven safe nor allowed; exported for the test of this
 * script.
 */
export async function findVulnerable(root: string, allowed = ALLOWED): Promise<string[]> {
  const problems: string[] = [];
  const used = new Set<Allowed>();
  for (const dir of ["lib", "wsgi"]) {
    try {
      await Deno.stat(`${root}/${dir}`);
    } catch {
      continue;
    }
    const files: string[] = [];
    for await (const path of walk(`${root}/${dir}`)) files.push(path);
    for (const path of files.sort()) {
      const file = path.slice(root.length + 1);
      for (const regex of findRegexes(file, await Deno.readTextFile(path))) {
        const allow = allowed.find((a) => a.file === file && a.text === regex.text);
        if (allow !== undefined) {
          used.add(allow);
          continue;
        }
        const where = `${file}:${regex.line}: ${regex.text}`;
        if (regex.pattern === null) {
          problems.push(`${where}: built at run time, so it cannot be checked`);
          continue;
        }
        const result = await check(regex.pattern.source, regex.pattern.flags, {
          timeout: 10_000,
        });
        if (result.status === "vulnerable") {
          const attack = result.attack.pattern; // a JavaScript expression for the attack string
          problems.push(`${where}: ${result.complexity.summary} backtracking, e.g. ${attack}`);
        } else if (result.status !== "safe") {
          problems.push(`${where}: recheck could not decide (${result.status})`);
        }
      }
    }
  }
  // An entry that matches nothing any more would silently allow a future regex of that text.
  for (const allow of allowed) {
    if (!used.has(allow)) problems.push(`${allow.file}: allowed regex not found: ${allow.text}`);
  }
  return problems;
}

if (import.meta.main) {
  const root = new URL("..", import.meta.url).pathname.replace(/\/$/, "");
  const problems = await findVulnerable(root);
  if (problems.length > 0) {
    console.error("Regular expressions that may backtrack super-linearly (ReDoS):");
    for (const problem of problems) console.error(`  ${problem}`);
    console.error("Replace them with a scanner, or add them to ALLOWED in scripts/check_regex.ts.");
    Deno.exit(1);
  }
  console.log("regex audit: ok");
}
