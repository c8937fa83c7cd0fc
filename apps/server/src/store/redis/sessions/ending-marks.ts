/**
 * endSession's marks on Redis (EndingMarks): one short-lived key per session in its shard, read with the
 * session by readForChange's MGET. Kept by session id: only a session's own account reaches it (through
 * getSession).
 */
import type { EndingMarks } from "../../../domain/sessions/ports.js";
import { guard } from "../guard.js";
import type { SessionStoreContext } from "./context.js";

export class RedisEndingMarks implements EndingMarks {
  constructor(private readonly context: SessionStoreContext) {}

  markEnding(_accountId: string, sessionId: string, ttlMs: number): Promise<void> {
    const { redis, keys } = this.context;
    return guard(async () => {
      await redis.set(keys.ending(sessionId), "1", "PX", ttlMs);
    });
  }

  clearEnding(_accountId: string, sessionId: string): Promise<void> {
    const { redis, keys } = this.context;
    return guard(async () => {
      await redis.del(keys.ending(sessionId));
    });
  }
}
