/**
 * The worker's configuration reference in docs/operators.md ("Deployment"), generated from
 * WORKER_VARIABLES (src/worker/worker-config.ts). `--write FILE` replaces the table between the markers in
 * FILE; `--check FILE` fails when it differs, which `pnpm lint` runs.
 */
import { settingsTableCli } from "@dhs/settings";
import { WORKER_VARIABLES } from "../src/worker/worker-config.js";

const MARKERS = {
  start:
    "<!-- worker-config:start (generated from apps/digital-human/src/worker/worker-config.ts: pnpm --filter @dhs/digital-human docs:config) -->",
  end: "<!-- worker-config:end -->",
  command: "pnpm --filter @dhs/digital-human docs:config",
};

process.exitCode = settingsTableCli(WORKER_VARIABLES, MARKERS, process.argv.slice(2));
