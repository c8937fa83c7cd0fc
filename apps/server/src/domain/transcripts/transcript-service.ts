/**
 * Transcripts' use cases (contract guide, "Transcripts"): the digital human's segments in, a page of them
 * out, erasure on request, and the `session.transcript_ready` event once the session has ended and its
 * transcript is complete (the digital human said `final`, or the grace after the end passed: the
 * `transcript_ready` timer set at the end). The event is queued with a compare-and-set of the session
 * that marks it sent, so it is sent once however many replicas and timers race for it.
 */

import type { Transcript, TranscriptReadyData, TranscriptSegmentsAppend, TranscriptSegmentsAppended } from "@dhs/contract";
import { shownTextProblem } from "@dhs/contract/shown-text";
import type { Principal } from "../accounts/api-keys.js";
import { modeOfOwner } from "../accounts/api-keys.js";
import { AppError } from "../app-error.js";
import type { SessionRecords, TimerQueue, UsageCounters } from "../sessions/ports.js";
import { type SessionRecord, TERMINAL } from "../sessions/session.js";
import { keptUntilMs } from "../sessions/session-deps.js";
import { outboundEvent } from "../sessions/session-events.js";
import type { Durations } from "../sessions/session-machine.js";
import { findOwnSession } from "../sessions/session-reader.js";
import { utcDay } from "../sessions/usage.js";
import type { TranscriptStore } from "./ports.js";
import {
  characterCount,
  closesAtMs,
  isComplete,
  MAX_TRANSCRIPT_SEGMENTS,
  type SegmentPosition,
  type StoredSegment,
  storedSegment,
  transcriptView,
} from "./transcript.js";

export interface TranscriptServiceDeps {
  sessions: Pick<SessionRecords, "getSession" | "findSession" | "readForChange" | "replaceSession"> &
    Pick<UsageCounters, "countUsage"> &
    Pick<TimerQueue, "scheduleTimers">;
  transcripts: TranscriptStore;
  durations: Durations;
  /** How long after a session's end its transcript takes segments without `final`. */
  graceMs: number;
  /** How long a webhook event is kept while its deliveries are pending. */
  eventRetainMs: number;
  now?: () => Date;
  onEventsQueued?: (sessionId: string) => void;
  /** What was derived from a transcript (the session's analysis), erased with it. */
  derived?: { erase(accountId: string, sessionId: string): Promise<void> };
}

export interface TranscriptPage {
  limit: number;
  after: SegmentPosition | undefined;
}

export class TranscriptService {
  private readonly now: () => Date;

  constructor(private readonly deps: TranscriptServiceDeps) {
    this.now = deps.now ?? (() => new Date());
  }

  /** GET /v1/sessions/{id}/transcript: a page, and where the next one starts (null: none now). */
  async read(
    principal: Principal,
    sessionId: string,
    page: TranscriptPage,
  ): Promise<{ transcript: Transcript; next: SegmentPosition | null }> {
    const session = await findOwnSession(this.deps.sessions, principal, sessionId);
    const { state, segments } = await this.deps.transcripts.readSegments(session.id, page.after, page.limit + 1);
    const shown = state.deletedAtMs === null ? segments.slice(0, page.limit) : [];
    const last = shown.at(-1);
    const next = segments.length > page.limit && last ? { startedAtMs: last.startedAtMs, id: last.id } : null;
    // next_cursor is the HTTP layer's to encode from `next`.
    return { transcript: transcriptView(session, state, shown, null, this.now().getTime(), this.deps.graceMs), next };
  }

  /** DELETE /v1/sessions/{id}/transcript: erased now, refused from then on; safe to repeat. */
  async delete(principal: Principal, sessionId: string): Promise<Transcript> {
    const session = await findOwnSession(this.deps.sessions, principal, sessionId);
    const nowMs = this.now().getTime();
    const state = await this.deps.transcripts.deleteTranscript(session.id, nowMs, this.expiresAtMs(session));
    await this.deps.derived?.erase(session.account_id, session.id);
    return transcriptView(session, state, [], null, nowMs, this.deps.graceMs);
  }

  /** POST /v1/sessions/{id}/transcript/segments, from the session's digital human (its token checked). */
  async append(sessionId: string, body: TranscriptSegmentsAppend): Promise<TranscriptSegmentsAppended> {
    const session = await this.deps.sessions.findSession(sessionId);
    if (!session) throw new AppError("not_found", `No session ${sessionId}.`);
    const segments = checkedSegments(body);
    const nowMs = this.now().getTime();
    const outcome = await this.deps.transcripts.appendSegments({
      sessionId: session.id,
      segments,
      final: body.final ?? false,
      maxSegments: MAX_TRANSCRIPT_SEGMENTS,
      closesAtMs: closesAtMs(session, this.deps.graceMs),
      nowMs,
      expiresAtMs: this.expiresAtMs(session),
    });
    if (outcome.kind === "closed") throw closed(session.id, outcome.reason);
    if (outcome.kind === "limit") {
      throw new AppError("transcript_limit_reached", {
        limit: MAX_TRANSCRIPT_SEGMENTS,
        segment_count: outcome.state.segmentCount,
        posted: segments.length,
      });
    }
    if (outcome.accepted.length > 0) {
      // Counted after the segments are stored (the usage lives with the account, not the session): a
      // replica that dies in between leaves those segments uncounted, never counted twice.
      const characters = outcome.accepted.reduce((sum, segment) => sum + characterCount(segment.text), 0);
      await this.deps.sessions.countUsage(session.account_id, {
        day: utcDay(new Date(nowMs).toISOString()),
        fields: [
          ["transcript_segments", outcome.accepted.length],
          ["transcript_characters", characters],
        ],
      });
    }
    if (outcome.state.final && TERMINAL.has(session.status)) await this.settle(session.account_id, session.id);
    return { accepted: outcome.accepted.length, duplicates: outcome.duplicates, segment_count: outcome.state.segmentCount };
  }

  /**
   * The `transcript_ready` timer (set at the end), or a `final` after the end: queues
   * `session.transcript_ready` if the session has ended and its transcript is complete, unless it was
   * deleted or the event was sent. Not complete yet: the timer fires again when the grace period ends.
   */
  async settle(accountId: string, sessionId: string): Promise<void> {
    for (let attempt = 0; attempt < 5; attempt++) {
      const read = await this.deps.sessions.readForChange(accountId, sessionId);
      if (!read || !TERMINAL.has(read.record.status) || read.record.transcript_ready_at !== undefined) return;
      const { record } = read;
      const state = await this.deps.transcripts.readState(sessionId);
      const now = this.now();
      if (state.deletedAtMs !== null) return;
      if (!isComplete(record, state, now.getTime(), this.deps.graceMs)) {
        const atMs = closesAtMs(record, this.deps.graceMs) ?? now.getTime();
        await this.deps.sessions.scheduleTimers(accountId, sessionId, [{ timer: "transcript_ready", atMs }]);
        return;
      }
      const data: TranscriptReadyData = { session_id: record.id, segment_count: state.segmentCount };
      const expiresAtMs = this.expiresAtMs(record);
      const replaced = await this.deps.sessions.replaceSession({
        record: { ...record, transcript_ready_at: now.toISOString() },
        version: read.version,
        previousStatus: record.status,
        events: [outboundEvent("session.transcript_ready", modeOfOwner(record.account_id), now, data, this.deps.eventRetainMs)],
        usage: undefined,
        expiresAtMs,
        // The analysis its digital human asked for is due now that the transcript is complete, in the same step.
        timers: {
          schedule: record.analysis?.status === "pending" ? [{ timer: "analysis", atMs: now.getTime() }] : [],
          cancel: ["transcript_ready"],
        },
      });
      if (replaced) {
        this.deps.onEventsQueued?.(record.id);
        // The transcript was kept for as long as its session could last; now exactly as long as it.
        await this.deps.transcripts.expireAt(record.id, expiresAtMs);
        return;
      }
    }
    throw new Error(`session ${sessionId}: too many concurrent updates`);
  }

  /** The session's own expiry once it ended; before, the latest it can be (it may last its longest). */
  private expiresAtMs(session: SessionRecord): number {
    return keptUntilMs(session, this.deps.durations);
  }
}

/**
 * What the contract cannot say of a post, checked whole before anything is stored, so a post is all or
 * nothing: ids unique within it, times a clock can say (a leap second is its minute's last millisecond),
 * no segment ending before it started, and text people can be shown.
 */
function checkedSegments(body: TranscriptSegmentsAppend): StoredSegment[] {
  const problems: { location: string; path: string; message: string }[] = [];
  const problem = (i: number, field: string, message: string) =>
    problems.push({ location: "body", path: `segments.${i}.${field}`, message });
  const seen = new Set<string>();
  const segments = body.segments.map((segment, i) => {
    const stored = storedSegment(segment);
    if (seen.has(stored.id)) problem(i, "id", "is posted twice");
    seen.add(stored.id);
    const times = [
      ["started_at", stored.startedAtMs],
      ["ended_at", stored.endedAtMs],
    ] as const;
    for (const [field, ms] of times) if (!Number.isFinite(ms)) problem(i, field, "is not a time this API can store");
    if (stored.endedAtMs < stored.startedAtMs) problem(i, "ended_at", "is before started_at");
    const text = shownTextProblem(stored.text);
    if (text !== undefined) problem(i, "text", text);
    return stored;
  });
  if (problems.length > 0) throw new AppError("validation_failed", problems);
  return segments;
}

function closed(sessionId: string, reason: "deleted" | "final" | "ended"): AppError {
  const why = {
    deleted: "is deleted",
    final: "is final: its digital human said it sent its last segment",
    ended: "is closed: its session ended longer ago than the transcript's grace period",
  }[reason];
  return new AppError("transcript_closed", `The transcript of session ${sessionId} ${why}.`);
}
