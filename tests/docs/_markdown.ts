// The guides' code blocks and shell lines, as the tests that replay the guides read them.

/** A fenced code block: its language, the words after it (`ignore`, `file=app.ts`), its text. */
export interface CodeBlock {
  lang: string;
  attributes: string[];
  /** The file the guide tells the reader to write it to (`file=app.ts`), if any. */
  file: string | undefined;
  text: string;
  /** The line of the opening fence, 1-based. */
  line: number;
}

/** Every fenced code block of `markdown`, in order. */
export function codeBlocks(markdown: string): CodeBlock[] {
  const blocks: CodeBlock[] = [];
  const lines = markdown.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const open = lines[i].match(/^```(\S*)\s*(.*)$/);
    if (open === null) continue;
    const end = lines.findIndex((line, j) => j > i && line.startsWith("```"));
    if (end === -1) throw new Error(`The code block at line ${i + 1} is never closed`);
    const attributes = open[2].split(/\s+/).filter((word) => word !== "");
    const file = attributes.find((word) => word.startsWith("file="))?.slice(5);
    const text = lines.slice(i + 1, end).join("\n") + "\n";
    blocks.push({ lang: open[1], attributes, file, text, line: i + 1 });
    i = end;
  }
  return blocks;
}

/** A shell command of a guide, with the output the guide shows after it (`# …` lines). */
export interface ShellCommand {
  /** `NAME=value` assignments before the command. */
  env: Record<string, string>;
  /** The command's words, quotes removed. */
  words: string[];
  /** The text as written, continuation lines joined. */
  source: string;
  /** The `# …` lines right after it, without `# `, joined with LF. */
  output: string | undefined;
}

/**
 * The commands of a `sh` block: lines joined at a trailing backslash, words split on blanks,
 * single and double quotes as the shell reads them (no variables, no globs), a trailing `&` and
 * `# …` comments on the same line dropped.
 */
export function shellCommands(text: string): ShellCommand[] {
  const commands: ShellCommand[] = [];
  const joined = text.replace(/\\\n\s*/g, "");
  for (const raw of joined.split("\n")) {
    const line = raw.trim();
    if (line === "") continue;
    if (line.startsWith("#")) {
      const last = commands.at(-1);
      if (last === undefined) continue;
      const shown = line.replace(/^# ?/, "");
      last.output = last.output === undefined ? shown : `${last.output}\n${shown}`;
      continue;
    }
    const words = splitWords(line);
    const env: Record<string, string> = {};
    while (words.length > 0 && /^[A-Z_][A-Z0-9_]*=/.test(words[0])) {
      const [name, ...value] = words.shift()!.split("=");
      env[name] = value.join("=");
    }
    if (words.at(-1) === "&") words.pop();
    commands.push({ env, words, source: line, output: undefined });
  }
  return commands;
}

function splitWords(line: string): string[] {
  const words: string[] = [];
  let word: string | undefined;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (c === "'" || c === '"') {
      const end = line.indexOf(c, i + 1);
      if (end === -1) throw new Error(`Unclosed quote in: ${line}`);
      word = (word ?? "") + line.slice(i + 1, end);
      i = end;
    } else if (c === " " || c === "\t") {
      if (word !== undefined) words.push(word);
      word = undefined;
    } else if (c === "#" && word === undefined) {
      break; // a comment after the command
    } else {
      word = (word ?? "") + c;
    }
  }
  if (word !== undefined) words.push(word);
  return words;
}

/** The commands of every `sh` block of the guide at `path` (relative to the repository). */
export async function guideCommands(path: string): Promise<ShellCommand[]> {
  const text = await Deno.readTextFile(new URL(`../../${path}`, import.meta.url));
  return codeBlocks(text).filter((block) => block.lang === "sh")
    .flatMap((block) => shellCommands(block.text));
}
