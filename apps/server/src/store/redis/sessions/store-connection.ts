/**
 * The session store's connection to Redis (StoreConnection): the one every Redis store of the process
 * shares, so closing the session store closes it for them all.
 */
import type { StoreConnection } from "../../../domain/sessions/ports.js";
import { guard } from "../guard.js";
import type { SessionStoreContext } from "./context.js";

export class RedisStoreConnection implements StoreConnection {
  constructor(private readonly context: SessionStoreContext) {}

  ping(): Promise<void> {
    return guard(async () => {
      await this.context.redis.ping();
    });
  }

  async close(): Promise<void> {
    const { redis } = this.context;
    await redis.quit().catch(() => redis.disconnect());
  }
}
