/**
 * The service's configuration reference in docs/operators.md ("Configuration"), generated from VARIABLES
 * (src/config/variables.ts, exported by src/config.ts). `--write FILE` replaces the table between the
 * markers in FILE; `--check FILE` fails when it differs, which `pnpm lint` runs.
 */
import { settingsTableCli } from "@dhs/settings";
import { VARIABLES } from "../src/config.js";

const MARKERS = {
  start: "<!-- config:start (generated from apps/server/src/config.ts: pnpm --filter @dhs/server docs:config) -->",
  end: "<!-- config:end -->",
  command: "pnpm --filter @dhs/server docs:config",
};

process.exitCode = settingsTableCli(VARIABLES, MARKERS, process.argv.slice(2));
