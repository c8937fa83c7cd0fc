/**
 * Session timers on Redis (TimerQueue): one sorted set per shard, in the shard's slot beside its
 * sessions, a member per (account, session, timer) scored by its due time. Every replica claims what is
 * due in each shard with a lease (timer-queue-scripts.ts), so a timer fires once, and again only if its
 * holder died.
 */

import { TIMER_KINDS } from "../../../domain/sessions/feature-timers.js";
import type { DueTimer, ScheduledTimer, TimerQueue } from "../../../domain/sessions/ports.js";
import { LIFECYCLE_TIMERS, type ObligationTimer } from "../../../domain/sessions/session-machine.js";
import { guard } from "../guard.js";
import { parseTimerMember, SHARDS, shardOf, timerMember } from "../keys.js";
import type { SessionStoreContext } from "./context.js";

export class RedisTimerQueue implements TimerQueue {
  constructor(private readonly context: SessionStoreContext) {}

  scheduleTimers(accountId: string, sessionId: string, timers: readonly ScheduledTimer[]): Promise<void> {
    if (timers.length === 0) return Promise.resolve();
    const { redis, keys } = this.context;
    return guard(async () => {
      await redis.zadd(
        keys.timers(shardOf(sessionId)),
        ...timers.flatMap(({ timer, atMs }) => [atMs, timerMember(accountId, sessionId, timer)]),
      );
    });
  }

  cancelTimer(accountId: string, sessionId: string, timer: ObligationTimer): Promise<void> {
    const { redis, keys } = this.context;
    return guard(async () => {
      await redis.zrem(keys.timers(shardOf(sessionId)), timerMember(accountId, sessionId, timer));
    });
  }

  cancelTimers(accountId: string, sessionId: string): Promise<void> {
    const { redis, keys } = this.context;
    return guard(async () => {
      await redis.zrem(keys.timers(shardOf(sessionId)), ...LIFECYCLE_TIMERS.map((timer) => timerMember(accountId, sessionId, timer)));
    });
  }

  /** One ZMSCORE of the session's possible timers in its shard's set. */
  sessionTimers(accountId: string, sessionId: string): Promise<ScheduledTimer[]> {
    const { redis, keys } = this.context;
    return guard(async () => {
      const kinds = TIMER_KINDS;
      const scores = await redis.zmscore(
        keys.timers(shardOf(sessionId)),
        ...kinds.map((timer) => timerMember(accountId, sessionId, timer)),
      );
      return kinds.flatMap((timer, i) => (scores[i] === null || scores[i] === undefined ? [] : [{ timer, atMs: Number(scores[i]) }]));
    });
  }

  /** Up to `max` from each shard: every shard is asked at once (one round trip, spread over the masters). */
  claimDueTimers(nowMs: number, leaseMs: number, max: number): Promise<DueTimer[]> {
    const { keys, scripts } = this.context;
    return guard(async () => {
      const claims = await Promise.all(
        Array.from({ length: SHARDS }, (_, shard) =>
          scripts.run("claimDue", { set: keys.timers(shard), nowMs, leaseUntilMs: nowMs + leaseMs, max }),
        ),
      );
      return claims.flat().map((member) => ({
        ...(parseTimerMember(member) as Pick<DueTimer, "accountId" | "sessionId" | "timer">),
        claimedUntil: nowMs + leaseMs,
      }));
    });
  }

  completeTimer(due: DueTimer): Promise<void> {
    const { keys, scripts } = this.context;
    return guard(async () => {
      await scripts.run("completeTimer", {
        timers: keys.timers(shardOf(due.sessionId)),
        member: timerMember(due.accountId, due.sessionId, due.timer),
        claimedUntil: due.claimedUntil,
      });
    });
  }
}
