/**
 * The customer webhook store's port contract (test/contract) against the Redis adapter: on one Redis in
 * the api:redis project, on a Redis Cluster in api:cluster. Each test gets a key prefix of its own, shared
 * by the session store whose changes queue their events in it.
 */
import { RedisWebhookStore } from "../../src/store/redis/customer-webhook-store.js";
import { RedisSessionStore } from "../../src/store/redis/session-store.js";
import { webhookStoreContract } from "../contract/webhook-store.contract.js";
import { REDIS_ADAPTER, useRedis } from "./redis-connection.js";

const redis = useRedis();

webhookStoreContract(REDIS_ADAPTER, async () => {
  const prefix = `hooks${crypto.randomUUID().slice(0, 8)}`;
  return {
    webhooks: new RedisWebhookStore(redis(), prefix),
    sessions: new RedisSessionStore(redis(), prefix),
    // The connection is the file's; each store only has its own prefix.
    close: async () => {},
  };
});
