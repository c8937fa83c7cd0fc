import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { createDatabase } from "./postgres-database.js";
import { type PostgresServer, startPostgres } from "./postgres-server.js";

let server: PostgresServer | undefined;
afterAll(() => server?.destroy());

async function answers(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 1000 });
  try {
    await client.connect();
    await client.query("SELECT 1");
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

describe("startPostgres", () => {
  // initdb and two starts of a server: 2 s alone, past vitest's 5 s default while other packages' tests share the cores.
  it("runs a server of its own that a test can crash and start again, keeping what was committed", { timeout: 30_000 }, async () => {
    server = await startPostgres();
    const database = await createDatabase({ adminUrl: server.url, prefix: "kept" });
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    await client.query("CREATE TABLE t (n int); INSERT INTO t VALUES (7)");
    await client.end();
    await server.stop("immediate");
    expect(await answers(database.url)).toBe(false);
    await server.start();
    const again = new pg.Client({ connectionString: database.url });
    await again.connect();
    expect((await again.query("SELECT n FROM t")).rows).toEqual([{ n: 7 }]);
    await again.end();
  });
});
