/**
 * The session store's port contracts (test/contract) against the Redis adapter: on one Redis in the
 * api:redis project, on a Redis Cluster in api:cluster. Each test gets a key prefix of its own.
 */
import { afterAll, beforeAll, inject } from "vitest";
import { connectRedis } from "../../src/store/redis/client.js";
import { RedisSessionStore } from "../../src/store/redis/session-store.js";
import { sessionStoreContract } from "../contract/session-store.contract.js";
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

sessionStoreContract(STORE === "cluster" ? "Redis Cluster" : "Redis", async () => ({
  store: new RedisSessionStore(redis, `contract${crypto.randomUUID().slice(0, 8)}`),
  // The connection is the file's; each store only has its own prefix.
  close: async () => {},
}));
