/**
 * Sessions' analyses (contract guide, "Analysis"), durable across replicas. The `analysis` timer, set in
 * the same step as `session.transcript_ready`, is fired by whichever replica's sweeper is free; it claims
 * the analysis with a lease in one compare-and-set of the session (and moves the timer to the lease's
 * end), runs the attempt in the background (an LLM call must not hold up the sweeper's other timers),
 * and settles it, its `session.analysis_ready` event with it, in another compare-and-set that only the
 * lease's holder can make. A replica that dies mid-attempt leaves the timer to fire at the lease's end
 * for another; an LLM that fails or times out is tried again with growing waits, then `failed`. In test
 * mode without an LLM the analysis waits for `setTestSessionAnalysis` instead of failing.
 */
import { randomUUID } from "node:crypto";
import type { SessionAnalysis } from "@dhs/contract";
import { modeOfOwner } from "../accounts/api-keys.js";
import type { OutboundEvent } from "../customer-webhooks/ports.js";
import type { SessionRecords, TimerQueue } from "../sessions/ports.js";
import { type SessionRecord, TERMINAL } from "../sessions/session.js";
import { keptUntilMs } from "../sessions/session-deps.js";
import { outboundEvent } from "../sessions/session-events.js";
import type { Durations } from "../sessions/session-machine.js";
import type { TranscriptStore } from "../transcripts/ports.js";
import type { StoredSegment } from "../transcripts/transcript.js";
import { type AnalysisLlm, runAnalysis, unavailable } from "./analysis-runner.js";
import { type AnalysisOutcome, analysisView, erased, leased, type StoredAnalysis, settled } from "./stored-analysis.js";

export interface AnalysisServiceDeps {
  sessions: Pick<SessionRecords, "getSession" | "readForChange" | "replaceSession"> & Pick<TimerQueue, "scheduleTimers">;
  transcripts: Pick<TranscriptStore, "readSegments" | "readState">;
  llm: AnalysisLlm;
  durations: Durations;
  eventRetainMs: number;
  /** How long an attempt holds the analysis before another replica may take it over (ms). */
  leaseMs: number;
  /** Attempts before a retryable failure becomes `failed` (llm_unavailable). */
  maxAttempts: number;
  /** The wait after the first failed attempt; each next one waits three times longer (ms). */
  retryMs: number;
  /** Attempts one replica runs at once; a timer past them is put off a few seconds. */
  maxRunning: number;
  now?: () => Date;
  onEventsQueued?: (sessionId: string) => void;
  /** An attempt settled the analysis (not the test helper): its outcome and how long the attempt took. */
  onSettled?: (sessionId: string, outcome: AnalysisOutcome, ms: number) => void;
  onBackgroundError?: (error: unknown, what: string) => void;
}

const BUSY_RETRY_MS = 5_000;

export class AnalysisService {
  private readonly now: () => Date;
  private readonly running = new Map<string, Promise<void>>();
  private readonly abort = new AbortController();

  constructor(private readonly deps: AnalysisServiceDeps) {
    this.now = deps.now ?? (() => new Date());
  }

  /** The `analysis` timer fired: claims the analysis if it is due and free, and runs an attempt. */
  async onTimer(accountId: string, sessionId: string): Promise<void> {
    const claim = await this.claim(accountId, sessionId);
    if (!claim) return;
    const run = this.attempt(accountId, sessionId, claim)
      .catch((error) => this.deps.onBackgroundError?.(error, "analysis attempt"))
      .finally(() => this.running.delete(sessionId));
    this.running.set(sessionId, run);
  }

  /** Stops every attempt running here; their leases end and another replica takes them over. */
  async stop(): Promise<void> {
    this.abort.abort();
    await Promise.allSettled(this.running.values());
  }

  /** Waits for the attempts running on this replica (tests). */
  async idle(): Promise<void> {
    await Promise.allSettled(this.running.values());
  }

  /** As getSessionAnalysis answers it (the record found as the caller's, Redis then the history). */
  async view(record: SessionRecord): Promise<SessionAnalysis> {
    const state = record.analysis ? await this.deps.transcripts.readState(record.id) : undefined;
    return analysisView(record.id, record.analysis, state?.deletedAtMs != null);
  }

  /** Its transcript was deleted: so is what was derived from it, whatever state it was in. */
  async erase(accountId: string, sessionId: string): Promise<void> {
    await this.change(accountId, sessionId, (analysis) => (analysis.status === "deleted" ? undefined : { analysis: erased(analysis) }));
  }

  /**
   * Settles a pending analysis with `outcome` if `token` holds it (undefined: whoever holds it, the test
   * helper's way), with its event. Returns the analysis as settled, or undefined when it was not pending.
   */
  async settle(accountId: string, sessionId: string, outcome: AnalysisOutcome, token?: string): Promise<SessionAnalysis | undefined> {
    let shown: SessionAnalysis | undefined;
    await this.change(accountId, sessionId, (analysis, record, now) => {
      if (analysis.status !== "pending" || (token !== undefined && analysis.lease?.token !== token)) return undefined;
      const next = settled(analysis, outcome, now);
      shown = analysisView(record.id, next, false);
      const event = outboundEvent("session.analysis_ready", modeOfOwner(record.account_id), now, shown, this.deps.eventRetainMs);
      return { analysis: next, events: [event], cancel: true };
    });
    if (shown) this.deps.onEventsQueued?.(sessionId);
    return shown;
  }

  private async claim(accountId: string, sessionId: string): Promise<StoredAnalysis | undefined> {
    let claimed: StoredAnalysis | undefined;
    await this.change(accountId, sessionId, (analysis, record, now) => {
      if (analysis.status !== "pending" || !TERMINAL.has(record.status) || record.transcript_ready_at === undefined) return undefined;
      // A test session without an LLM waits for setTestSessionAnalysis rather than failing.
      if (!this.deps.llm.model && modeOfOwner(record.account_id) === "test") return undefined;
      const nowMs = now.getTime();
      if (leased(analysis, nowMs)) return { analysis, atMs: analysis.lease?.until_ms };
      if (this.running.size >= this.deps.maxRunning) return { analysis, atMs: nowMs + BUSY_RETRY_MS };
      const untilMs = nowMs + this.deps.leaseMs;
      claimed = { ...analysis, attempts: analysis.attempts + 1, lease: { token: randomUUID(), until_ms: untilMs } };
      return { analysis: claimed, atMs: untilMs };
    });
    return claimed;
  }

  private async attempt(accountId: string, sessionId: string, analysis: StoredAnalysis): Promise<void> {
    const started = Date.now();
    const token = analysis.lease?.token as string;
    const segments = await this.segments(sessionId);
    if (!segments) return this.erase(accountId, sessionId);
    let outcome: AnalysisOutcome;
    if (analysis.attempts > this.deps.maxAttempts) {
      // Every attempt's runner died before it could settle: not tried forever.
      outcome = unavailable(this.deps.maxAttempts, "the analysis was interrupted on every try");
    } else {
      const result = await runAnalysis(analysis, segments, this.deps.llm, this.abort.signal);
      if (result.kind === "retry" && analysis.attempts < this.deps.maxAttempts) {
        const waitMs = this.deps.retryMs * 3 ** (analysis.attempts - 1);
        await this.change(accountId, sessionId, (stored, _record, now) => {
          if (stored.status !== "pending" || stored.lease?.token !== token) return undefined;
          const { lease: _lease, ...free } = stored;
          return { analysis: free, atMs: now.getTime() + waitMs };
        });
        return;
      }
      outcome = result.kind === "retry" ? unavailable(analysis.attempts, result.reason) : result.outcome;
    }
    if (await this.settle(accountId, sessionId, outcome, token)) this.deps.onSettled?.(sessionId, outcome, Date.now() - started);
  }

  /** The transcript whole, in spoken order; undefined once it was deleted. */
  private async segments(sessionId: string): Promise<StoredSegment[] | undefined> {
    const all: StoredSegment[] = [];
    for (;;) {
      const last = all.at(-1);
      const page = await this.deps.transcripts.readSegments(sessionId, last && { startedAtMs: last.startedAtMs, id: last.id }, 500);
      if (page.state.deletedAtMs !== null) return undefined;
      all.push(...page.segments);
      if (page.segments.length < 500) return all;
    }
  }

  /**
   * One compare-and-set of the session's analysis: `decide` says what it becomes (undefined: nothing to
   * do), the events that go with it, and when the `analysis` timer fires next (or that it is cancelled).
   */
  private async change(
    accountId: string,
    sessionId: string,
    decide: (
      analysis: StoredAnalysis,
      record: SessionRecord,
      now: Date,
    ) => { analysis: StoredAnalysis; events?: OutboundEvent[]; atMs?: number | undefined; cancel?: boolean } | undefined,
  ): Promise<void> {
    for (let attempt = 0; attempt < 8; attempt++) {
      const read = await this.deps.sessions.readForChange(accountId, sessionId);
      if (!read?.record.analysis) return;
      const now = this.now();
      const next = decide(read.record.analysis, read.record, now);
      if (!next) return;
      if (next.analysis === read.record.analysis && next.atMs !== undefined) {
        await this.deps.sessions.scheduleTimers(accountId, sessionId, [{ timer: "analysis", atMs: next.atMs }]);
        return;
      }
      const replaced = await this.deps.sessions.replaceSession({
        record: { ...read.record, analysis: next.analysis },
        version: read.version,
        previousStatus: read.record.status,
        events: next.events ?? [],
        usage: undefined,
        expiresAtMs: TERMINAL.has(read.record.status) ? keptUntilMs(read.record, this.deps.durations) : undefined,
        timers: {
          schedule: next.atMs === undefined ? [] : [{ timer: "analysis", atMs: next.atMs }],
          cancel: next.cancel ? ["analysis"] : [],
        },
      });
      if (replaced) return;
    }
    throw new Error(`session ${sessionId}: too many concurrent updates of its analysis`);
  }
}
