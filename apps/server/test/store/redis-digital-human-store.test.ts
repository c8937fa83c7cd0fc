/**
 * The digital human store's port contract (test/contract) against the Redis adapter: on one Redis in the
 * api:redis project, on a Redis Cluster in api:cluster. Each test gets a key prefix of its own.
 */
import { RedisDigitalHumanStore } from "../../src/store/redis/digital-humans/digital-human-store.js";
import { digitalHumanStoreContract } from "../contract/digital-human-store.contract.js";
import { REDIS_ADAPTER, useRedis } from "./redis-connection.js";

const redis = useRedis();

digitalHumanStoreContract(REDIS_ADAPTER, async () => ({
  store: new RedisDigitalHumanStore(redis(), `dh${crypto.randomUUID().slice(0, 8)}`),
  // The connection is the file's; each store only has its own prefix.
  close: async () => {},
}));
