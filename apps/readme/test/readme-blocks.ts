/**
 * The shell blocks of the docs (README.md and every Markdown file under docs/), as the docs tier runs
 * them. Every ```sh block is preceded by a marker, `<!-- readme-test: <name> -->`, which says how it is
 * run (or `skip, <reason>`), so a new block cannot be added without deciding how it is tested. In a
 * block, lines ending in `\` continue the command; a comment line `# => <output>` after a command is the
 * output the docs promise for it. Blocks are read from several files: each block and command knows its file, a
 * marker that names a block (a service) must name one block in all the files, and the blocks run
 * `against` a service may be in any file.
 */
import { type Dirent, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

export interface ReadmeCommand {
  /** The command as the docs show it (continuation lines joined). */
  text: string;
  /** What the docs say it prints: a JSON object (matched as a subset) or a line of text. */
  expected?: { json: Record<string, unknown> } | { text: string };
  /** The file it is in, relative to the repository's root (`README.md`, `docs/operators.md`). */
  file: string;
  /** 1-based line of its file where it starts. */
  line: number;
}

export interface ReadmeBlock {
  marker: string;
  file: string;
  line: number;
  commands: ReadmeCommand[];
}

/** A Markdown file of the docs: its path from the repository's root, and its text. */
export interface DocFile {
  path: string;
  text: string;
}

/** `file:line`, how tests and errors name a place in the docs. */
export function placeOf(at: { file: string; line: number }): string {
  return `${at.file}:${at.line}`;
}

/** README.md, then every Markdown file under docs/ (sorted by path), read from the repository at `root`. */
export function docFiles(root: string): DocFile[] {
  const paths = ["README.md", ...markdownUnder(root, "docs").sort()];
  return paths.map((path) => ({ path, text: readFileSync(join(root, path), "utf8") }));
}

function markdownUnder(root: string, dir: string): string[] {
  let entries: Dirent[];
  try {
    entries = readdirSync(join(root, dir), { withFileTypes: true });
  } catch {
    return [];
  }
  return entries.flatMap((entry) => {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory()) return markdownUnder(root, path);
    return entry.isFile() && entry.name.endsWith(".md") ? [path] : [];
  });
}

/** The marked shell blocks of every file, in the files' order. */
export function docsBlocks(files: readonly DocFile[]): ReadmeBlock[] {
  return files.flatMap((file) => readmeBlocks(file.text, file.path));
}

/** The one block marked `marker` in all the files: none, or more than one, is an error naming them. */
export function blockNamed(blocks: readonly ReadmeBlock[], marker: string): ReadmeBlock {
  const found = blocks.filter((b) => b.marker === marker);
  if (found.length === 1) return found[0] as ReadmeBlock;
  if (found.length === 0) throw new Error(`the docs have no block marked ${marker}`);
  throw new Error(`the docs have ${found.length} blocks marked ${marker} (${found.map(placeOf).join(", ")}); a service is one block`);
}

/** The commands of every block marked `against <name>`, whichever file each is in, in the files' order. */
export function commandsAgainst(blocks: readonly ReadmeBlock[], name: string): ReadmeCommand[] {
  return blocks.filter((b) => b.marker === `against ${name}`).flatMap((b) => b.commands);
}

const MARKER = /^<!-- readme-test: (.+?) -->$/;

export function readmeBlocks(markdown: string, file = "README.md"): ReadmeBlock[] {
  const lines = markdown.split("\n");
  const blocks: ReadmeBlock[] = [];
  let marker: string | undefined;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] as string;
    const found = MARKER.exec(line.trim());
    if (found) {
      marker = found[1];
      continue;
    }
    if (!line.startsWith("```")) {
      if (line.trim() !== "") marker = undefined;
      continue;
    }
    const fence = line.slice(3).trim();
    const start = i;
    const body: [string, number][] = [];
    for (i++; i < lines.length && !(lines[i] as string).startsWith("```"); i++) body.push([lines[i] as string, i + 1]);
    if (fence === "sh" || fence === "bash" || fence === "shell") {
      if (marker === undefined) throw new Error(`${file}:${start + 1}: a shell block without a <!-- readme-test: ... --> marker`);
      blocks.push({ marker, file, line: start + 1, commands: commandsOf(body, file) });
    }
    marker = undefined;
  }
  return blocks;
}

function commandsOf(body: [string, number][], file: string): ReadmeCommand[] {
  const commands: ReadmeCommand[] = [];
  let pending: ReadmeCommand | undefined;
  for (const [raw, line] of body) {
    const text = raw.trim();
    if (pending) {
      pending.text += ` ${text.replace(/\\$/, "").trim()}`;
      if (!text.endsWith("\\")) pending = undefined;
      continue;
    }
    if (text === "") continue;
    if (text.startsWith("# => ")) {
      const last = commands.at(-1);
      if (!last) throw new Error(`${file}:${line}: an expected output before any command`);
      last.expected = expectedOutput(text.slice(5).trim());
      continue;
    }
    if (text.startsWith("#")) continue;
    const command: ReadmeCommand = { text: text.replace(/\\$/, "").trim(), file, line };
    commands.push(command);
    if (text.endsWith("\\")) pending = command;
  }
  return commands;
}

/** A JSON object at the start of the text (prose may follow it), or else the text itself. */
function expectedOutput(text: string): NonNullable<ReadmeCommand["expected"]> {
  if (text.startsWith("{")) {
    for (let end = text.lastIndexOf("}"); end > 0; end = text.lastIndexOf("}", end - 1)) {
      try {
        return { json: JSON.parse(text.slice(0, end + 1)) as Record<string, unknown> };
      } catch {
        // a shorter prefix may be the object
      }
    }
  }
  return { text };
}
