/**
 * The recording operations of API keys (getSessionRecording, deleteSessionRecording): HTTP to
 * SessionRecordings calls and back.
 */
import type { SessionRecordings } from "../../domain/recordings/session-recordings.js";
import type { OperationHandlers } from "../operations.js";

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
