/**
 * The knowledge store's port contract (test/support) against PostgreSQL: each test a database copied
 * from the run's migrated template, with a pool of its own.
 */
import { describe, expect, inject, it } from "vitest";
import { PostgresKnowledgeStore } from "../../src/store/postgres/knowledge-store.js";
import { databaseFrom, testPool } from "../support/database.js";
import { describeKnowledgeStore, owner, ready } from "../support/knowledge-store-contract.js";

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

describe("the owner's lexeme counts (what keeps a search's candidates few)", () => {
  it("count each lexeme's passages as they are stored, and uncount a deleted document's, per owner", async () => {
    const database = await databaseFrom(inject("databaseTemplate"));
    const db = testPool(database.url, 4);
    try {
      const store = new PostgresKnowledgeStore(db);
      const [mine, theirs] = [owner(), owner()];
      const counts = async (who: string) => {
        const { rows } = await db.query<{ lexeme: string; passages: number }>(
          "SELECT lexeme, passages FROM document_lexemes WHERE owner = $1 AND lexeme IN ('sauna', 'room', 'warm') ORDER BY lexeme",
          [who],
        );
        return Object.fromEntries(rows.map((r) => [r.lexeme, r.passages]));
      };
      const first = await ready(store, mine, ["Spa\nThe sauna room is warm.", "Rooms\nEvery room is quiet."]);
      await ready(store, mine, ["Rooms\nThe room is warm."]);
      await ready(store, theirs, ["Spa\nA sauna."]);
      expect(await counts(mine)).toEqual({ room: 3, sauna: 1, warm: 2 });
      expect(await store.deleteDocument(mine, first.id)).toBe(true);
      expect(await counts(mine)).toEqual({ room: 1, warm: 1 });
      expect(await counts(theirs)).toEqual({ sauna: 1 });
      expect(await store.deleteDocument(mine, first.id)).toBe(false);
      expect(await counts(mine)).toEqual({ room: 1, warm: 1 });
    } finally {
      await db.end();
      await database.drop();
    }
  });
});
