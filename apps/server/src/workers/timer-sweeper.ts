/**
 * Fires session timers with nobody reading the session (contract guide, "Session lifecycle": the join,
 * digital-human, departure and maximum-duration timeouts, and the digital human watcher's checks). Every
 * replica runs one; the store hands each due timer to one replica at a time
 * (claimed with a lease), and a timer is marked done only after its effects succeeded, so a replica that
 * dies or a LiveKit that is down only delays a timer until its lease runs out.
 */
import type { DueTimer, TimerQueue } from "../domain/sessions/ports.js";
import { RepeatingPass } from "./repeating-pass.js";

/** Whoever fires a due timer. */
export interface TimerHandler {
  onTimer(due: DueTimer): Promise<void>;
}

/** The session machine fires its timers; the transcripts (`transcript_ready`), the conversation, the analysis and the recording theirs. */
export function sessionTimers(
  sessions: TimerHandler,
  transcripts: { settle(accountId: string, sessionId: string): Promise<void> },
  conversation: { onTimer(accountId: string, sessionId: string): Promise<void> },
  analysis: { onTimer(accountId: string, sessionId: string): Promise<void> },
  recording: { onTimer(accountId: string, sessionId: string): Promise<void> },
): TimerHandler {
  return {
    onTimer: (due) => {
      if (due.timer === "transcript_ready") return transcripts.settle(due.accountId, due.sessionId);
      if (due.timer === "conversation") return conversation.onTimer(due.accountId, due.sessionId);
      if (due.timer === "analysis") return analysis.onTimer(due.accountId, due.sessionId);
      if (due.timer === "recording") return recording.onTimer(due.accountId, due.sessionId);
      return sessions.onTimer(due);
    },
  };
}

export interface SweeperOptions {
  intervalMs: number;
  /** How long a claimed timer belongs to this replica before another may take it. */
  leaseMs: number;
  batch: number;
  onError?: (error: unknown) => void;
  now?: () => number;
}

export class TimerSweeper {
  private readonly repeating: RepeatingPass;

  constructor(
    private readonly store: TimerQueue,
    private readonly sessions: TimerHandler,
    private readonly options: SweeperOptions,
  ) {
    this.repeating = new RepeatingPass(() => this.sweep(), options.intervalMs, options.onError);
  }

  start(): void {
    this.repeating.start();
  }

  stop(): Promise<void> {
    return this.repeating.stop();
  }

  /** One pass: fires every timer due now. Returns how many fired. */
  async sweep(): Promise<number> {
    const { leaseMs, batch, onError, now = Date.now } = this.options;
    let fired = 0;
    for (;;) {
      const due = await this.store.claimDueTimers(now(), leaseMs, batch);
      for (const timer of due) {
        try {
          await this.sessions.onTimer(timer);
          await this.store.completeTimer(timer);
          fired++;
        } catch (error) {
          onError?.(error);
        }
      }
      if (due.length < batch) return fired;
    }
  }
}
