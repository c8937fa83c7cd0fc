/**
 * The timers a feature keeps on a session beside the machine's own: scheduled in the same store (so a
 * session's change and its timer are one atomic step), claimed by the same sweeper, fired by the feature
 * that scheduled them, never by the session machine. A feature adds its kind here and its handler where
 * compose.ts registers them (FeatureTimerHandlers), and the compiler names both places; the store's
 * members, the sweeper's routing and the machine's refusal read the list.
 */
import { LIFECYCLE_TIMERS, type ObligationTimer } from "./session-machine.js";

export const FEATURE_TIMERS = [
  /** The end of an ended session's transcript grace period (transcripts). */
  "transcript_ready",
  /** A session's queued conversation item is due (conversation). */
  "conversation",
  /** An ended session's analysis is to be tried (analysis). */
  "analysis",
  /** A recording's delivery deadline (recordings). */
  "recording",
] as const;

export type FeatureTimer = (typeof FEATURE_TIMERS)[number];

/** What the store's timers can hold: the machine's lifecycle and obligations, and the features'. */
export type TimerKind = ObligationTimer | FeatureTimer;

export const TIMER_KINDS: readonly TimerKind[] = [...LIFECYCLE_TIMERS, "room_deletion", ...FEATURE_TIMERS];

/** Each feature's timer, fired for one session. */
export type FeatureTimerHandlers = Record<FeatureTimer, (accountId: string, sessionId: string) => Promise<void>>;

const FEATURES: ReadonlySet<TimerKind> = new Set(FEATURE_TIMERS);

export function isFeatureTimer(timer: TimerKind): timer is FeatureTimer {
  return FEATURES.has(timer);
}
