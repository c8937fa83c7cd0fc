/**
 * What the session use cases are built from: the ports they use, the settings, and the hooks for logs
 * and metrics. Each use case (create-session.ts, session-queries.ts, end-session.ts,
 * livekit-room-events.ts) takes the context; session-service.ts wires them.
 */
import type { Session } from "@dhs/contract";
import type { Tracing } from "../../tracing/tracing.js";
import type { AccountLimits } from "../accounts/account-limits.js";
import { modeOfOwner, type Principal } from "../accounts/api-keys.js";
import type { DigitalHumanCatalog } from "../digital-humans/digital-human-catalog.js";
import type { Persona } from "../digital-humans/persona.js";
import type { MemoryKey } from "../memories/ports.js";
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
  /** How long after its end a recorded session's file may arrive before its recording is `failed` (ms). */
  recordingDeliveryMs: number;
  /** A test session's longest life, if shorter than durations.maxDurationS (absent: the same). */
  testMaxDurationS?: number;
}

/** The longest a session of `owner` may stay active: a test session's maximum duration is its own. */
export function maxDurationSOf(settings: Pick<SessionSettings, "durations" | "testMaxDurationS">, owner: string): number {
  const { durations, testMaxDurationS } = settings;
  if (testMaxDurationS === undefined || modeOfOwner(owner) !== "test") return durations.maxDurationS;
  return Math.min(durations.maxDurationS, testMaxDurationS);
}

/**
 * The durations a session lives by: its maximum duration is its mode's, or its persona's when that is
 * shorter (SessionRecord.max_duration_s).
 */
export function durationsFor(settings: SessionSettings, record: Pick<SessionRecord, "account_id" | "max_duration_s">): Durations {
  const limit = maxDurationSOf(settings, record.account_id);
  const maxDurationS = record.max_duration_s === undefined ? limit : Math.min(limit, record.max_duration_s);
  return maxDurationS === settings.durations.maxDurationS ? settings.durations : { ...settings.durations, maxDurationS };
}

/** The longest a session can be kept from its creation: it lived its longest, then its retention. */
export function longestKeptS(durations: Durations): number {
  return durations.joinTimeoutS + durations.maxDurationS + durations.departureTimeoutS + durations.retentionS;
}

/**
 * The longest a session can stay open (created, then active, then its participant gone), with an hour to
 * spare for timers that run late: what is kept only while it is open (its persona) is kept this long.
 */
export function openLifeMs(durations: Durations): number {
  return (durations.joinTimeoutS + durations.maxDurationS + durations.departureTimeoutS + 3600) * 1000;
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

/** Where a new session's persona comes from: its digital human's (a stock one, or one of the account's own). */
export interface PersonaSource {
  /** Undefined when the account may use no digital human `id` (or, without one, has no default). */
  personaFor(principal: Principal, id: string | undefined): Promise<Persona | undefined>;
}

export interface SessionServiceDeps {
  store: IdempotentCreates & SessionRecords & TimerQueue & EndingMarks;
  rooms: RoomService;
  tokens: TokenIssuer;
  /** The stock digital humans: a session whose persona was not kept is dispatched its stock one again. */
  catalog: DigitalHumanCatalog;
  personas: PersonaSource;
  /** What digital humans remember about returning participants; without it, nothing is recalled. */
  memories?: { recall(key: MemoryKey): Promise<string[]> };
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
  /** What a test helper's `participant_turn` sends (the conversation's event); refused without it. */
  participantTurns?: { testTurn(principal: Principal, sessionId: string, text: string): Promise<void> };
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
