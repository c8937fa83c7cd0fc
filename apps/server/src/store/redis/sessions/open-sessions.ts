/**
 * An account's places among its open sessions on Redis: what its concurrency cap counts, exactly, in the
 * account's slot (its open sessions and, among them, the creates in flight with their claims' expiry).
 * A create holds a place with its claim and is admitted once its session is stored, or gives it back; an
 * ended session gives its back; each of these counts the usage on the way (open-sessions-scripts.ts).
 * These steps follow the ones in the session's shard, so a crash between the two leaves a place counted
 * that the repair (repair below) gives back or admits.
 */
import type { SessionRecord } from "../../../domain/sessions/session.js";
import { TERMINAL } from "../../../domain/sessions/session.js";
import { type UsageIncrement, usageOf, utcDay } from "../../../domain/sessions/usage.js";
import { decodeSession } from "../../session-format.js";
import { guard } from "../guard.js";
import { dayOf } from "../keys.js";
import { readSessions, type SessionStoreContext } from "./context.js";
import { incrementsOf, USAGE_TTL_MS } from "./usage-counters.js";

/** A place asked for: held or not (at the cap), the open sessions, and the account's webhook routes read on the way. */
export interface Place {
  ok: boolean;
  open: number;
  routes: Record<string, string>;
}

export class OpenSessions {
  /** When this replica last repaired each account (ms). */
  private readonly repairedAt = new Map<string, number>();

  constructor(private readonly context: SessionStoreContext) {}

  /** Holds a place for a create's session unless the account is at `maxOpen`; renews its claim if it holds one. */
  async reserve(accountId: string, sessionId: string, createdMs: number, claimExpiryMs: number, maxOpen: number): Promise<Place> {
    const { keys } = this.context;
    const [ok, open, ...flat] = await this.context.scripts.run("reserve", {
      open: keys.open(accountId),
      claims: keys.claims(accountId),
      routes: keys.hookRoutes(accountId),
      days: keys.days(accountId),
      sessionId,
      createdMs,
      claimExpiryMs,
      maxOpen,
      day: dayOf(createdMs),
      dayStartMs: Date.parse(dayOf(createdMs)),
    });
    const routes: Record<string, string> = {};
    for (let i = 0; i < flat.length; i += 2) routes[flat[i] as string] = flat[i + 1] as string;
    return { ok: ok === 1, open, routes };
  }

  /** Gives back a create's place, if its claim is still the one it made (claimExpiryMs). */
  async unreserve(accountId: string, sessionId: string, claimExpiryMs: number): Promise<void> {
    const { keys } = this.context;
    await this.context.scripts.run("unreserve", { open: keys.open(accountId), claims: keys.claims(accountId), sessionId, claimExpiryMs });
  }

  /** A create's session is stored: its claim is dropped (its place stays) and its usage counted, once. */
  async admit(accountId: string, sessionId: string, usage: UsageIncrement | undefined): Promise<void> {
    const { keys } = this.context;
    await this.context.scripts.run("admit", {
      claims: keys.claims(accountId),
      usage: keys.usage(accountId, usage?.day ?? "none"),
      sessionId,
      increments: incrementsOf(usage),
      usageTtlMs: USAGE_TTL_MS,
    });
  }

  /** An ended session gives back its place and counts its usage (and its creation, if not counted yet). */
  async settle(record: SessionRecord, usage: UsageIncrement | undefined): Promise<boolean> {
    const { keys } = this.context;
    const created = usageOf(undefined, record);
    const settled = await this.context.scripts.run("settle", {
      open: keys.open(record.account_id),
      claims: keys.claims(record.account_id),
      endedUsage: keys.usage(record.account_id, usage?.day ?? "none"),
      createdUsage: keys.usage(record.account_id, created?.day ?? utcDay(record.created_at)),
      sessionId: record.id,
      endedIncrements: incrementsOf(usage),
      createdIncrements: incrementsOf(created),
      usageTtlMs: USAGE_TTL_MS,
    });
    return settled === 1;
  }

  /** SessionRecords.settleEnded: an ended session still holding its place gives it back, once. */
  settleEnded(record: SessionRecord): Promise<void> {
    return guard(async () => {
      if (!TERMINAL.has(record.status)) return;
      await this.settle(record, usageOf({ ...record, status: "active", ended_at: null }, record));
    });
  }

  /** SessionRecords.openSessions: repaired first when a claim has expired past the grace. */
  openSessions(accountId: string): Promise<number> {
    const { redis, keys, claimGraceMs } = this.context;
    return guard(async () => {
      const stale = await redis.zcount(keys.claims(accountId), "-inf", Date.now() - claimGraceMs);
      if (stale > 0) await this.repair(accountId, false);
      return redis.zcard(keys.open(accountId));
    });
  }

  /**
   * Repairs what crashes left in the account's count of open sessions: a create whose claim expired
   * (past the grace) is counted if its session was stored and given back otherwise; an ended session
   * still holding its place gives it back and counts its usage. At most once per repairIntervalMs per
   * account on this replica unless `force`d (the cost is a read of every open session: bounded by the
   * cap). True when it ran.
   */
  async repair(accountId: string, force: boolean): Promise<boolean> {
    const { redis, keys, claimGraceMs, repairIntervalMs } = this.context;
    const nowMs = Date.now();
    if (!force && nowMs - (this.repairedAt.get(accountId) ?? Number.NEGATIVE_INFINITY) < repairIntervalMs) return false;
    this.repairedAt.set(accountId, nowMs);
    const [open, claims] = await Promise.all([
      redis.zrange(keys.open(accountId), "0", "-1"),
      redis.zrange(keys.claims(accountId), "0", "-1", "WITHSCORES"),
    ]);
    const claimed = new Map<string, number>();
    for (let i = 0; i < claims.length; i += 2) claimed.set(claims[i] as string, Number(claims[i + 1]));
    const records = await readSessions(this.context, open);
    await Promise.all(
      open.map(async (sessionId, i) => {
        const json = records[i];
        const record = json ? decodeSession(json, sessionId) : undefined;
        const claimExpiry = claimed.get(sessionId);
        if (record && record.account_id === accountId) {
          if (TERMINAL.has(record.status)) await this.settleEnded(record);
          else if (claimExpiry !== undefined && claimExpiry + claimGraceMs < nowMs)
            await this.admit(accountId, sessionId, usageOf(undefined, record));
        } else if (claimExpiry === undefined || claimExpiry + claimGraceMs < nowMs) {
          // No session, and no create that may still store it: a create that died, or an ended
          // session whose retention ended before its place was given back.
          if (claimExpiry === undefined) await redis.zrem(keys.open(accountId), sessionId);
          else await this.unreserve(accountId, sessionId, claimExpiry);
        }
      }),
    );
    return true;
  }
}
