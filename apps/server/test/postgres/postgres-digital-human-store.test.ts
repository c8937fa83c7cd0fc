/**
 * The digital human store's port contract (test/contract) against PostgreSQL as their record, with the
 * creates' keys and the copies in Redis: each test a database copied from the run's template and a key
 * prefix of its own.
 */
import { Redis } from "ioredis";
import { describe, expect, inject, it, onTestFinished } from "vitest";
import { PostgresDigitalHumanStore } from "../../src/store/hybrid/digital-human-store.js";
import { creation, digitalHumanStoreContract, record } from "../contract/digital-human-store.contract.js";
import { databaseFrom, testPool } from "../support/database.js";

digitalHumanStoreContract("PostgreSQL (with Redis's keys)", async () => {
  const database = await databaseFrom(inject("databaseTemplate"));
  const db = testPool(database.url, 20);
  const redis = new Redis(inject("redisUrl"));
  return {
    store: new PostgresDigitalHumanStore(db, redis, `dh${crypto.randomUUID().slice(0, 8)}`),
    close: async () => {
      redis.disconnect();
      await db.end();
      await database.drop();
    },
  };
});

describe("Redis's copy of PostgreSQL's digital humans", () => {
  it("reports a copy it could not write or delete, and the create, the change and the delete still stand", async () => {
    const database = await databaseFrom(inject("databaseTemplate"));
    const db = testPool(database.url, 5);
    const redis = new Redis(inject("redisUrl"));
    onTestFinished(async () => {
      redis.disconnect();
      await db.end();
      await database.drop();
    });
    const prefix = `dh${crypto.randomUUID().slice(0, 8)}`;
    const skipped: [string, string][] = [];
    const store = new PostgresDigitalHumanStore(db, redis, prefix, (step, error) => skipped.push([step, (error as Error).message]));
    const owner = "acct_copy";
    // The copy's hash is a string: every write of the copy fails inside its MULTI, as Redis out of memory would.
    await redis.set(`${prefix}:{${owner}}:dh`, "not a hash");
    const made = record(owner);
    expect(await store.createDigitalHuman(creation(made))).toEqual({ kind: "created", record: made });
    const stored = await store.getDigitalHuman(owner, made.id);
    if (!stored) throw new Error("not stored");
    expect(stored.record).toEqual(made);
    expect(await store.replaceDigitalHuman({ ...made, name: "Ines" }, stored.version)).toBe(true);
    expect(await store.deleteDigitalHuman(owner, made.id)).toBe(true);
    expect(skipped.map(([step]) => step)).toEqual(["digital_human_copy", "digital_human_copy", "digital_human_copy_delete"]);
    for (const [, message] of skipped) expect(message).toMatch(/WRONGTYPE/);
    expect(await store.getDigitalHuman(owner, made.id)).toBeUndefined();
  });
});
