/**
 * The configuration reference of docs/operators.md ("Configuration"), generated from VARIABLES
 * (src/config/variables.ts, exported by src/config.ts: the declarations the parsers read their defaults
 * and bounds from). `--write FILE` replaces the table between the markers in FILE; `--check FILE` fails
 * when it differs, which `pnpm lint` runs (the server's `docs:config` and `lint` scripts pass
 * docs/operators.md).
 */
import { readFileSync, writeFileSync } from "node:fs";
import type { Variable } from "../src/config/parsers.js";
import { VARIABLES } from "../src/config.js";

const START = "<!-- config:start (generated from apps/server/src/config.ts: pnpm --filter @dhs/server docs:config) -->";
const END = "<!-- config:end -->";

function defaultOf(variable: Variable): string {
  if ("dev" in variable && variable.dev !== undefined) return `*dev*: ${variable.dev}`;
  if ("derived" in variable && variable.derived !== undefined) return variable.derived;
  if (variable.default === undefined || variable.default === "") return "none";
  return `\`${String(variable.default)}\``;
}

function accepts(variable: Variable): string {
  switch (variable.kind) {
    case "integer":
      return `integer ${variable.min} to ${variable.max}`;
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

function configTable(): string {
  const rows = Object.entries(VARIABLES as Record<string, Variable>).map(
    ([name, v]) => `| \`${name}\` | ${defaultOf(v)} | ${accepts(v)} | ${v.description} |`,
  );
  return [START, "| Variable | Default | Accepts | What it does |", "|---|---|---|---|", ...rows, END].join("\n");
}

const [mode, file] = process.argv.slice(2);
if ((mode === "--write" || mode === "--check") && file) {
  const text = readFileSync(file, "utf8");
  const from = text.indexOf(START);
  const to = text.indexOf(END);
  if (from < 0 || to < from) {
    console.error(`${file}: no configuration table markers (${START} ... ${END})`);
    process.exit(1);
  }
  const updated = text.slice(0, from) + configTable() + text.slice(to + END.length);
  if (mode === "--write") writeFileSync(file, updated);
  else if (updated !== text) {
    console.error(`${file}: the configuration table is stale; run pnpm --filter @dhs/server docs:config`);
    process.exit(1);
  }
} else if (mode !== undefined) {
  console.error("usage: config-table.ts [--write FILE | --check FILE]");
  process.exit(2);
} else {
  console.log(configTable());
}
