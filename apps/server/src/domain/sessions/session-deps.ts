/**
 * What the session use cases are built from: the ports they use, the settings, and the hooks for logs
 * and metrics. Each use case (create-session.ts, session-queries.ts, end-session.ts,
 * livekit-room-events.ts) takes the context; session-service.ts wires them.
 */
import type { Session } from "@dhs/contract";
import type { Tracing } from "../../tracing/tracing.js";
import type { AccountLimits } from "../accounts/account-limits.js";
import { modeOfOwner } from "../accounts/api-keys.js";
import type { DigitalHumanCatalog } from "../digital-humans/digital-human-catalog.js";
import type { EndingMarks, IdempotentCreates, RoomService, SessionMetrics, SessionRecords, TimerQueue, TokenIssuer } from "./ports.js";
import type { SessionRecord } from "./session.js";
import type { Durations } from "./session-machine.js";

export interface SessionSettings {
  /** Returned to callers as rtc_url. */
  rtcUrl: string;
  participantTokenTtlS: number;
  idempotencyKeyTtlMs: number;
  idempotencyLockTtlMs: number;
  /** joinTimeoutS also bounds the room: LiveKit closes a room nobody joined a little after it. */
  durations: Durations;
  /** How long a webhook event is kept while its deliveries are pending. */
  eventRetainMs: number;
  /** How long a LiveKit event id is remembered, so that LiveKit's redelivery of it changes nothing. */
  livekitEventDedupeMs: number;
  /** A test session's longest life, if shorter than durations.maxDurationS (absent: the same). */
  testMaxDurationS?: number;
}

/** The durations a session of `owner` lives by: a test session's maximum duration is its own. */
export function durationsFor(settings: SessionSettings, owner: string): Durations {
  const { durations, testMaxDurationS } = settings;
  if (testMaxDurationS === undefined || modeOfOwner(owner) !== "test") return durations;
  return { ...durations, maxDurationS: Math.min(durations.maxDurationS, testMaxDurationS) };
}

/** The longest a session can be kept from its creation: it lived its longest, then its retention. */
export function longestKeptS(durations: Durations): number {
  return durations.joinTimeoutS + durations.maxDurationS + durations.departureTimeoutS + durations.retentionS;
}

/** When a session expires: its retention after its end; while it runs, the latest that can be. */
export function keptUntilMs(record: SessionRecord, durations: Durations): number {
  if (record.ended_at !== null) return Date.parse(record.ended_at) + durations.retentionS * 1000;
  return Date.parse(record.created_at) + longestKeptS(durations) * 1000;
}

/** What LiveKit said happened in a session's room, as far as sessions care. */
export type RoomEvent =
  | { type: "participant_joined" | "participant_left"; identity: string; sid: string; isAgent: boolean }
  | { type: "room_finished" };

export interface SessionServiceDeps {
  store: IdempotentCreates & SessionRecords & TimerQueue & EndingMarks;
  rooms: RoomService;
  tokens: TokenIssuer;
  catalog: DigitalHumanCatalog;
  accounts: AccountLimits;
  settings: SessionSettings;
  now?: () => Date;
  metrics?: SessionMetrics;
  /** Failures that do not reach the caller (clean-ups), for logs. */
  onBackgroundError?: (error: unknown, what: string) => void;
  /** Called after a change of this session queued webhook events, so this replica delivers them without waiting. */
  onEventsQueued?: (sessionId: string) => void;
  /** Spans of transitions and timers; none by default. */
  tracing?: Tracing;
}

/** The dependencies with the clock and tracing settled: what every use case is given. */
export type SessionContext = SessionServiceDeps & { now: () => Date; tracing: Tracing };

export interface CreateResult {
  session: Session;
  replayed: boolean;
}

/** Runs a clean-up whose failure does not reach the caller; the failure is reported for logs. */
export function background(context: SessionContext, promise: Promise<unknown>, what: string): void {
  promise.catch((error: unknown) => context.onBackgroundError?.(error, what));
}
