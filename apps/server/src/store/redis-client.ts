/**
 * An ioredis connection that fails fast. ioredis's defaults queue commands while disconnected and retry
 * each up to 20 times, so a request made during an outage would hang for about a minute. Here a command
 * fails at once when the connection is down and after commandTimeoutMs when Redis does not answer, and
 * the connection keeps reconnecting in the background, so the service answers 503 quickly and recovers
 * by itself.
 */
import { Redis } from "ioredis";

export interface RedisConnectionOptions {
  url: string;
  commandTimeoutMs?: number;
  onError?: (error: Error) => void;
}

export function fastFailRedisOptions(commandTimeoutMs: number) {
  return {
    enableOfflineQueue: false,
    commandTimeout: commandTimeoutMs,
    connectTimeout: 1000,
    maxRetriesPerRequest: 0,
    // Reconnect forever, at most a second apart.
    retryStrategy: (attempt: number) => Math.min(50 * attempt, 1000),
    // Lua scripts and replies here are RESP2-shaped; pin the protocol rather than follow the default.
    protocol: 2 as const,
  };
}

export function connectRedis({ url, commandTimeoutMs = 500, onError }: RedisConnectionOptions): Redis {
  const redis = new Redis(url, fastFailRedisOptions(commandTimeoutMs));
  // Without a listener ioredis prints every connection error; the owner decides what to log.
  redis.on("error", (error: Error) => onError?.(error));
  return redis;
}
