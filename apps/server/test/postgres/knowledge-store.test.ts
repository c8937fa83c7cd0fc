/**
 * The knowledge store's port contract (test/support) against PostgreSQL: each test a database copied
 * from the run's migrated template, with a pool of its own.
 */
import { inject } from "vitest";
import { PostgresKnowledgeStore } from "../../src/store/postgres/knowledge-store.js";
import { databaseFrom, testPool } from "../support/database.js";
import { describeKnowledgeStore } from "../support/knowledge-store-contract.js";

describeKnowledgeStore("PostgreSQL", async () => {
  const database = await databaseFrom(inject("databaseTemplate"));
  const db = testPool(database.url, 10);
  return {
    store: new PostgresKnowledgeStore(db),
    close: async () => {
      await db.end();
      await database.drop();
    },
  };
});
