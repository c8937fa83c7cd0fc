/**
 * Fires session timers with nobody reading the session (contract guide, "Session lifecycle": the join,
 * digital-human, departure and maximum-duration timeouts, and the digital human watcher's checks). Every
 * replica runs one; the store hands each due timer to one replica at a time
 * (claimed with a lease), and a timer is marked done only after its effects succeeded, so a replica that
 * dies or a LiveKit that is down only delays a timer until its lease runs out.
 */
import { type FeatureTimerHandlers, isFeatureTimer, type TimerKind } from "../domain/sessions/feature-timers.js";
import type { DueTimer, TimerQueue } from "../domain/sessions/ports.js";
import { RepeatingPass } from "./repeating-pass.js";

/** Whoever fires a due timer. */
export interface TimerHandler {
  onTimer(due: DueTimer): Promise<void>;
}

/** The session machine fires its timers; each feature the ones it registered (feature-timers.ts). */
export function sessionTimers(sessions: TimerHandler, features: FeatureTimerHandlers): TimerHandler {
  return {
    onTimer: (due) => (isFeatureTimer(due.timer) ? features[due.timer](due.accountId, due.sessionId) : sessions.onTimer(due)),
  };
}

/** The timers of one pass that failed, each left to be claimed again once its lease runs out. */
export interface FailedTimers {
  count: number;
  byTimer: Partial<Record<TimerKind, number>>;
  /** The first failure's message and session: the rest of a pass usually failed alike. */
  first: { message: string; sessionId: string };
}

export interface SweeperOptions {
  intervalMs: number;
  /** How long a claimed timer belongs to this replica before another may take it. */
  leaseMs: number;
  batch: number;
  /** Each timer that failed, as it fails; `due` undefined: claiming them failed, and the pass with it. */
  onError?: (error: unknown, due: DueTimer | undefined) => void;
  /**
   * Once at the end of a pass in which timers failed: a dependency that is down fails every due timer,
   * and a line each (thousands a second) would bury the one that says why.
   */
  onFailures?: (failed: FailedTimers) => void;
  now?: () => number;
}

export class TimerSweeper {
  private readonly repeating: RepeatingPass;

  constructor(
    private readonly store: TimerQueue,
    private readonly sessions: TimerHandler,
    private readonly options: SweeperOptions,
  ) {
    this.repeating = new RepeatingPass(
      () => this.sweep(),
      options.intervalMs,
      (error) => options.onError?.(error, undefined),
    );
  }

  start(): void {
    this.repeating.start();
  }

  stop(): Promise<void> {
    return this.repeating.stop();
  }

  /** One pass: fires every timer due now. Returns how many fired; a failed claim rejects. */
  async sweep(): Promise<number> {
    const { leaseMs, batch, now = Date.now } = this.options;
    let fired = 0;
    let failed: FailedTimers | undefined;
    try {
      for (;;) {
        const due = await this.store.claimDueTimers(now(), leaseMs, batch);
        for (const timer of due) {
          try {
            await this.sessions.onTimer(timer);
            await this.store.completeTimer(timer);
            fired++;
          } catch (error) {
            this.options.onError?.(error, timer);
            failed ??= { count: 0, byTimer: {}, first: { message: messageOf(error), sessionId: timer.sessionId } };
            failed.count++;
            failed.byTimer[timer.timer] = (failed.byTimer[timer.timer] ?? 0) + 1;
          }
        }
        if (due.length < batch) return fired;
      }
    } finally {
      if (failed) this.options.onFailures?.(failed);
    }
  }
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
