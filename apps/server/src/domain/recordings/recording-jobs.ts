/**
 * The recording's operations for the job that records a session (startSessionRecording,
 * createRecordingUpload, finishSessionRecording), called with its digital-human token. The first job to
 * start records; another one (the digital human dispatched again) finds the part the first held lost,
 * so the recording fails (`interrupted`) rather than being ready with a gap. Only the recording job gets
 * an upload target (for its session's file alone) and settles the recording; its report of an upload is
 * checked against the store. Each is safe to repeat: a repeated start or report is answered as it was.
 */
import type { RecordingFinish, RecordingUploadTarget, SessionRecording } from "@dhs/contract";
import { AppError } from "../app-error.js";
import { type SessionRecord, TERMINAL } from "../sessions/session.js";
import type { RecordingService } from "./recording-service.js";
import { failed, RECORDING_FORMAT, ready, recordingView, type StoredRecording, shownStatus, UPLOAD_TTL_S } from "./stored-recording.js";

/** The largest file taken: about 18 hours of the recorder's stereo Opus. */
export const MAX_RECORDING_BYTES = 512 * 1024 * 1024;
/** How much longer than its session a recording may be said to play: the encoder's last frames, two clocks. */
const DURATION_SLACK_MS = 60_000;

export class RecordingJobs {
  constructor(private readonly service: RecordingService) {}

  async start(sessionId: string, identity: string): Promise<SessionRecording> {
    const session = await this.recorded(sessionId);
    let interrupted: StoredRecording | undefined;
    await this.service.change(session.account_id, session.id, (recording, record, now) => {
      interrupted = undefined;
      // A job that is not the recording one is told the session ended before anything about the
      // recording: the end settles a recording nobody started at once, and the answer must not depend on
      // whether that timer has run yet.
      if (recording.participant_identity !== identity && TERMINAL.has(record.status))
        throw new AppError("session_ended", `Session ${record.id} has ended.`);
      if (recording.status !== "recording") throw settledError(record.id, recording);
      if (recording.participant_identity === identity) return undefined;
      if (recording.participant_identity === undefined) return { value: { ...recording, participant_identity: identity } };
      const message = "The digital human was dispatched again mid-session; the part its first job recorded was lost.";
      interrupted = failed(recording, { code: "interrupted", message }, now);
      return this.service.settling(record, interrupted, now);
    });
    if (interrupted) {
      await this.service.settled(session, interrupted);
      throw new AppError(
        "recording_interrupted",
        `Session ${session.id} is recorded by another job; its recording failed (interrupted), and this job records nothing.`,
      );
    }
    return this.answer(session.id);
  }

  async uploadTarget(sessionId: string, identity: string): Promise<RecordingUploadTarget> {
    const session = await this.recorded(sessionId);
    const recording = session.recording as StoredRecording;
    if (recording.status !== "recording" || recording.participant_identity !== identity)
      throw settledError(session.id, recording, identity);
    const target = await this.service.deps.storage.uploadTarget(recording.key, { contentType: RECORDING_FORMAT, expiresInS: UPLOAD_TTL_S });
    return {
      url: target.url,
      method: "PUT",
      headers: target.headers,
      expires_at: target.expiresAt.toISOString(),
      max_bytes: MAX_RECORDING_BYTES,
    };
  }

  async finish(sessionId: string, body: RecordingFinish): Promise<SessionRecording> {
    const { participant_identity: identity } = body;
    const session = await this.recorded(sessionId);
    const recording = session.recording as StoredRecording;
    if (recording.participant_identity !== identity) throw settledError(session.id, recording, identity);
    if (recording.status !== "recording") return this.settledAlready(session.id, recording);
    const { storage, expiries, retentionMs } = this.service.deps;
    let next: StoredRecording;
    if (body.outcome === "uploaded") {
      if (body.duration_ms === undefined) throw invalid("duration_ms", "is required when outcome is uploaded");
      // A recording is no longer than its session: a report of more would count seconds nobody recorded.
      const lastedMs = Date.parse(session.ended_at ?? this.service.now().toISOString()) - Date.parse(session.created_at);
      if (body.duration_ms > lastedMs + DURATION_SLACK_MS)
        throw invalid("duration_ms", `is ${body.duration_ms} ms, longer than the session has lasted (${Math.max(0, lastedMs)} ms)`);
      const file = await storage.stat(recording.key);
      const at = this.service.now();
      next = file
        ? ready(recording, { durationMs: body.duration_ms, sizeBytes: file.sizeBytes }, at, retentionMs)
        : failed(
            recording,
            { code: "upload_failed", message: "The digital human reported its file uploaded, but the store holds none." },
            at,
            true,
          );
      // Indexed before it is settled: a replica dying in between leaves a file the retention still deletes.
      if (next.status === "ready") await expiries.add(next.key, Date.parse(next.expires_at as string));
    } else {
      if (body.reason === undefined) throw invalid("reason", "is required when outcome is failed");
      next = failed(recording, { code: "upload_failed", message: body.reason }, this.service.now(), true);
    }
    let stored = false;
    await this.service.change(session.account_id, session.id, (current, record, now) => {
      stored = false;
      if (current.status !== "recording" || current.participant_identity !== identity) return undefined;
      stored = true;
      return this.service.settling(record, next, now);
    });
    if (!stored) return this.settledAlready(session.id, (await this.recorded(session.id)).recording as StoredRecording);
    await this.service.settled(session, next);
    // A store that is down must not turn the settled report into an error the job retries.
    if (next.status === "failed") await this.service.discard(next.key, false);
    return this.answer(session.id);
  }

  /** A report again of what this job settled is answered; any other file that came is not wanted. */
  private async settledAlready(sessionId: string, recording: StoredRecording): Promise<SessionRecording> {
    if ((recording.status === "ready" || recording.status === "failed") && recording.settled_by_job) return this.answer(sessionId);
    await this.service.discard(recording.key);
    throw settledError(sessionId, recording);
  }

  /** The session (the token proved it), with a recording: 404 or 409 otherwise. */
  private async recorded(sessionId: string): Promise<SessionRecord> {
    const session = await this.service.deps.sessions.findSession(sessionId);
    if (!session) throw new AppError("not_found", `No session ${sessionId}.`);
    if (!session.recording) {
      throw new AppError("recording_not_requested", `Session ${session.id}'s digital human does not record its sessions.`);
    }
    return session;
  }

  /** The recording as the job is answered it: never with a link (the job has no use for one). */
  private async answer(sessionId: string): Promise<SessionRecording> {
    const session = await this.recorded(sessionId);
    const recording = session.recording as StoredRecording;
    // As the record says it (the report already checked the store): the job is never given a link, so
    // none is signed, and the file is not asked for again.
    const status = shownStatus(recording, TERMINAL.has(session.status), false, this.service.now().getTime());
    return recordingView(session.id, recording, status);
  }
}

function settledError(sessionId: string, recording: StoredRecording, identity?: string): AppError {
  const why =
    identity !== undefined && recording.participant_identity !== identity
      ? "is not recorded by this job"
      : `is already ${recording.status === "recording" ? "being recorded" : recording.status}`;
  return new AppError("recording_settled", `Session ${sessionId}'s recording ${why}.`);
}

function invalid(path: string, message: string): AppError {
  return new AppError("validation_failed", [{ location: "body", path, message }]);
}
