/**
 * A session as the service keeps it, and how it is shown. The stored record carries what the contract's
 * Session leaves out (account, participant identity, digital human, tags, metadata, end reason); the
 * Session view has exactly the eight fields of the specification, with a token only while connectable.
 */
import type { EndReason, Session, SessionStatus, SessionSummary } from "@dhs/contract";
import type { StoredAnalysis } from "../analysis/stored-analysis.js";
import type { StoredRecording } from "../recordings/stored-recording.js";

export interface SessionRecord {
  id: string;
  account_id: string;
  status: SessionStatus;
  room_name: string;
  participant_identity: string;
  digital_human_id: string;
  tags: string[];
  metadata: Record<string, unknown>;
  end_reason: EndReason | null;
  /** When a participant of kind AGENT (the digital human) first joined the room. */
  digital_human_joined_at: string | null;
  /** When the digital human left the room, while it has not come back. */
  digital_human_left_at: string | null;
  /** LiveKit's id of the participant's latest connection to the room (its leaving is a departure). */
  participant_sid: string | null;
  /** When that connection left, while it has not come back (the departure timer runs meanwhile). */
  participant_left_at: string | null;
  created_at: string;
  started_at: string | null;
  ended_at: string | null;
  /**
   * With tracing on: the W3C traceparent of the change that last scheduled the session's timers, so a
   * timer that fires later is linked to the request or event that set it. Never shown to callers.
   */
  trace_parent?: string;
  /** When the session's `session.transcript_ready` event was queued (once); never shown to callers. */
  transcript_ready_at?: string;
  /**
   * The most seconds it may stay active, when its digital human's persona asks for less than the
   * account's limit (absent: that limit).
   */
  max_duration_s?: number;
  /** What its digital human asked to be analysed once it ends, and how far that got (contract guide, "Analysis"). */
  analysis?: StoredAnalysis;
  /** Whether it is recorded, by which job, and what came of it (contract guide, "Recordings"). */
  recording?: StoredRecording;
}

/** completed, cancelled and failed are terminal (and absorbing); created and active can be joined. */
export const TERMINAL: ReadonlySet<SessionStatus> = new Set(["completed", "cancelled", "failed"]);

export function isConnectable(status: SessionStatus): boolean {
  return !TERMINAL.has(status);
}

export function roomNameFor(sessionId: string): string {
  return `dhs-${sessionId}`;
}

const ROOM_NAME = /^dhs-([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/;

/** The session a room name was made for (roomNameFor), or undefined for a room this service did not name. */
export function sessionIdOfRoom(roomName: string | undefined): string | undefined {
  return ROOM_NAME.exec(roomName ?? "")?.[1];
}

export function toSessionView(record: SessionRecord, rtcUrl: string, participantToken: string | null): Session {
  return {
    id: record.id,
    status: record.status,
    room_name: record.room_name,
    rtc_url: rtcUrl,
    participant_token: isConnectable(record.status) ? participantToken : null,
    created_at: record.created_at,
    started_at: record.started_at,
    ended_at: record.ended_at,
  };
}

/** A list item: what the session was created with and how it ended, never a token. */
export function toSessionSummary(record: SessionRecord): SessionSummary {
  return {
    id: record.id,
    status: record.status,
    room_name: record.room_name,
    participant_identity: record.participant_identity,
    digital_human_id: record.digital_human_id,
    tags: record.tags,
    metadata: record.metadata,
    end_reason: record.end_reason,
    digital_human_joined_at: record.digital_human_joined_at,
    created_at: record.created_at,
    started_at: record.started_at,
    ended_at: record.ended_at,
  };
}
