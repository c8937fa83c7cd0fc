/**
 * How a session is stored, in Redis (a string) and in PostgreSQL's history (a jsonb column) alike: one
 * format, versioned, so a record written by another server version is refused rather than misread.
 */
import { roomNameFor, type SessionRecord } from "../domain/sessions/session.js";

/**
 * A stored session leaves out what its key already says (the id) or what follows from it (the room name),
 * and its fields that are still null: the value fits a 256-byte allocation instead of 384.
 */
const NULLABLE = [
  "end_reason",
  "digital_human_joined_at",
  "digital_human_left_at",
  "participant_sid",
  "participant_left_at",
  "started_at",
  "ended_at",
] as const;

/**
 * The stored session's own format version, its `v` field: a record written in another format is refused
 * (a fault, 500) rather than misread. Raise it with any change of what a stored session holds.
 */
export const SESSION_FORMAT = 2;

export function encodeSession(record: SessionRecord): string {
  const { room_name: _room, id: _id, ...fields } = record;
  for (const field of NULLABLE) if (fields[field] === null) delete fields[field];
  return JSON.stringify({ v: SESSION_FORMAT, ...fields });
}

/** The stored session, whichever account it is: callers compare its account_id with the caller's. */
export function decodeSession(json: string, sessionId: string): SessionRecord {
  return decodeStoredSession(JSON.parse(json) as object, sessionId);
}

/** The stored session from its parsed JSON (PostgreSQL's jsonb column comes parsed). */
export function decodeStoredSession(parsed: object, sessionId: string): SessionRecord {
  const { v, ...stored } = parsed as Partial<SessionRecord> & { v?: unknown };
  if (v !== SESSION_FORMAT) throw new Error(`stored session ${sessionId} has format ${String(v)}, this server reads ${SESSION_FORMAT}`);
  const record = {
    end_reason: null,
    digital_human_joined_at: null,
    digital_human_left_at: null,
    participant_sid: null,
    participant_left_at: null,
    started_at: null,
    ended_at: null,
    ...stored,
  };
  return { ...record, id: sessionId, room_name: roomNameFor(sessionId) } as SessionRecord;
}
