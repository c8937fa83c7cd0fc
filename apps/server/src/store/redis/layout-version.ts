/**
 * The key layout a Redis holds under a prefix, claimed at start: a server refuses a Redis that holds
 * another layout, with one line, rather than misread its keys. A fresh Redis gets this server's layout.
 */
import type { Cluster, Redis } from "ioredis";
import { ConfigError } from "../../config/config-error.js";
import { guard } from "./guard.js";
import { keyspace, LAYOUT_VERSION } from "./keys.js";

export type LayoutCheck = { kind: "ok" } | { kind: "other"; found: string };

/** Keys only layout 1, which had no version key, wrote: one of them present means that layout. */
const LAYOUT_1_KEYS = (prefix: string) => [`${prefix}:{timers}:due`, `${prefix}:{hooks}:accounts`];

export async function claimLayout(redis: Redis | Cluster, prefix: string): Promise<LayoutCheck> {
  const key = keyspace(prefix).layout;
  let found = await redis.get(key);
  if (found === null) {
    // One key at a time: on Redis Cluster they live in different slots.
    for (const old of LAYOUT_1_KEYS(prefix)) if ((await redis.exists(old)) === 1) return { kind: "other", found: "1" };
    await redis.set(key, String(LAYOUT_VERSION), "NX");
    // Another server may have claimed it first, with its own layout.
    found = await redis.get(key);
  }
  return found === String(LAYOUT_VERSION) ? { kind: "ok" } : { kind: "other", found: found ?? "none" };
}

/** The line an operator reads when the layouts differ. */
export function layoutMismatch(found: string, prefix: string): string {
  return (
    `Redis holds key layout ${found} under REDIS_KEY_PREFIX "${prefix}"; this server reads and writes layout ${LAYOUT_VERSION}. ` +
    "Run the server version that wrote it, or give this one an empty Redis or another REDIS_KEY_PREFIX (see docs/operators.md, Upgrades)"
  );
}

/**
 * Whether the Redis in use holds this server's key layout (claimed on a fresh Redis); memory always does.
 * Until it is confirmed the replica is unready.
 */
export class StoreLayout {
  confirmed: boolean;

  constructor(
    private readonly redis: Redis | Cluster | undefined,
    private readonly prefix: string,
  ) {
    this.confirmed = redis === undefined;
  }

  /** Rejects with DependencyUnavailableError while Redis cannot be asked, ConfigError for another layout. */
  async confirm(): Promise<void> {
    if (this.confirmed || !this.redis) return;
    const check = await guard(() => claimLayout(this.redis as NonNullable<typeof this.redis>, this.prefix));
    if (check.kind === "other") throw new ConfigError(layoutMismatch(check.found, this.prefix));
    this.confirmed = true;
  }
}
