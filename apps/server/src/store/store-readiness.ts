/**
 * Whether the store can be used: it answers and, on Redis, holds this server's key layout (layout-version.ts);
 * with a history database, that database held this server's schema when first asked (schema-version.ts).
 * The store connects in the background and fails fast while it cannot, so a process waits for it before it
 * listens (Composed.waitForStore), and GET /readyz asks it on every probe.
 */
import type { Cluster, Redis } from "ioredis";
import { ConfigError } from "../config/config-error.js";
import { DependencyUnavailableError } from "../domain/dependency-errors.js";
import type { SessionStore } from "../domain/sessions/ports.js";
import type { DatabaseSchema } from "./postgres/schema-version.js";
import type { StoreLayout } from "./redis/layout-version.js";

export class StoreReadiness {
  constructor(
    private readonly store: SessionStore,
    /** A Redis the store does not ping itself (the other stores' and the rate limiter's, beside a store of a test's). */
    private readonly sharedRedis: Redis | Cluster | undefined,
    private readonly layout: StoreLayout,
    /** The history database's schema, when there is one: checked once at start, not on every probe. */
    private readonly schema?: DatabaseSchema,
  ) {}

  /** Rejects with DependencyUnavailableError unless the store answers and its key layout is confirmed. */
  async ready(): Promise<void> {
    await this.store.ping();
    if (!this.layout.confirmed) throw new DependencyUnavailableError("store");
    if (this.schema && !this.schema.confirmed) throw new DependencyUnavailableError("database");
  }

  /**
   * Resolves true once the store (and the Redis the rate limiter shares) answers and its key layout is
   * confirmed, false after the timeout; rejects with a ConfigError when Redis holds another layout.
   */
  async waitFor(timeoutMs: number, pollMs: number): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      try {
        await this.store.ping();
        if (this.sharedRedis) {
          await this.sharedRedis.ping().catch((cause) => Promise.reject(new DependencyUnavailableError("store", { cause })));
        }
        await this.layout.confirm();
        await this.schema?.confirm();
        return true;
      } catch (error) {
        if (!(error instanceof DependencyUnavailableError) || Date.now() >= deadline) {
          if (error instanceof ConfigError) throw error;
          return false;
        }
        await new Promise((resolve) => setTimeout(resolve, pollMs));
      }
    }
  }
}
