/**
 * Usage counters moving from Redis to the history database (UsageMoves): what the history writer takes
 * from an account's counters, and how a reader sees them whole meanwhile (usage-moves-scripts.ts).
 */
import type { UsageMove, UsageMoves, UsageSnapshot } from "../../../domain/sessions/history-ports.js";
import { guard } from "../guard.js";
import type { SessionStoreContext } from "./context.js";

export class RedisUsageMoves implements UsageMoves {
  constructor(private readonly context: SessionStoreContext) {}

  beginMoves(accountId: string, days: readonly string[]): Promise<UsageMove[]> {
    const { keys, scripts } = this.context;
    return guard(async () => {
      const reply = await scripts.run("beginUsageMoves", {
        moving: keys.usageMoving(accountId),
        counters: days.map((day) => keys.usage(accountId, day)),
        days,
        moveId: crypto.randomUUID(),
      });
      return movesOf(accountId, reply);
    });
  }

  endMoves(accountId: string, ids: readonly string[]): Promise<void> {
    const { redis, keys } = this.context;
    if (ids.length === 0) return Promise.resolve();
    return guard(async () => {
      await redis.hdel(keys.usageMoving(accountId), ...ids);
    });
  }

  snapshot(accountId: string, days: readonly string[]): Promise<UsageSnapshot> {
    const { keys, scripts } = this.context;
    return guard(async () => {
      const [[takenAtUs = "0"] = [], pending = [], ...counters] = await scripts.run("usageSnapshot", {
        moving: keys.usageMoving(accountId),
        counters: days.map((day) => keys.usage(accountId, day)),
      });
      return { counters: counters.map(pairsOf), pending: movesOf(accountId, pending), takenAtUs: Number(takenAtUs) };
    });
  }
}

function pairsOf(flat: readonly string[]): Record<string, string> {
  const record: Record<string, string> = {};
  for (let i = 0; i + 1 < flat.length; i += 2) record[flat[i] as string] = flat[i + 1] as string;
  return record;
}

/** Pending moves from the script's id, value pairs (a value is the day, its time in µs, then `field=n` pairs). */
function movesOf(accountId: string, flat: readonly string[]): UsageMove[] {
  return Object.entries(pairsOf(flat)).map(([id, value]) => {
    const [day = "", movedAtUs = "0", ...pairs] = value.split(" ");
    const counts: Record<string, number> = {};
    for (const pair of pairs) {
      const at = pair.lastIndexOf("=");
      counts[pair.slice(0, at)] = Number(pair.slice(at + 1));
    }
    return { id, accountId, day, movedAtUs: Number(movedAtUs), counts };
  });
}
