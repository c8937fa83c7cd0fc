/**
 * When ready recordings' files are deleted (RecordingExpiries), on Redis: one sorted set of their keys
 * by time, a single key (Cluster-safe); each replica's retention pass reads the due ones from it.
 */
import type { Cluster, Redis } from "ioredis";
import type { RecordingExpiries } from "../../domain/recordings/ports.js";
import { guard } from "./guard.js";
import { keyspace } from "./keys.js";

export class RedisRecordingExpiries implements RecordingExpiries {
  private readonly key: string;

  constructor(
    private readonly redis: Redis | Cluster,
    prefix: string,
  ) {
    this.key = keyspace(prefix).recordingExpiries;
  }

  async add(key: string, atMs: number): Promise<void> {
    // LT: a new key is added, one there already moves only to a sooner time (RecordingExpiries.add).
    await guard(() => this.redis.zadd(this.key, "LT", atMs, key));
  }

  due(nowMs: number, limit: number): Promise<string[]> {
    return guard(() => this.redis.zrangebyscore(this.key, "-inf", nowMs, "LIMIT", 0, limit));
  }

  async remove(keys: readonly string[]): Promise<void> {
    if (keys.length === 0) return;
    await guard(() => this.redis.zrem(this.key, ...keys));
  }
}
