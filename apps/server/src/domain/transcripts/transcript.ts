/**
 * A session's transcript (contract guide, "Transcripts"): segments the digital human posts, the bounds
 * they are held to, and where the transcript stands. Pure; the store keeps segments and the transcript's
 * own state, the session record keeps whether its `session.transcript_ready` event was sent.
 */
import type { Transcript, TranscriptSegment, TranscriptStatus } from "@dhs/contract";
import type { SessionRecord } from "../sessions/session.js";
import { TERMINAL } from "../sessions/session.js";

/** The most segments one session's transcript holds. */
export const MAX_TRANSCRIPT_SEGMENTS = 1000;

/** A segment as stored: the contract's, with its times as numbers for ordering. */
export interface StoredSegment {
  id: string;
  speaker: TranscriptSegment["speaker"];
  text: string;
  startedAtMs: number;
  endedAtMs: number;
}

/** Where a page of segments starts: after the segment with this start time and id. */
export interface SegmentPosition {
  startedAtMs: number;
  id: string;
}

/** What the store keeps of a transcript besides its segments. */
export interface TranscriptState {
  segmentCount: number;
  /** The digital human said it sent its last segment. */
  final: boolean;
  deletedAtMs: number | null;
}

/** The order of a transcript: by start time, then id. */
export function spokenOrder(a: SegmentPosition, b: SegmentPosition): number {
  return a.startedAtMs - b.startedAtMs || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

export function storedSegment(segment: TranscriptSegment): StoredSegment {
  return {
    id: segment.id,
    speaker: segment.speaker,
    text: segment.text,
    startedAtMs: instantMs(segment.started_at),
    endedAtMs: instantMs(segment.ended_at),
  };
}

// An RFC 3339 time whose seconds are 60: a leap second.
const LEAP_SECOND = /^(.+[Tt ]\d{2}:\d{2}:)60(?:\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;

/**
 * The milliseconds of an RFC 3339 time (contract guide, "Transcripts"). A leap second (`23:59:60Z`, which
 * RFC 3339 allows and JavaScript's clock does not have) is the last millisecond of its minute, so it
 * sorts before the second that follows it. NaN for what no clock can say: the caller refuses it.
 */
export function instantMs(text: string): number {
  const leap = LEAP_SECOND.exec(text);
  return leap ? Date.parse(`${leap[1]}59.999${leap[2]}`) : Date.parse(text);
}

function segmentView(segment: StoredSegment): TranscriptSegment {
  return {
    id: segment.id,
    speaker: segment.speaker,
    text: segment.text,
    started_at: new Date(segment.startedAtMs).toISOString(),
    ended_at: new Date(segment.endedAtMs).toISOString(),
  };
}

/** Characters as the usage counts them: Unicode code points, not UTF-16 units. */
export function characterCount(text: string): number {
  let n = 0;
  for (const _ of text) n++;
  return n;
}

/** The moment a session's transcript stops taking segments by time alone: its end plus the grace. */
export function closesAtMs(session: SessionRecord, graceMs: number): number | undefined {
  return session.ended_at === null ? undefined : Date.parse(session.ended_at) + graceMs;
}

/** Complete: the session ended and its digital human said `final`, or the grace after the end passed. */
export function isComplete(session: SessionRecord, state: TranscriptState, nowMs: number, graceMs: number): boolean {
  if (!TERMINAL.has(session.status)) return false;
  return state.final || session.transcript_ready_at !== undefined || nowMs >= (closesAtMs(session, graceMs) ?? Number.POSITIVE_INFINITY);
}

export function transcriptStatus(session: SessionRecord, state: TranscriptState, nowMs: number, graceMs: number): TranscriptStatus {
  if (state.deletedAtMs !== null) return "deleted";
  return isComplete(session, state, nowMs, graceMs) ? "complete" : "in_progress";
}

export function transcriptView(
  session: SessionRecord,
  state: TranscriptState,
  page: readonly StoredSegment[],
  next: string | null,
  nowMs: number,
  graceMs: number,
): Transcript {
  return {
    session_id: session.id,
    status: transcriptStatus(session, state, nowMs, graceMs),
    segment_count: state.deletedAtMs === null ? state.segmentCount : 0,
    segments: page.map(segmentView),
    next_cursor: next,
    deleted_at: state.deletedAtMs === null ? null : new Date(state.deletedAtMs).toISOString(),
  };
}
