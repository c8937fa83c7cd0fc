/**
 * History (docs/storage.md): with a database configured, ended sessions are written from a queue in the
 * live store to the history database, and read from there once the live store no longer holds them. The
 * ports of both sides; adapters live in store/ (Redis's queue, PostgreSQL's history).
 */
import type { StoredToolCall } from "../tools/tool-call.js";
import type { StoredSegment, TranscriptState } from "../transcripts/transcript.js";
import type { ListQuery } from "./ports.js";
import type { SessionRecord } from "./session.js";

/** What the history writes of an ended session: its record, its transcript and its tool calls, as the live store holds them now. */
export interface HistoryEntry {
  record: SessionRecord;
  transcript: { state: TranscriptState; segments: readonly StoredSegment[] };
  /** In the order they started. */
  toolCalls: readonly StoredToolCall[];
}

/** Ended sessions and their transcripts as the history database keeps them: one row each, written again when they change. */
export interface SessionHistory {
  /**
   * Writes each session with its transcript (inserted, or replacing the row of an earlier write; segments
   * are added, never changed), all or none. A transcript deleted here stays deleted, its segments gone.
   */
  writeSessions(entries: readonly HistoryEntry[]): Promise<void>;
  /** The session whichever account it is, while within its retention. */
  findSession(sessionId: string): Promise<SessionRecord | undefined>;
  /** As SessionRecords.listSessions, over the written sessions alone (ended ones, so `status` is terminal or none). */
  listSessions(accountId: string, query: ListQuery): Promise<SessionRecord[]>;
  /** Drops what is past the retention (whole days); returns what it dropped, for the log. */
  dropExpired(nowMs: number): Promise<string[]>;
}

/** A session taken from the queue to be written: its record and transcript as the live store holds them now. */
export interface HistoryClaim {
  sessionId: string;
  /** Undefined when the live store no longer holds it (it expired or was flushed): nothing to write. */
  entry: HistoryEntry | undefined;
  /** Opaque to the writer: what completing the claim compares with. */
  claim: string;
  /** Why the live store's record could not be read (another format, say): the writer sets it aside. */
  unreadable?: Error;
}

/** The live store's queue of ended sessions to write, filled in the same step as each change of one. */
export interface HistoryQueue {
  /**
   * Claims about `max` sessions due by nowMs (spread over the parts of the queue) for leaseMs: no other
   * replica gets them meanwhile, and a claim whose holder died is handed out again after it.
   */
  claimDue(nowMs: number, leaseMs: number, max: number): Promise<HistoryClaim[]>;
  /**
   * Takes written sessions off the queue and out of the live store's lists of ended sessions, and keeps
   * them there for keepMs more at most; a session changed since its claim stays queued, to be written again.
   */
  complete(claims: readonly HistoryClaim[], keepMs: number): Promise<void>;
  /** Gives claims whose write failed back to the queue, due at atMs (unless changed since: due already). */
  release(claims: readonly HistoryClaim[], atMs: number): Promise<void>;
  /**
   * Takes claimed sessions the history database refused off the queue and keeps them aside (their
   * records stay in the live store until their retention), unless one changed since its claim.
   */
  setAside(claims: readonly HistoryClaim[], atMs: number): Promise<void>;
  /** Queues every set-aside session again, due now; returns how many. */
  requeueSetAside(nowMs: number): Promise<number>;
  backlog(): Promise<HistoryBacklog>;
}

export interface HistoryBacklog {
  /** Sessions waiting to be written. */
  size: number;
  /** Since when the oldest has waited (ms: when it was first due, however often it was claimed); undefined when none. */
  oldestMs: number | undefined;
  /** Sessions the history database refused, set aside. */
  setAside: number;
}

/** An account's usage counters of one day taken from the live store, on their way to the history. */
export interface UsageMove {
  /** Unique: the history applies each move once. */
  id: string;
  accountId: string;
  day: string;
  /** When the live store made it, by its own clock (µs): what a reader compares with its snapshot's time. */
  movedAtUs: number;
  counts: Record<string, number>;
}

/** An account's live counters of some days and its pending moves, taken in one step at takenAtUs. */
export interface UsageSnapshot {
  counters: Record<string, string>[];
  pending: UsageMove[];
  takenAtUs: number;
}

/** The accounts' usage counters as the history database keeps them. */
export interface UsageHistory {
  /** Adds each move's counts to its account's usage, unless that move was applied before; all or none. */
  applyUsageMoves(moves: readonly UsageMove[]): Promise<void>;
  /**
   * The account's counters of these days (field -> count), which of `moveIds` were applied, and the counts
   * of its moves made after `afterUs` (those a snapshot taken then still read as live counters).
   */
  usage(
    accountId: string,
    days: readonly string[],
    moveIds: readonly string[],
    afterUs: number,
  ): Promise<{ counts: Record<string, number>[]; applied: Set<string>; movedAfter: Record<string, number>[] }>;
  /** Forgets counters and moves past the usage's retention. */
  dropExpiredUsage(nowMs: number): Promise<void>;
}

/**
 * The live store's side of usage moving to the history. A day's counters become a pending move in one
 * step, and a move is ended only once the history applied it. A reader takes the counters and pending
 * moves in one step (at a time T of the live store's clock), then asks the history for its counters,
 * which of those moves it applied, and the moves made after T (their counts the reader saw as counters):
 * each increment is counted once, wherever it was on its way (history-usage-counters.ts).
 */
export interface UsageMoves {
  /** The account's counters of these days become pending moves; returns all its pending moves. */
  beginMoves(accountId: string, days: readonly string[]): Promise<UsageMove[]>;
  /** Forgets moves the history applied. */
  endMoves(accountId: string, ids: readonly string[]): Promise<void>;
  /** In one step: the account's live counters of these days (field -> count), and its pending moves. */
  snapshot(accountId: string, days: readonly string[]): Promise<UsageSnapshot>;
}
