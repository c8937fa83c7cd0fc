/**
 * The digital human store's port contract (test/contract) against PostgreSQL as their record, with the
 * creates' keys and the copies in Redis: each test a database copied from the run's template and a key
 * prefix of its own.
 */
import { Redis } from "ioredis";
import { inject } from "vitest";
import { PostgresDigitalHumanStore } from "../../src/store/hybrid/digital-human-store.js";
import { digitalHumanStoreContract } from "../contract/digital-human-store.contract.js";
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
