import pg from "pg";
import { describe, expect, it } from "vitest";
import { createDatabase, databaseUrl } from "./postgres-database.js";

async function tables(url: string): Promise<string[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ name: string }>("SELECT tablename AS name FROM pg_tables WHERE schemaname = 'public'");
    return rows.map((row) => row.name);
  } finally {
    await client.end();
  }
}

describe("createDatabase", () => {
  it("makes a database of its own, copies a template, and drops it with whoever is still connected", async () => {
    const template = await createDatabase({ prefix: "tpl" });
    const setup = new pg.Client({ connectionString: template.url });
    await setup.connect();
    await setup.query("CREATE TABLE kept (n int)");
    await setup.end();
    const copy = await createDatabase({ template: template.name });
    expect(copy.name).not.toBe(template.name);
    expect(await tables(copy.url)).toEqual(["kept"]);
    const lingering = new pg.Client({ connectionString: copy.url });
    lingering.on("error", () => undefined);
    await lingering.connect();
    await copy.drop();
    await template.drop();
    await expect(tables(copy.url)).rejects.toThrow(/does not exist/);
  });

  it("names databases on the admin URL's server", () => {
    expect(databaseUrl("dhs_x", "postgres://u@db.internal:6543/postgres")).toBe("postgres://u@db.internal:6543/dhs_x");
  });
});
