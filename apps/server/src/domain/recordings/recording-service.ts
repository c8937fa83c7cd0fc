/**
 * Sessions' recordings as the service keeps them (contract guide, "Recordings"): how one is shown (its
 * file checked against the store, its link signed fresh), erased (on request, or with its transcript),
 * settled once with its one event, and failed by its timer when no file came: the `recording` timer is
 * set at the session's end for the delivery timeout (at once when its digital human never joined), so a
 * recording is never `processing` for ever. A file that arrives for a recording that is no longer waiting
 * for one (failed, deleted) is deleted, whoever noticed first.
 */
import type { RecordingError, SessionRecording } from "@dhs/contract";
import { modeOfOwner } from "../accounts/api-keys.js";
import type { SessionRecords, TimerQueue, UsageCounters } from "../sessions/ports.js";
import { type SessionRecord, TERMINAL } from "../sessions/session.js";
import { outboundEvent } from "../sessions/session-events.js";
import type { Durations } from "../sessions/session-machine.js";
import { changeSessionPart, type PartDecision } from "../sessions/session-part-change.js";
import { utcDay } from "../sessions/usage.js";
import type { TranscriptStore } from "../transcripts/ports.js";
import type { RecordingExpiries, RecordingStorage } from "./ports.js";
import {
  erased,
  failed,
  recordingKeyOf,
  recordingView,
  type StoredRecording,
  sessionIdOfKey,
  shownStatus,
  UPLOAD_TTL_S,
} from "./stored-recording.js";

export interface RecordingServiceDeps {
  sessions: Pick<SessionRecords, "getSession" | "findSession" | "readForChange" | "replaceSession"> &
    Pick<TimerQueue, "scheduleTimers"> &
    Pick<UsageCounters, "countUsage">;
  transcripts: Pick<TranscriptStore, "readState">;
  storage: RecordingStorage;
  expiries: RecordingExpiries;
  durations: Durations;
  eventRetainMs: number;
  /** How long a download link works (s). */
  urlTtlS: number;
  /** How long a ready file is kept (ms). */
  retentionMs: number;
  /** How long after the end a file may arrive (ms): the timer's wait, named in its error. */
  deliveryTimeoutMs: number;
  now?: () => Date;
  onEventsQueued?: (sessionId: string) => void;
  /** A recording was settled: `ready` or the code it failed with. */
  onSettled?: (outcome: string) => void;
}

export class RecordingService {
  readonly now: () => Date;

  constructor(readonly deps: RecordingServiceDeps) {
    this.now = deps.now ?? (() => new Date());
  }

  /** As getSessionRecording answers it: a ready file that is no longer in the store is `deleted`. */
  async view(record: SessionRecord): Promise<SessionRecording> {
    const { recording } = record;
    const state = recording ? await this.deps.transcripts.readState(record.id) : undefined;
    const status = shownStatus(recording, TERMINAL.has(record.status), state?.deletedAtMs != null, this.now().getTime());
    if (status !== "ready" || !recording) return recordingView(record.id, recording, status);
    if (!(await this.deps.storage.stat(recording.key))) return recordingView(record.id, recording, "deleted");
    const link = await this.deps.storage.downloadLink(recording.key, { expiresInS: this.deps.urlTtlS, fileName: `${record.id}.ogg` });
    return recordingView(record.id, recording, "ready", link);
  }

  /**
   * Whether the store's own routes may take an upload of `key` (its recording still waits for its file)
   * or serve it (its recording is shown ready): a link is worth no more than its recording's state when it
   * is used, so one handed out before an erasure, or a job's upload target that outlived its recording,
   * is refused. A bucket's presigned links cannot ask; for those, discard's second deletion does.
   */
  async fileAllowed(key: string, method: "PUT" | "GET"): Promise<boolean> {
    const sessionId = sessionIdOfKey(key);
    const record = sessionId === undefined ? undefined : await this.deps.sessions.findSession(sessionId);
    const recording = record?.recording;
    if (!record || !recording || recording.key !== key) return false;
    if (method === "PUT") return recording.status === "recording";
    const state = await this.deps.transcripts.readState(record.id);
    return shownStatus(recording, TERMINAL.has(record.status), state?.deletedAtMs != null, this.now().getTime()) === "ready";
  }

  /**
   * Erases the recording: `deleted` in the record (while Redis holds the session; one only in the
   * history was settled long before) and its file deleted from the store, in that order, so a store that
   * fails leaves a call to repeat, never a record that still points at a file.
   */
  async erase(accountId: string, sessionId: string): Promise<void> {
    // A failed recording has no file, and keeps its reason.
    await this.change(accountId, sessionId, (recording) =>
      recording.status === "deleted" || recording.status === "failed" ? undefined : { value: erased(recording) },
    );
    await this.discard(recordingKeyOf(sessionId));
  }

  /**
   * Deletes a file nobody may have: now, and again by the retention once any upload target still out
   * has expired (a job may PUT with one it holds, and never report it). `strict`: a store that is down
   * is an error for the caller to retry; otherwise the retention's later pass is enough.
   */
  async discard(key: string, strict = true): Promise<void> {
    await this.deps.expiries.add(key, this.now().getTime() + UPLOAD_TTL_S * 1000 + 60_000);
    await this.deps.storage.delete(key).catch((error: unknown) => {
      if (strict) throw error;
    });
  }

  /** The `recording` timer: fails a recording no file came for, and deletes any file that came late. */
  async onTimer(accountId: string, sessionId: string): Promise<void> {
    let after: StoredRecording | undefined;
    let settledNow = false;
    await this.change(accountId, sessionId, (recording, record, now) => {
      after = recording;
      settledNow = false;
      if (!TERMINAL.has(record.status) || recording.status !== "recording") return undefined;
      const error: RecordingError =
        record.digital_human_joined_at === null
          ? { code: "not_joined", message: "The digital human never joined the session, so nothing was recorded." }
          : recording.participant_identity === undefined
            ? { code: "not_started", message: "The digital human never started recording: it could not, or the session ended first." }
            : {
                code: "not_delivered",
                message: `No file arrived within ${Math.round(this.deps.deliveryTimeoutMs / 1000)} s of the session's end.`,
              };
      after = failed(recording, error, now);
      settledNow = true;
      return this.settling(record, after, now);
    });
    if (settledNow && after) await this.settled({ id: sessionId, account_id: accountId }, after);
    if (after && (after.status === "failed" || after.status === "deleted")) await this.discard(after.key);
  }

  /**
   * One compare-and-set of the session's recording. `decide` may throw (an AppError for the caller)
   * before anything is written.
   */
  change(
    accountId: string,
    sessionId: string,
    decide: (recording: StoredRecording, record: SessionRecord, now: Date) => PartDecision<StoredRecording>,
  ): Promise<void> {
    return changeSessionPart(this.deps, this.now, "recording", accountId, sessionId, decide);
  }

  /** The recording settled (`ready` or `failed`), its event with it, its timer cancelled. */
  settling(record: SessionRecord, next: StoredRecording, now: Date): PartDecision<StoredRecording> {
    const shown = recordingView(record.id, next, next.status === "ready" ? "ready" : "failed");
    const type = next.status === "ready" ? "session.recording_ready" : "session.recording_failed";
    const event = outboundEvent(type, modeOfOwner(record.account_id), now, shown, this.deps.eventRetainMs);
    return { value: next, events: [event], cancel: true };
  }

  /**
   * After a settling change was stored: a ready file's seconds are counted (after, as the transcript's
   * segments are: a replica dying in between leaves them uncounted, never counted twice).
   */
  async settled(record: Pick<SessionRecord, "id" | "account_id">, next: StoredRecording): Promise<void> {
    this.deps.onEventsQueued?.(record.id);
    this.deps.onSettled?.(next.status === "ready" ? "ready" : (next.error?.code ?? "failed"));
    const seconds = Math.ceil((next.duration_ms ?? 0) / 1000);
    if (next.status !== "ready" || seconds === 0) return;
    await this.deps.sessions.countUsage(record.account_id, {
      day: utcDay(this.now().toISOString()),
      fields: [["recorded_seconds", seconds]],
    });
  }
}
