/**
 * What transcripts need from the outside: a store for each session's segments and state (Redis or
 * memory), beside the session's own keys. Adapters live in store/.
 */
import type { SegmentPosition, StoredSegment, TranscriptState } from "./transcript.js";

export interface AppendSegments {
  sessionId: string;
  /** In the order posted; ids are unique within the post (the service checks). */
  segments: readonly StoredSegment[];
  final: boolean;
  /** New segments are refused past this many in all (nothing of the post is stored then). */
  maxSegments: number;
  /** New segments are refused (closed) after this time, unless every one is already stored; undefined: open. */
  closesAtMs: number | undefined;
  nowMs: number;
  /** When the transcript's keys expire: its session's end plus retention, or the latest that can be. */
  expiresAtMs: number;
}

export type AppendOutcome =
  | { kind: "appended"; accepted: readonly StoredSegment[]; duplicates: number; state: TranscriptState }
  | { kind: "closed"; reason: "deleted" | "final" | "ended"; state: TranscriptState }
  | { kind: "limit"; state: TranscriptState };

export interface TranscriptStore {
  /**
   * In one step: stores the segments whose ids the transcript does not hold yet (and `final`), unless it
   * is deleted, or closed (`final` said or `closesAtMs` passed) and any segment is new, or the new ones
   * would take it past maxSegments; then nothing is stored.
   */
  appendSegments(request: AppendSegments): Promise<AppendOutcome>;
  /** The transcript's state and up to `limit` segments after `after`, in spoken order. */
  readSegments(
    sessionId: string,
    after: SegmentPosition | undefined,
    limit: number,
  ): Promise<{ state: TranscriptState; segments: StoredSegment[] }>;
  readState(sessionId: string): Promise<TranscriptState>;
  /** Deletes every segment and leaves a tombstone until expiresAtMs; a deleted transcript stays as it was. */
  deleteTranscript(sessionId: string, nowMs: number, expiresAtMs: number): Promise<TranscriptState>;
  /** Moves the transcript's expiry (its session ended: to the session's own). */
  expireAt(sessionId: string, expiresAtMs: number): Promise<void>;
}

/** Transcripts of ended sessions as the history database keeps them (with DATABASE_URL). */
export interface TranscriptHistory {
  /** The state and up to `limit` segments after `after`; undefined when the history does not hold its session. */
  readSegments(
    sessionId: string,
    after: SegmentPosition | undefined,
    limit: number,
  ): Promise<{ state: TranscriptState; segments: StoredSegment[] } | undefined>;
  /** Erases its segments and marks it deleted (once: a deleted one stays as it was); nothing if not held yet. */
  deleteTranscript(sessionId: string, nowMs: number): Promise<void>;
}
