/**
 * The participant memory store's port contract (test/contract) against the Redis adapter: on one Redis
 * in the api:redis project, on a Redis Cluster in api:cluster. Each test gets a key prefix of its own.
 */
import { RedisParticipantMemories } from "../../src/store/redis/participant-memory-store.js";
import { participantMemoryStoreContract } from "../contract/participant-memory-store.contract.js";
import { REDIS_ADAPTER, useRedis } from "./redis-connection.js";

const redis = useRedis();

participantMemoryStoreContract(REDIS_ADAPTER, async () => {
  let now = Date.now();
  return {
    store: new RedisParticipantMemories(redis(), `mem${crypto.randomUUID().slice(0, 8)}`, undefined, () => now),
    setNow: (ms) => (now = ms),
    // The connection is the file's; each store only has its own prefix.
    close: async () => {},
  };
});
