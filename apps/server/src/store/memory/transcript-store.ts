/** Transcripts in memory, for development and tests: the same rules as the Redis store, in one map. */
import type { AppendOutcome, AppendSegments, TranscriptStore } from "../../domain/transcripts/ports.js";
import { type SegmentPosition, type StoredSegment, spokenOrder, type TranscriptState } from "../../domain/transcripts/transcript.js";

interface StoredTranscript {
  segments: Map<string, StoredSegment>;
  final: boolean;
  deletedAtMs: number | null;
  expiresAtMs: number;
}

export class MemoryTranscriptStore implements TranscriptStore {
  private readonly transcripts = new Map<string, StoredTranscript>();

  constructor(private readonly now: () => number = Date.now) {}

  async appendSegments(request: AppendSegments): Promise<AppendOutcome> {
    const transcript = this.transcript(request.sessionId) ?? {
      segments: new Map<string, StoredSegment>(),
      final: false,
      deletedAtMs: null,
      expiresAtMs: request.expiresAtMs,
    };
    if (transcript.deletedAtMs !== null) return { kind: "closed", reason: "deleted", state: stateOf(transcript) };
    const fresh = request.segments.filter((segment) => !transcript.segments.has(segment.id));
    if (fresh.length > 0) {
      if (transcript.final) return { kind: "closed", reason: "final", state: stateOf(transcript) };
      if (request.closesAtMs !== undefined && request.nowMs > request.closesAtMs) {
        return { kind: "closed", reason: "ended", state: stateOf(transcript) };
      }
      if (transcript.segments.size + fresh.length > request.maxSegments) return { kind: "limit", state: stateOf(transcript) };
      for (const segment of fresh) transcript.segments.set(segment.id, segment);
    }
    if (request.final) transcript.final = true;
    transcript.expiresAtMs = request.expiresAtMs;
    this.transcripts.set(request.sessionId, transcript);
    return { kind: "appended", accepted: fresh, duplicates: request.segments.length - fresh.length, state: stateOf(transcript) };
  }

  async readSegments(
    sessionId: string,
    after: SegmentPosition | undefined,
    limit: number,
  ): Promise<{ state: TranscriptState; segments: StoredSegment[] }> {
    const transcript = this.transcript(sessionId);
    if (!transcript) return { state: stateOf(undefined), segments: [] };
    // A cursor names a stored segment; one that is gone (deleted with its transcript) starts nothing.
    if (after !== undefined && !transcript.segments.has(after.id)) return { state: stateOf(transcript), segments: [] };
    const ordered = [...transcript.segments.values()].sort(spokenOrder);
    const start = after === undefined ? 0 : ordered.findIndex((segment) => segment.id === after.id) + 1;
    return { state: stateOf(transcript), segments: ordered.slice(start, start + limit) };
  }

  async readState(sessionId: string): Promise<TranscriptState> {
    return stateOf(this.transcript(sessionId));
  }

  async deleteTranscript(sessionId: string, nowMs: number, expiresAtMs: number): Promise<TranscriptState> {
    const transcript = this.transcript(sessionId);
    if (transcript?.deletedAtMs != null) return stateOf(transcript);
    const deleted: StoredTranscript = { segments: new Map(), final: transcript?.final ?? false, deletedAtMs: nowMs, expiresAtMs };
    this.transcripts.set(sessionId, deleted);
    return stateOf(deleted);
  }

  async expireAt(sessionId: string, expiresAtMs: number): Promise<void> {
    const transcript = this.transcript(sessionId);
    if (transcript) transcript.expiresAtMs = expiresAtMs;
  }

  private transcript(sessionId: string): StoredTranscript | undefined {
    const transcript = this.transcripts.get(sessionId);
    if (transcript && transcript.expiresAtMs <= this.now()) {
      this.transcripts.delete(sessionId);
      return undefined;
    }
    return transcript;
  }
}

function stateOf(transcript: StoredTranscript | undefined): TranscriptState {
  if (!transcript) return { segmentCount: 0, final: false, deletedAtMs: null };
  return { segmentCount: transcript.segments.size, final: transcript.final, deletedAtMs: transcript.deletedAtMs };
}
