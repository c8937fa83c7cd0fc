/**
 * Usage counters on Redis (UsageCounters): a hash per account and UTC day in the account's slot, kept
 * USAGE_RETENTION_DAYS. Session changes count theirs in their own scripts (open-sessions-scripts.ts);
 * this reads them and counts what no session change carries (transcript segments).
 */
import type { UsageCounters } from "../../../domain/sessions/ports.js";
import { USAGE_RETENTION_DAYS, type UsageIncrement } from "../../../domain/sessions/usage.js";
import { execTransaction, guard } from "../guard.js";
import type { SessionStoreContext } from "./context.js";

export const USAGE_TTL_MS = USAGE_RETENTION_DAYS * 86_400_000;

/** Usage increments as the scripts take them: `field=n`, space-separated ('' for none). */
export function incrementsOf(usage: UsageIncrement | undefined): string {
  return usage ? usage.fields.map(([field, by]) => `${field}=${by}`).join(" ") : "";
}

export class RedisUsageCounters implements UsageCounters {
  constructor(private readonly context: SessionStoreContext) {}

  usage(accountId: string, days: readonly string[]): Promise<Record<string, string>[]> {
    const { redis, keys } = this.context;
    return guard(async () => Promise.all(days.map((day) => redis.hgetall(keys.usage(accountId, day)))));
  }

  countUsage(accountId: string, increment: UsageIncrement): Promise<void> {
    const { redis, keys } = this.context;
    const key = keys.usage(accountId, increment.day);
    return guard(async () => {
      const multi = redis.multi();
      for (const [field, by] of increment.fields) multi.hincrby(key, field, by);
      await execTransaction(multi.pexpire(key, USAGE_TTL_MS));
    });
  }
}
