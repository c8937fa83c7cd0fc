/**
 * The Redis connection of a test file here: to the Redis the api:redis project starts, or to the Redis
 * Cluster of api:cluster, opened before the file's tests and closed after them. Each test gives its
 * stores a key prefix of its own.
 */
import { afterAll, beforeAll, inject } from "vitest";
import { connectRedis } from "../../src/store/redis/client.js";
import { STORE } from "../support/harness.js";

type Connection = ReturnType<typeof connectRedis>;

/** The adapter's name in test titles. */
export const REDIS_ADAPTER = STORE === "cluster" ? "Redis Cluster" : "Redis";

/** Registers the connection's hooks; the function returns it once the file's tests run. */
export function useRedis(): () => Connection {
  let redis: Connection | undefined;
  beforeAll(async () => {
    const connection = connectRedis({ url: inject("redisUrl"), mode: inject("redisMode"), commandTimeoutMs: 2000 });
    redis = connection;
    // No offline queue: wait until the connection is up.
    if (connection.status !== "ready") await new Promise((resolve) => connection.once("ready", resolve));
  });
  afterAll(async () => {
    await redis?.quit();
  });
  return () => {
    if (!redis) throw new Error("the Redis connection is opened before the file's tests");
    return redis;
  };
}
