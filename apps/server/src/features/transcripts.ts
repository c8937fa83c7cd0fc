/**
 * Transcripts as a feature: what the digital human heard and said, appended by it during the session,
 * read and deleted by API keys, and ready once the grace after the end has passed (its timer).
 */
import { TranscriptService, type TranscriptServiceDeps } from "../domain/transcripts/transcript-service.js";
import type { Cursors } from "../http/cursor.js";
import { transcriptJobOperations, transcriptOperations } from "../http/routes/transcripts.js";
import type { Feature } from "./feature.js";

export function transcriptsOf(deps: TranscriptServiceDeps, cursors: Cursors) {
  const transcripts = new TranscriptService(deps);
  return {
    transcripts,
    feature: {
      name: "transcripts",
      operations: transcriptOperations(transcripts, cursors),
      digitalHumanOperations: transcriptJobOperations(transcripts),
      timers: { transcript_ready: (accountId: string, sessionId: string) => transcripts.settle(accountId, sessionId) },
    } satisfies Feature,
  };
}
