/**
 * The transcript operations of API keys (getSessionTranscript, deleteSessionTranscript) and the digital
 * human's (appendTranscriptSegments): HTTP to TranscriptService calls and back.
 */
import type { TranscriptService } from "../../domain/transcripts/transcript-service.js";
import type { Cursors } from "../cursor.js";
import type { DigitalHumanOperationHandlers, OperationHandlers } from "../operations.js";

export function transcriptOperations(
  transcripts: TranscriptService,
  cursors: Cursors,
): Pick<OperationHandlers, "getSessionTranscript" | "deleteSessionTranscript"> {
  return {
    // GET /v1/sessions/{session_id}/transcript
    getSessionTranscript: async ({ path, query }, principal) => {
      const [owner, sessionId] = [principal.accountId, path.session_id];
      const after = query.cursor === undefined ? undefined : cursors.transcript.decode(owner, sessionId, query.cursor);
      const { transcript, next } = await transcripts.read(principal, sessionId, { limit: query.limit ?? 100, after });
      return { body: { ...transcript, next_cursor: next ? cursors.transcript.encode(owner, sessionId, next) : null } };
    },

    // DELETE /v1/sessions/{session_id}/transcript
    deleteSessionTranscript: async ({ path }, principal) => ({ body: await transcripts.delete(principal, path.session_id) }),
  };
}

/** The digital human's: its speech and the participant's, as it heard them, appended to its session's transcript. */
export function transcriptJobOperations(transcripts: TranscriptService): Pick<DigitalHumanOperationHandlers, "appendTranscriptSegments"> {
  return {
    // POST /v1/sessions/{session_id}/transcript/segments
    appendTranscriptSegments: async ({ body }, caller) => ({ body: await transcripts.append(caller.sessionId, body) }),
  };
}
