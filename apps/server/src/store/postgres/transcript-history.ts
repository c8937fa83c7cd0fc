/**
 * Transcripts of ended sessions in PostgreSQL (TranscriptHistory): the state on the session's row, the
 * segments in `transcript_segments` (both written by session-history.ts). A page is found by the
 * session's row, then read from its creation day's partition alone, in spoken order from the cursor.
 * Deleting erases the rows at once, in one transaction with the row's mark.
 */
import type { TranscriptHistory } from "../../domain/transcripts/ports.js";
import type { SegmentPosition, StoredSegment, TranscriptState } from "../../domain/transcripts/transcript.js";
import { type Database, guardDatabase, transaction } from "./database.js";

const STATE = `
SELECT account_id, created_at, transcript_segment_count AS n, transcript_final AS final, transcript_deleted_at AS deleted_at
FROM sessions WHERE id = $1 AND ended_at > $2`;

const PAGE = `
SELECT segment_id AS id, speaker, text, started_at, ended_at FROM transcript_segments
WHERE account_id = $1 AND session_created_at = $2 AND session_id = $3 AND (started_at, segment_id) > ($4, $5)
ORDER BY started_at, segment_id LIMIT $6`;

// The row's mark first: a writer adding segments holds the row until it commits, and this waits for it.
// What was derived from the transcript goes with it: the session's analysis keeps only that it was asked.
const MARK_DELETED = `
UPDATE sessions SET transcript_deleted_at = COALESCE(transcript_deleted_at, $2), transcript_segment_count = 0,
  record = CASE WHEN record ? 'analysis' THEN jsonb_set(record, '{analysis}',
    ((record->'analysis') - 'summary' - 'data' - 'success_criteria' - 'error' - 'completed_at' - 'lease')
      || '{"status": "deleted"}'::jsonb) ELSE record END
WHERE id = $1 RETURNING account_id, created_at`;

const ERASE = "DELETE FROM transcript_segments WHERE account_id = $1 AND session_created_at = $2 AND session_id = $3";

type StateRow = { account_id: string; created_at: Date; n: number; final: boolean; deleted_at: Date | null };
type SegmentRow = { id: string; speaker: StoredSegment["speaker"]; text: string; started_at: Date; ended_at: Date };

export class PostgresTranscriptHistory implements TranscriptHistory {
  constructor(
    private readonly db: Database,
    private readonly options: { retentionMs: number; now?: () => number },
  ) {}

  async readSegments(
    sessionId: string,
    after: SegmentPosition | undefined,
    limit: number,
  ): Promise<{ state: TranscriptState; segments: StoredSegment[] } | undefined> {
    const now = this.options.now ?? Date.now;
    const found = await guardDatabase(() =>
      this.db.query<StateRow>({
        name: "history-transcript-state",
        text: STATE,
        values: [sessionId, new Date(now() - this.options.retentionMs)],
      }),
    );
    const row = found.rows[0];
    if (!row) return undefined;
    const state = { segmentCount: row.n, final: row.final, deletedAtMs: row.deleted_at?.getTime() ?? null };
    if (limit < 1 || state.deletedAtMs !== null) return { state, segments: [] };
    const page = await guardDatabase(() =>
      this.db.query<SegmentRow>({
        name: "history-transcript-page",
        text: PAGE,
        values: [row.account_id, row.created_at, sessionId, after ? new Date(after.startedAtMs) : "-infinity", after?.id ?? "", limit],
      }),
    );
    const segments = page.rows.map((s) => ({
      id: s.id,
      speaker: s.speaker,
      text: s.text,
      startedAtMs: s.started_at.getTime(),
      endedAtMs: s.ended_at.getTime(),
    }));
    return { state, segments };
  }

  async deleteTranscript(sessionId: string, nowMs: number): Promise<void> {
    await guardDatabase(() =>
      transaction(this.db, async (client) => {
        const marked = await client.query<{ account_id: string; created_at: Date }>({
          name: "history-transcript-mark-deleted",
          text: MARK_DELETED,
          values: [sessionId, new Date(nowMs)],
        });
        const row = marked.rows[0];
        if (row) await client.query({ name: "history-transcript-erase", text: ERASE, values: [row.account_id, row.created_at, sessionId] });
      }),
    );
  }
}
