/**
 * The participant memory store's port contract (test/contract) against PostgreSQL, their record with the
 * history database, and its retention pass: each test a database copied from the run's template.
 */
import { expect, inject, it } from "vitest";
import { PostgresParticipantMemories } from "../../src/store/postgres/participant-memory-store.js";
import { participantMemoryStoreContract } from "../contract/participant-memory-store.contract.js";
import { databaseFrom, testPool } from "../support/database.js";

participantMemoryStoreContract("PostgreSQL", async () => {
  const database = await databaseFrom(inject("databaseTemplate"));
  const db = testPool(database.url, 20);
  let now = Date.now();
  return {
    store: new PostgresParticipantMemories(db, () => now),
    setNow: (ms) => (now = ms),
    close: async () => {
      await db.end();
      await database.drop();
    },
  };
});

it("deletes expired memories in the retention pass, and only those", async () => {
  const database = await databaseFrom(inject("databaseTemplate"));
  const db = testPool(database.url, 4);
  try {
    const store = new PostgresParticipantMemories(db);
    const at = Date.now();
    const key = (participantIdentity: string) => ({ owner: "acct_1", digitalHumanId: crypto.randomUUID(), participantIdentity });
    await store.writeMemory(key("old"), { facts: ["a"], updatedAtMs: at - 10_000, expiresAtMs: at - 1, generation: "g1" }, undefined);
    await store.writeMemory(key("kept"), { facts: ["b"], updatedAtMs: at, expiresAtMs: at + 60_000, generation: "g2" }, undefined);
    expect(await store.dropExpiredMemories(at)).toBe(1);
    const { rows } = await db.query<{ participant_identity: string }>("SELECT participant_identity FROM participant_memories");
    expect(rows.map((row) => row.participant_identity)).toEqual(["kept"]);
  } finally {
    await db.end();
    await database.drop();
  }
});
