/**
 * The schema a PostgreSQL holds, checked at start: the migrations node-pg-migrate applied (its
 * `pgmigrations` table) must be exactly the ones this server ships (migrations/), or the server refuses
 * to start with one line naming what to run, as it does for a Redis of another key layout.
 */
import { readdirSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { ConfigError } from "../../config/config-error.js";
import { type Database, guardDatabase } from "./database.js";

/** The package's migrations (shipped beside dist/ and src/, three levels up from either). */
export const MIGRATIONS_DIR = fileURLToPath(new URL("../../../migrations/", import.meta.url));

/** The names node-pg-migrate records for the migrations in `dir`, in the order they run. */
export function knownMigrations(dir = MIGRATIONS_DIR): string[] {
  return readdirSync(dir)
    .filter((file) => file.endsWith(".sql"))
    .map((file) => file.slice(0, -4))
    .sort();
}

export type SchemaCheck = { kind: "ok" } | { kind: "older"; missing: string } | { kind: "newer"; unknown: string };

/** Compares the applied migrations with the known ones. */
export function compareSchema(applied: readonly string[], known: readonly string[]): SchemaCheck {
  const unknown = applied.find((name) => !known.includes(name));
  if (unknown !== undefined) return { kind: "newer", unknown };
  const missing = known.find((name) => !applied.includes(name));
  return missing === undefined ? { kind: "ok" } : { kind: "older", missing };
}

/** The line an operator reads when the schema is not this server's. */
export function schemaMismatch(check: Exclude<SchemaCheck, { kind: "ok" }>): string {
  return check.kind === "older"
    ? `PostgreSQL's schema lacks migration ${check.missing} that this server needs: run \`pnpm migrate\` with this DATABASE_URL`
    : `PostgreSQL's schema has migration ${check.unknown}, which this server does not know: run the server version that applied it (see docs/operators.md, Upgrades)`;
}

/** Rejects with DependencyUnavailableError while PostgreSQL cannot be asked, ConfigError for another schema. */
export async function confirmSchema(db: Database, known = knownMigrations()): Promise<void> {
  const applied = await guardDatabase(async () => {
    try {
      const result = await db.query<{ name: string }>({ name: "schema-migrations", text: "SELECT name FROM pgmigrations" });
      return result.rows.map((row) => row.name);
    } catch (error) {
      // 42P01: no migrations table, so nothing was ever migrated.
      if ((error as { code?: string }).code === "42P01") return [];
      throw error;
    }
  });
  const check = compareSchema(applied, known);
  if (check.kind !== "ok") throw new ConfigError(schemaMismatch(check));
}

/**
 * Whether the history database holds this server's schema, asked until it answers once; until then the
 * replica is unready (as for Redis's key layout), and another schema stops the start.
 */
export class DatabaseSchema {
  confirmed = false;

  constructor(private readonly db: Database) {}

  async confirm(): Promise<void> {
    if (this.confirmed) return;
    await confirmSchema(this.db);
    this.confirmed = true;
  }
}
