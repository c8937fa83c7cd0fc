/**
 * An ioredis connection, to one Redis or to a Redis Cluster, that fails fast. ioredis's defaults queue
 * commands while disconnected and retry each up to 20 times, so a request made during an outage would
 * hang for about a minute. Here a command fails at once when the connection is down and after
 * commandTimeoutMs when Redis does not answer, and the connection keeps reconnecting in the background,
 * so the service answers 503 quickly and recovers by itself.
 */
import { Cluster, Redis } from "ioredis";
import type { RedisMode } from "../../config.js";

export interface RedisConnectionOptions {
  /** One URL, or in cluster mode a comma-separated list of seed nodes. */
  url: string;
  mode?: RedisMode;
  commandTimeoutMs?: number;
  onError?: (error: Error) => void;
}

// Reconnect forever, at most a second apart.
const reconnectDelay = (attempt: number) => Math.min(50 * attempt, 1000);

export function fastFailRedisOptions(commandTimeoutMs: number) {
  return {
    enableOfflineQueue: false,
    commandTimeout: commandTimeoutMs,
    connectTimeout: 1000,
    maxRetriesPerRequest: 0,
    retryStrategy: reconnectDelay,
    // Lua scripts and replies here are RESP2-shaped; pin the protocol rather than follow the default.
    protocol: 2 as const,
  };
}

function connectCluster(urls: string, commandTimeoutMs: number): Cluster {
  const seeds = urls.split(",").map((seed) => {
    const parsed = new URL(seed.trim());
    return { host: parsed.hostname, port: Number(parsed.port || 6379) };
  });
  const first = new URL(urls.split(",")[0]?.trim() ?? "");
  const { enableOfflineQueue, retryStrategy: _perNode, ...perNode } = fastFailRedisOptions(commandTimeoutMs);
  return new Cluster(seeds, {
    // The cluster client queues and retries at its own level: both are set here, not per node.
    enableOfflineQueue,
    clusterRetryStrategy: reconnectDelay,
    // During a failover nodes answer CLUSTERDOWN or MOVED for a moment; ioredis retries those after
    // 100 ms instead of its default, which waits longer (test/fault/redis-cluster-failover.test.ts).
    retryDelayOnClusterDown: 100,
    retryDelayOnFailover: 100,
    retryDelayOnTryAgain: 100,
    slotsRefreshTimeout: Math.max(commandTimeoutMs, 1000),
    redisOptions: {
      ...perNode,
      ...(first.username ? { username: decodeURIComponent(first.username) } : {}),
      ...(first.password ? { password: decodeURIComponent(first.password) } : {}),
      ...(first.protocol === "rediss:" ? { tls: {} } : {}),
    },
  });
}

export function connectRedis({ url, mode = "standalone", commandTimeoutMs = 500, onError }: RedisConnectionOptions): Redis | Cluster {
  const redis = mode === "cluster" ? connectCluster(url, commandTimeoutMs) : new Redis(url, fastFailRedisOptions(commandTimeoutMs));
  // Without a listener ioredis prints every connection error; the owner decides what to log.
  redis.on("error", (error: Error) => onError?.(error));
  return redis;
}
