/**
 * The customer webhook store's port contract (test/contract) with PostgreSQL as the endpoints' record and
 * Redis keeping their copy and the delivery queue: each test a database copied from the run's template and
 * a key prefix of its own, shared by the session store whose changes queue their events.
 */
import { Redis } from "ioredis";
import { inject } from "vitest";
import { HistoryWebhookStore } from "../../src/store/hybrid/history-webhook-store.js";
import { RedisWebhookCopy } from "../../src/store/redis/customer-webhook-copy.js";
import { RedisWebhookStore } from "../../src/store/redis/customer-webhook-store.js";
import { RedisSessionStore } from "../../src/store/redis/session-store.js";
import { webhookStoreContract } from "../contract/webhook-store.contract.js";
import { databaseFrom, testPool } from "../support/database.js";

webhookStoreContract("PostgreSQL (with Redis's copy and queue)", async () => {
  const database = await databaseFrom(inject("databaseTemplate"));
  const db = testPool(database.url, 10);
  const redis = new Redis(inject("redisUrl"));
  const prefix = `hooks${crypto.randomUUID().slice(0, 8)}`;
  const live = new RedisWebhookStore(redis, prefix, undefined, true);
  return {
    webhooks: new HistoryWebhookStore(live, new RedisWebhookCopy(redis, prefix), db),
    sessions: new RedisSessionStore(redis, prefix),
    close: async () => {
      redis.disconnect();
      await db.end();
      await database.drop();
    },
  };
});
