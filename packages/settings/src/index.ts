/**
 * Environment variables declared once, read once: the service (apps/server/src/config/variables.ts) and
 * the digital human worker (apps/digital-human/src/worker/worker-config.ts) declare theirs with these
 * builders, read them with readSettings, and generate their part of the operators' table from them.
 */
export { boolean, choice, type Defaults, decimal, file, integer, secondsList, text, url, urls, type Variable } from "./builders.js";
export { ConfigError } from "./config-error.js";
export { readSettings, type SettingsOf } from "./read-settings.js";
export { settingsTable, settingsTableCli, type TableMarkers } from "./settings-table.js";
