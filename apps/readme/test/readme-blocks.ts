/**
 * The README's shell blocks, as the README tier runs them. Every ```sh block is preceded by a marker,
 * `<!-- readme-test: <name> -->`, which says how it is run (or `skip, <reason>`), so a new block cannot
 * be added without deciding how it is tested. In a block, lines ending in `\` continue the command; a
 * comment line `# => <output>` after a command is the output the README promises for it.
 */

export interface ReadmeCommand {
  /** The command as the README shows it (continuation lines joined). */
  text: string;
  /** What the README says it prints: a JSON object (matched as a subset) or a line of text. */
  expected?: { json: Record<string, unknown> } | { text: string };
  /** 1-based line of the README where it starts. */
  line: number;
}

export interface ReadmeBlock {
  marker: string;
  line: number;
  commands: ReadmeCommand[];
}

const MARKER = /^<!-- readme-test: (.+?) -->$/;

export function readmeBlocks(markdown: string): ReadmeBlock[] {
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
      if (marker === undefined) throw new Error(`README line ${start + 1}: a shell block without a <!-- readme-test: ... --> marker`);
      blocks.push({ marker, line: start + 1, commands: commandsOf(body) });
    }
    marker = undefined;
  }
  return blocks;
}

function commandsOf(body: [string, number][]): ReadmeCommand[] {
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
      if (!last) throw new Error(`README line ${line}: an expected output before any command`);
      last.expected = expectedOutput(text.slice(5).trim());
      continue;
    }
    if (text.startsWith("#")) continue;
    const command: ReadmeCommand = { text: text.replace(/\\$/, "").trim(), line };
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
