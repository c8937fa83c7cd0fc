/**
 * The transcript operations of API keys (getSessionTranscript, deleteSessionTranscript): HTTP to
 * TranscriptService calls and back.
 */
import type { TranscriptService } from "../../domain/transcripts/transcript-service.js";
import { decodeCursor, encodeCursor } from "../cursor.js";
import type { OperationHandlers } from "../operations.js";

export function transcriptOperations(
  transcripts: TranscriptService,
): Pick<OperationHandlers, "getSessionTranscript" | "deleteSessionTranscript"> {
  return {
    // GET /v1/sessions/{session_id}/transcript
    getSessionTranscript: async ({ path, query }, principal) => {
      // A transcript's cursor is a segment's start time and id, in the lists' cursor format.
      const cursor = query.cursor === undefined ? undefined : decodeCursor(query.cursor);
      const after = cursor && { startedAtMs: cursor.createdAtMs, id: cursor.id };
      const { transcript, next } = await transcripts.read(principal, path.session_id, { limit: query.limit ?? 100, after });
      return { body: { ...transcript, next_cursor: next ? encodeCursor({ createdAtMs: next.startedAtMs, id: next.id }) : null } };
    },

    // DELETE /v1/sessions/{session_id}/transcript
    deleteSessionTranscript: async ({ path }, principal) => ({ body: await transcripts.delete(principal, path.session_id) }),
  };
}
