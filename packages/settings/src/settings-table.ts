/**
 * The operators' configuration reference (docs/operators.md), generated from the declarations so that it
 * cannot drift from what the processes read: a Markdown table between two markers, written or checked
 * (`pnpm lint` fails when it is stale).
 */
import { readFileSync, writeFileSync } from "node:fs";
import type { Variable } from "./builders.js";

function defaultOf(variable: Variable): string {
  if (variable.dev !== undefined) return `*dev*: ${variable.dev}`;
  if (variable.derived !== undefined) return variable.derived;
  if (variable.default === undefined || variable.default === "") return "none";
  return `\`${String(variable.default)}\``;
}

function accepts(variable: Variable): string {
  switch (variable.kind) {
    case "integer":
      return `integer ${variable.min} to ${variable.max}`;
    case "number":
      return `number above ${variable.above}, at most ${variable.max}`;
    case "boolean":
      return "`true` or `false`";
    case "choice":
      return variable.values.map((v) => `\`${v}\``).join(", ");
    case "url":
      return `${variable.protocols.map((p) => `\`${p}//\``).join(", ")} URL`;
    case "file":
      return "path";
    case "text":
      return "text";
  }
}

export function settingsTable(declared: Record<string, Variable>): string {
  const rows = Object.entries(declared).map(([name, v]) => `| \`${name}\` | ${defaultOf(v)} | ${accepts(v)} | ${v.description} |`);
  return ["| Variable | Default | Accepts | What it does |", "|---|---|---|---|", ...rows].join("\n");
}

export interface TableMarkers {
  /** The line before the table, naming the command that writes it. */
  start: string;
  end: string;
  /** What to run when the table is stale. */
  command: string;
}

/**
 * `--write FILE` replaces the table between the markers in FILE, `--check FILE` fails when it differs, no
 * argument prints it: the body of each process's `docs:config` script. Returns the exit code.
 */
export function settingsTableCli(declared: Record<string, Variable>, markers: TableMarkers, argv: string[]): number {
  const table = [markers.start, settingsTable(declared), markers.end].join("\n");
  const [mode, file] = argv;
  if (mode === undefined) {
    console.log(table);
    return 0;
  }
  if ((mode !== "--write" && mode !== "--check") || !file) {
    console.error("usage: config-table.ts [--write FILE | --check FILE]");
    return 2;
  }
  const text = readFileSync(file, "utf8");
  const from = text.indexOf(markers.start);
  const to = text.indexOf(markers.end);
  if (from < 0 || to < from) {
    console.error(`${file}: no configuration table markers (${markers.start} ... ${markers.end})`);
    return 1;
  }
  const updated = text.slice(0, from) + table + text.slice(to + markers.end.length);
  if (mode === "--write") writeFileSync(file, updated);
  else if (updated !== text) {
    console.error(`${file}: the configuration table is stale; run ${markers.command}`);
    return 1;
  }
  return 0;
}
