/**
 * PostgreSQL databases of a test's own on the machine's server (127.0.0.1:5432, user postgres, or
 * DHS_TEST_DATABASE_URL): made with a random name, optionally as a copy of a template (a migrated schema
 * is copied in milliseconds instead of migrated again), and dropped with whatever is connected to them.
 * Never the machine's own databases.
 */
import pg from "pg";

/** The server's maintenance database, from which databases are made and dropped. */
export const ADMIN_DATABASE_URL = process.env.DHS_TEST_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";

export interface TestDatabase {
  name: string;
  url: string;
  drop(): Promise<void>;
}

/** The URL of database `name` on the admin URL's server. */
export function databaseUrl(name: string, adminUrl = ADMIN_DATABASE_URL): string {
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

async function admin<T>(adminUrl: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** Makes an empty database (or a copy of `template`), named `<prefix>_<random>`. */
export async function createDatabase(options: { template?: string; prefix?: string; adminUrl?: string } = {}): Promise<TestDatabase> {
  const { template, prefix = "dhs_test", adminUrl = ADMIN_DATABASE_URL } = options;
  const name = `${prefix}_${crypto.randomUUID().replaceAll("-", "").slice(0, 12)}`;
  // Names are made here (letters, digits, underscores): DDL takes no parameters.
  if (!/^[a-z0-9_]+$/.test(name) || (template !== undefined && !/^[a-z0-9_]+$/.test(template))) throw new Error(`bad name ${name}`);
  await admin(adminUrl, async (client) => {
    for (let attempt = 0; ; attempt++) {
      try {
        await client.query(`CREATE DATABASE ${name}${template ? ` TEMPLATE ${template}` : ""}`);
        return;
      } catch (error) {
        // 55006: another test is copying the same template this very moment.
        if ((error as { code?: string }).code !== "55006" || attempt >= 20) throw error;
        await new Promise((resolve) => setTimeout(resolve, 50 + Math.random() * 100));
      }
    }
  });
  return {
    name,
    url: databaseUrl(name, adminUrl),
    drop: () => dropDatabase(name, adminUrl),
  };
}

export async function dropDatabase(name: string, adminUrl = ADMIN_DATABASE_URL): Promise<void> {
  if (!/^[a-z0-9_]+$/.test(name)) throw new Error(`bad name ${name}`);
  await admin(adminUrl, (client) => client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
}
