/**
 * The recording expiries' port contract (test/contract) against the Redis adapter: on one Redis in the
 * api:redis project, on a Redis Cluster in api:cluster. Each test gets a key prefix of its own.
 */
import { RedisRecordingExpiries } from "../../src/store/redis/recording-expiries.js";
import { recordingExpiriesContract } from "../contract/recording-expiries.contract.js";
import { REDIS_ADAPTER, useRedis } from "./redis-connection.js";

const redis = useRedis();

recordingExpiriesContract(REDIS_ADAPTER, async () => new RedisRecordingExpiries(redis(), `rec${crypto.randomUUID().slice(0, 8)}`));
