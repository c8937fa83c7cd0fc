/**
 * The customer webhook store's port contract (test/contract) against the Redis adapter: on one Redis in
 * the api:redis project, on a Redis Cluster in api:cluster. Each test gets a key prefix of its own, shared
 * by the session store whose changes queue their events in it.
 */
import { afterAll, beforeAll, inject } from "vitest";
import { connectRedis } from "../../src/store/redis/client.js";
import { RedisWebhookStore } from "../../src/store/redis/customer-webhook-store.js";
import { RedisSessionStore } from "../../src/store/redis/session-store.js";
import { webhookStoreContract } from "../contract/webhook-store.contract.js";
import { STORE } from "../support/harness.js";

let redis: ReturnType<typeof connectRedis>;
beforeAll(async () => {
  redis = connectRedis({ url: inject("redisUrl"), mode: inject("redisMode"), commandTimeoutMs: 2000 });
  // No offline queue: wait until the connection is up.
  if (redis.status !== "ready") await new Promise((resolve) => redis.once("ready", resolve));
});
afterAll(async () => {
  await redis?.quit();
});

webhookStoreContract(STORE === "cluster" ? "Redis Cluster" : "Redis", async () => {
  const prefix = `hooks${crypto.randomUUID().slice(0, 8)}`;
  return {
    webhooks: new RedisWebhookStore(redis, prefix),
    sessions: new RedisSessionStore(redis, prefix),
    // The connection is the file's; each store only has its own prefix.
    close: async () => {},
  };
});
