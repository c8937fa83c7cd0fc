/**
 * When a failed delivery is tried again (contract guide, "Webhooks"): Standard Webhooks' schedule by
 * default (at once, then 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h), each delay varied by up to 20% so
 * that the failures of one outage do not all retry in the same second, and never sooner than a
 * `Retry-After` the endpoint sent (up to 10 hours).
 */

export const STANDARD_RETRY_DELAYS_S = [5, 300, 1800, 7200, 18_000, 36_000, 36_000] as const;

const JITTER = 0.2;
export const RETRY_AFTER_CAP_MS = 10 * 60 * 60 * 1000;

export class RetrySchedule {
  constructor(
    /** Delays after the first attempt, in seconds: attempt n+1 waits delaysS[n-1] after attempt n fails. */
    private readonly delaysS: readonly number[],
    private readonly random: () => number = Math.random,
  ) {
    if (delaysS.length === 0) throw new Error("a retry schedule needs at least one delay");
  }

  /** How many attempts an event gets in all. */
  get attempts(): number {
    return this.delaysS.length + 1;
  }

  /** How long, at most, an event can stay pending: every delay at its longest (or as long as a Retry-After may ask), plus the attempts. */
  horizonMs(attemptTimeoutMs: number): number {
    return (
      this.delaysS.reduce((sum, s) => sum + Math.max(s * 1000 * (1 + JITTER), RETRY_AFTER_CAP_MS), 0) + this.attempts * attemptTimeoutMs
    );
  }

  /**
   * The delay (ms) before the attempt after attempt `attemptsMade` failed, or null when that was the last.
   * `retryAfterMs` is what the endpoint asked for with 429 or 503.
   */
  nextDelayMs(attemptsMade: number, retryAfterMs: number | null): number | null {
    const base = this.delaysS[attemptsMade - 1];
    if (base === undefined) return null;
    const jittered = base * 1000 * (1 - JITTER + 2 * JITTER * this.random());
    return Math.round(Math.max(jittered, Math.min(retryAfterMs ?? 0, RETRY_AFTER_CAP_MS)));
  }
}
