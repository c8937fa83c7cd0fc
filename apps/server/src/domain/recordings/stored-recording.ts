/**
 * A session's recording as its record keeps it (contract guide, "Recordings"), pure. Like the analysis it
 * lives in the session's own record, so its state, its outcome and its one event change in one
 * compare-and-set of the session, and it goes wherever the session goes (the history's copy included).
 * The file itself is in the recordings' store under `key`; what the record says of it is checked against
 * the store when it is shown (an expired or deleted file is `deleted`, whatever the record still says).
 */
import type { RecordingError, SessionRecording } from "@dhs/contract";

export interface StoredRecording {
  /** `recording` until settled; shown `processing` once the session is terminal. */
  status: "recording" | "ready" | "failed" | "deleted";
  /** The file's key in the store: made from the session id alone, so it can be deleted without the record. */
  key: string;
  /** The job that records it (its identity in the room), once it started. */
  participant_identity?: string;
  /** Whether that job settled it (so its repeated report is answered as settled, not refused). */
  settled_by_job?: boolean;
  duration_ms?: number;
  size_bytes?: number;
  error?: RecordingError;
  completed_at?: string;
  /** When the retention deletes the file (ready only). */
  expires_at?: string;
}

export const RECORDING_FORMAT = "audio/ogg";
/** How long an upload target works: a ten-minute session's file goes up in seconds; a slow link gets more. */
export const UPLOAD_TTL_S = 900;

export function recordingKeyOf(sessionId: string): string {
  return `${sessionId}.ogg`;
}

const KEY_OF_SESSION = /^([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.ogg$/;

/** The session whose recording `key` is (recordingKeyOf's inverse), or undefined for any other key. */
export function sessionIdOfKey(key: string): string | undefined {
  return KEY_OF_SESSION.exec(key)?.[1];
}

export function newRecording(sessionId: string): StoredRecording {
  return { status: "recording", key: recordingKeyOf(sessionId) };
}

export function failed(recording: StoredRecording, error: RecordingError, at: Date, byJob = false): StoredRecording {
  return { ...base(recording), status: "failed", error, completed_at: at.toISOString(), ...(byJob ? { settled_by_job: true } : {}) };
}

export function ready(
  recording: StoredRecording,
  file: { durationMs: number; sizeBytes: number },
  at: Date,
  retentionMs: number,
): StoredRecording {
  return {
    ...base(recording),
    status: "ready",
    settled_by_job: true,
    duration_ms: file.durationMs,
    size_bytes: file.sizeBytes,
    completed_at: at.toISOString(),
    expires_at: new Date(at.getTime() + retentionMs).toISOString(),
  };
}

/** Erased: only that it was asked for, and by which job, stays. */
export function erased(recording: StoredRecording): StoredRecording {
  return { ...base(recording), status: "deleted" };
}

function base(recording: StoredRecording): StoredRecording {
  return {
    status: recording.status,
    key: recording.key,
    ...(recording.participant_identity === undefined ? {} : { participant_identity: recording.participant_identity }),
  };
}

/** How the record stands as shown, before the store is asked whether a ready file is still there. */
export type ShownStatus = SessionRecording["status"];

export function shownStatus(
  recording: StoredRecording | undefined,
  terminal: boolean,
  transcriptDeleted: boolean,
  nowMs: number,
): ShownStatus {
  if (!recording) return "not_requested";
  if (recording.status === "deleted") return "deleted";
  if (transcriptDeleted && recording.status !== "failed") return "deleted";
  if (recording.status === "recording") return terminal ? "processing" : "recording";
  if (recording.status === "ready" && recording.expires_at !== undefined && Date.parse(recording.expires_at) <= nowMs) return "deleted";
  return recording.status;
}

/** As getSessionRecording answers it (`link` for a ready one; none in an event's data). */
export function recordingView(
  sessionId: string,
  recording: StoredRecording | undefined,
  status: ShownStatus,
  link?: { url: string; expiresAt: Date },
): SessionRecording {
  const view: SessionRecording = {
    session_id: sessionId,
    status,
    format: null,
    channels: null,
    duration_ms: null,
    size_bytes: null,
    url: null,
    url_expires_at: null,
    expires_at: null,
    error: null,
    completed_at: null,
  };
  // Past its retention: when it went, so nobody wonders whether it was erased on purpose.
  if (status === "deleted" && recording?.status === "ready") return { ...view, expires_at: recording.expires_at ?? null };
  if (status === "failed") return { ...view, error: recording?.error ?? null, completed_at: recording?.completed_at ?? null };
  if (status !== "ready" || !recording) return view;
  return {
    ...view,
    format: RECORDING_FORMAT,
    channels: { left: "participant", right: "digital_human" },
    duration_ms: recording.duration_ms ?? null,
    size_bytes: recording.size_bytes ?? null,
    url: link?.url ?? null,
    url_expires_at: link?.expiresAt.toISOString() ?? null,
    expires_at: recording.expires_at ?? null,
    completed_at: recording.completed_at ?? null,
  };
}
