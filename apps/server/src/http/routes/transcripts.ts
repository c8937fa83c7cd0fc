/**
 * The transcript operations of API keys (getSessionTranscript, deleteSessionTranscript): HTTP to
 * TranscriptService calls and back.
 */
import type { GetSessionTranscriptQuery } from "@dhs/contract";
import type { TranscriptService } from "../../domain/transcripts/transcript-service.js";
import { principalOf } from "../authenticate.js";
import { decodeCursor, encodeCursor } from "../cursor.js";
import type { OperationHandlers } from "../operations.js";

export function transcriptOperations(
  transcripts: TranscriptService,
): Pick<OperationHandlers, "getSessionTranscript" | "deleteSessionTranscript"> {
  return {
    // GET /v1/sessions/{session_id}/transcript
    getSessionTranscript: async (req, res) => {
      const query = req.query as GetSessionTranscriptQuery;
      // A transcript's cursor is a segment's start time and id, in the lists' cursor format.
      const cursor = query.cursor === undefined ? undefined : decodeCursor(query.cursor);
      const after = cursor && { startedAtMs: cursor.createdAtMs, id: cursor.id };
      const { transcript, next } = await transcripts.read(principalOf(res), req.params.session_id as string, {
        limit: query.limit ?? 100,
        after,
      });
      res.json({ ...transcript, next_cursor: next ? encodeCursor({ createdAtMs: next.startedAtMs, id: next.id }) : null });
    },

    // DELETE /v1/sessions/{session_id}/transcript
    deleteSessionTranscript: async (req, res) => {
      res.json(await transcripts.delete(principalOf(res), req.params.session_id as string));
    },
  };
}
