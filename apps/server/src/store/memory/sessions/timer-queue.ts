/**
 * Session timers in memory (TimerQueue): each session's timers by kind with their due time; a claim pushes
 * a due timer to the end of its lease, as the Redis store's does, so its semantics hold for one process.
 */

import type { TimerKind } from "../../../domain/sessions/feature-timers.js";
import type { DueTimer, ScheduledTimer, TimerQueue } from "../../../domain/sessions/ports.js";
import { LIFECYCLE_TIMERS, type ObligationTimer } from "../../../domain/sessions/session-machine.js";
import type { MemorySessionState, Timer } from "./state.js";

export class MemoryTimerQueue implements TimerQueue {
  constructor(private readonly state: MemorySessionState) {}

  async scheduleTimers(accountId: string, sessionId: string, timers: readonly ScheduledTimer[]): Promise<void> {
    this.state.schedule(accountId, sessionId, timers);
  }

  async cancelTimer(_accountId: string, sessionId: string, timer: ObligationTimer): Promise<void> {
    this.state.dropTimer(sessionId, timer);
  }

  async cancelTimers(_accountId: string, sessionId: string): Promise<void> {
    for (const timer of LIFECYCLE_TIMERS) this.state.dropTimer(sessionId, timer);
  }

  async sessionTimers(_accountId: string, sessionId: string): Promise<ScheduledTimer[]> {
    return [...(this.state.timers.get(sessionId) ?? [])].map(([timer, { atMs }]) => ({ timer, atMs }));
  }

  async claimDueTimers(nowMs: number, leaseMs: number, max: number): Promise<DueTimer[]> {
    const { timers } = this.state;
    const due: (Timer & { sessionId: string; timer: TimerKind })[] = [];
    for (const [sessionId, own] of timers) {
      for (const [timer, at] of own) if (at.atMs <= nowMs) due.push({ ...at, sessionId, timer });
    }
    const claimed = due.sort((a, b) => a.atMs - b.atMs).slice(0, max);
    const claimedUntil = nowMs + leaseMs;
    for (const { sessionId, timer, accountId } of claimed) timers.get(sessionId)?.set(timer, { accountId, atMs: claimedUntil });
    return claimed.map(({ accountId, sessionId, timer }) => ({ accountId, sessionId, timer, claimedUntil }));
  }

  async completeTimer(due: DueTimer): Promise<void> {
    if (this.state.timers.get(due.sessionId)?.get(due.timer)?.atMs === due.claimedUntil) this.state.dropTimer(due.sessionId, due.timer);
  }
}
