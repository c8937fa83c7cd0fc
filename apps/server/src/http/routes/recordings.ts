/**
 * The recording operations of API keys (getSessionRecording, deleteSessionRecording) and the digital
 * human's (the recording's start, upload and finish): HTTP to the recordings' services and back.
 */

import type { RecordingJobs } from "../../domain/recordings/recording-jobs.js";
import type { SessionRecordings } from "../../domain/recordings/session-recordings.js";
import type { DigitalHumanOperationHandlers, OperationHandlers } from "../operations.js";

export function recordingOperations(
  recordings: SessionRecordings,
): Pick<OperationHandlers, "getSessionRecording" | "deleteSessionRecording"> {
  return {
    // GET /v1/sessions/{session_id}/recording
    getSessionRecording: async ({ path }, principal) => ({ body: await recordings.read(principal, path.session_id) }),

    // DELETE /v1/sessions/{session_id}/recording
    deleteSessionRecording: async ({ path }, principal) => ({ body: await recordings.delete(principal, path.session_id) }),
  };
}

/** The digital human's: the recording's start, its upload target and its finish, each for its own identity. */
export function recordingJobOperations(
  jobs: RecordingJobs,
): Pick<DigitalHumanOperationHandlers, "startSessionRecording" | "createRecordingUpload" | "finishSessionRecording"> {
  return {
    // POST /v1/sessions/{session_id}/recording/start
    startSessionRecording: async ({ body }, caller) => {
      caller.speaksFor(body.participant_identity);
      return { body: await jobs.start(caller.sessionId, body.participant_identity) };
    },

    // POST /v1/sessions/{session_id}/recording/upload
    createRecordingUpload: async ({ body }, caller) => {
      caller.speaksFor(body.participant_identity);
      return { body: await jobs.uploadTarget(caller.sessionId, body.participant_identity) };
    },

    // POST /v1/sessions/{session_id}/recording/finish
    finishSessionRecording: async ({ body }, caller) => {
      caller.speaksFor(body.participant_identity);
      return { body: await jobs.finish(caller.sessionId, body) };
    },
  };
}
