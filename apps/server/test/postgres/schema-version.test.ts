/**
 * The schema of the history database, as an operator meets it: `pnpm migrate` makes it, the built server
 * starts on it, and refuses to start (one line, exit 1) on a database whose schema is older or newer than
 * the one it knows, naming what to run.
 */
import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { createDatabase, startRedis, type TestDatabase } from "@dhs/testkit";
import pg from "pg";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { knownMigrations } from "../../src/store/postgres/schema-version.js";
import { migrate } from "../support/database.js";
import { killServerProcesses, startServerProcess as start } from "../support/server-process.js";

const SERVER_DIR = fileURLToPath(new URL("../../", import.meta.url));
let redis: Awaited<ReturnType<typeof startRedis>>;
const databases: TestDatabase[] = [];

beforeAll(async () => {
  redis = await startRedis();
});
afterEach(killServerProcesses);
afterAll(async () => {
  await Promise.all(databases.map((d) => d.drop()));
  await redis?.stop();
});

async function database(): Promise<TestDatabase> {
  const made = await createDatabase({ prefix: "dhs_test" });
  databases.push(made);
  return made;
}

/** `pnpm migrate` as docs/storage.md runs it, with DATABASE_URL in its environment. */
async function pnpmMigrate(url: string): Promise<string> {
  const { stdout } = await promisify(execFile)("pnpm", ["run", "migrate"], { cwd: SERVER_DIR, env: { ...process.env, DATABASE_URL: url } });
  return stdout;
}

async function sql(url: string, text: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  await client.query(text);
  await client.end();
}

describe("the history database's schema", () => {
  it("is made by pnpm migrate, which does nothing the second time, and the server starts on it", async () => {
    const { url } = await database();
    expect(await pnpmMigrate(url)).toMatch(/Migrations complete/);
    expect(await pnpmMigrate(url)).toMatch(/No migrations to run/);
    const proc = start({ REDIS_URL: redis.url, DATABASE_URL: url, REDIS_KEY_PREFIX: `s${crypto.randomUUID().slice(0, 6)}` });
    expect(await proc.listening).toMatchObject({ history: "postgres" });
    expect((await fetch(`${(await proc.listening).url}/readyz`)).status).toBe(200);
    proc.child.kill("SIGTERM");
    expect((await proc.exited)[0]).toBe(0);
  });

  it.each([
    [
      "older (never migrated)",
      async (_url: string) => undefined,
      () => `lacks migration ${knownMigrations()[0]} that this server needs: run \`pnpm migrate\` with this DATABASE_URL`,
    ],
    [
      "older (its first migration applied, not the second)",
      (url: string) => migrate(url, "up", 1),
      () => `lacks migration ${knownMigrations()[1]} that this server needs: run \`pnpm migrate\` with this DATABASE_URL`,
    ],
    [
      "newer (a migration this server does not know)",
      async (url: string) => {
        await pnpmMigrate(url);
        await sql(url, "INSERT INTO pgmigrations (name, run_on) VALUES ('9999999999999_from-the-future', now())");
      },
      () =>
        "has migration 9999999999999_from-the-future, which this server does not know: run the server version that applied it (see docs/operators.md, Upgrades)",
    ],
  ])("stops the start with one line and exit code 1 when it is %s", async (_name, prepare, says) => {
    const { url } = await database();
    await prepare(url);
    const proc = start({ REDIS_URL: redis.url, DATABASE_URL: url, REDIS_KEY_PREFIX: `s${crypto.randomUUID().slice(0, 6)}` });
    const [code] = await proc.exited;
    expect(code).toBe(1);
    expect(proc.output().stderr).toBe(`configuration error: PostgreSQL's schema ${says()}\n`);
  });
});
