/**
 * The PostgreSQL history of the integration tests: one migrated template per run (made by the global
 * setup with node-pg-migrate, as `pnpm migrate` does), and a copy of it for each harness, so no test sees
 * another's sessions; each is dropped when its user is done.
 */
import { createDatabase, type TestDatabase } from "@dhs/testkit";
import type { Redis } from "ioredis";
import { runner } from "node-pg-migrate";
import pg from "pg";
import { afterAll, beforeAll, inject } from "vitest";
import { MIGRATIONS_DIR } from "../../src/store/postgres/schema-version.js";

/** Applies the service's migrations to the database at `url` (as `pnpm migrate`). */
export async function migrate(url: string, direction: "up" | "down" = "up", count = Number.POSITIVE_INFINITY): Promise<void> {
  await runner({
    databaseUrl: url,
    dir: MIGRATIONS_DIR,
    direction,
    count,
    migrationsTable: "pgmigrations",
    log: () => undefined,
  });
}

/** A new database with the service's schema. */
export async function migratedDatabase(): Promise<TestDatabase> {
  const database = await createDatabase({ prefix: "dhs_test" });
  await migrate(database.url);
  return database;
}

/** A copy of the run's migrated template (the global setup's). */
export function databaseFrom(template: string): Promise<TestDatabase> {
  return createDatabase({ template, prefix: "dhs_test" });
}

/**
 * The database of a test file's own server processes (Redis never runs without PostgreSQL): made before
 * the file's own beforeAll (call this first), dropped after its last afterAll. A copy of the run's
 * template where the project's global setup made one, migrated anew otherwise (the fault tier).
 */
export function useServiceDatabase(): { url(): string } {
  let database: TestDatabase | undefined;
  beforeAll(async () => {
    const template = inject("databaseTemplate");
    database = template ? await databaseFrom(template) : await migratedDatabase();
  });
  afterAll(async () => {
    await database?.drop();
  });
  return {
    url: () => {
      if (!database) throw new Error("useServiceDatabase(): no database yet (call it before the file's beforeAll)");
      return database.url;
    },
  };
}

/**
 * A pool of a test's own on a test database: a connection the database's drop (or a test's outage) ends
 * while it idles is reported on the pool, and is nothing to fail on.
 */
export function testPool(url: string, max: number): pg.Pool {
  const pool = new pg.Pool({ connectionString: url, max });
  pool.on("error", () => undefined);
  return pool;
}

/**
 * Deletes every key of a harness's prefix but its layout, on the run's Redis: that harness's Redis lost
 * everything (a FLUSHALL of its own, beside the other test files' keys). Returns how many were deleted.
 */
export async function flushPrefix(redis: Redis, prefix: string | undefined): Promise<number> {
  let deleted = 0;
  for await (const keys of redis.scanStream({ match: `${prefix}:*`, count: 1000 })) {
    const ours = (keys as string[]).filter((key) => key !== `${prefix}:layout`);
    if (ours.length > 0) deleted += await redis.del(...ours);
  }
  return deleted;
}
