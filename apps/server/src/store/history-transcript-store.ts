/**
 * Transcripts read across the live store and the history database (docs/storage.md), as sessions are
 * (history-session-records.ts): the live store first; a transcript it holds nothing of (its session's
 * keep there is over, or Redis lost it) is the history's, if the history holds its session. Segments are
 * posted to the live store only (a transcript closes long before its session leaves it). Deleting a
 * transcript deletes it in both at once, and queues its session so the history is erased even if it
 * cannot be reached now (the request then fails 503, and a retry answers as the first deletion did).
 */
import type { AppendOutcome, AppendSegments, TranscriptHistory, TranscriptStore } from "../domain/transcripts/ports.js";
import type { SegmentPosition, StoredSegment, TranscriptState } from "../domain/transcripts/transcript.js";

/** What the live store answers for a transcript it holds nothing of. */
const isBlank = (state: TranscriptState) => state.segmentCount === 0 && !state.final && state.deletedAtMs === null;

export class HistoryTranscriptStore implements TranscriptStore {
  constructor(
    private readonly live: TranscriptStore,
    private readonly history: TranscriptHistory,
  ) {}

  appendSegments(request: AppendSegments): Promise<AppendOutcome> {
    return this.live.appendSegments(request);
  }

  async readSegments(
    sessionId: string,
    after: SegmentPosition | undefined,
    limit: number,
  ): Promise<{ state: TranscriptState; segments: StoredSegment[] }> {
    const live = await this.live.readSegments(sessionId, after, limit);
    if (!isBlank(live.state)) return live;
    return (await this.history.readSegments(sessionId, after, limit)) ?? live;
  }

  async readState(sessionId: string): Promise<TranscriptState> {
    return (await this.readSegments(sessionId, undefined, 0)).state;
  }

  async deleteTranscript(sessionId: string, nowMs: number, expiresAtMs: number): Promise<TranscriptState> {
    // Deleted before Redis let it go: it stays as it was deleted then.
    const live = await this.live.readState(sessionId);
    if (isBlank(live)) {
      const written = await this.history.readSegments(sessionId, undefined, 0);
      if (written && written.state.deletedAtMs !== null) return written.state;
    }
    const state = await this.live.deleteTranscript(sessionId, nowMs, expiresAtMs);
    await this.history.deleteTranscript(sessionId, state.deletedAtMs ?? nowMs);
    return state;
  }

  expireAt(sessionId: string, expiresAtMs: number): Promise<void> {
    return this.live.expireAt(sessionId, expiresAtMs);
  }
}
