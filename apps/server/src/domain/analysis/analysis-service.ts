/**
 * Sessions' analyses (contract guide, "Analysis"), durable across replicas. The `analysis` timer, set in
 * the same step as `session.transcript_ready`, is fired by whichever replica's sweeper is free; it claims
 * the analysis with a lease in one compare-and-set of the session (and moves the timer to the lease's
 * end), runs the attempt in the background (an LLM call must not hold up the sweeper's other timers),
 * and settles it, its `session.analysis_ready` event with it, in another compare-and-set that only the
 * lease's holder can make. A replica that dies mid-attempt leaves the timer to fire at the lease's end
 * for another; an LLM that fails or times out is tried again with growing waits, then `failed`. In test
 * mode without an LLM the analysis waits for `setTestSessionAnalysis` instead of failing. An analysis that
 * keeps facts about its participant (contract guide, "Memory") reads them before it asks and writes the
 * new list before it settles, so a replica dying in between leaves an attempt that does both again.
 */
import { randomUUID } from "node:crypto";
import type { SessionAnalysis } from "@dhs/contract";
import { modeOfOwner } from "../accounts/api-keys.js";
import { AppError } from "../app-error.js";
import { DependencyUnavailableError } from "../dependency-errors.js";
import { memoryKeyOf } from "../memories/memory-key.js";
import type { KeptMemory, MemoryKey } from "../memories/ports.js";
import type { SessionRecords, TimerQueue } from "../sessions/ports.js";
import { type SessionRecord, TERMINAL } from "../sessions/session.js";
import { outboundEvent } from "../sessions/session-events.js";
import type { Durations } from "../sessions/session-machine.js";
import type { TranscriptStore } from "../transcripts/ports.js";
import type { StoredSegment } from "../transcripts/transcript.js";
import { changeAnalysis } from "./analysis-change.js";
import { type AnalysisLlm, type AttemptResult, runAnalysis, unavailable } from "./analysis-runner.js";
import { type AnalysisOutcome, analysisView, erased, leased, type StoredAnalysis, settled } from "./stored-analysis.js";

export interface AnalysisServiceDeps {
  sessions: Pick<SessionRecords, "getSession" | "readForChange" | "replaceSession"> & Pick<TimerQueue, "scheduleTimers">;
  transcripts: Pick<TranscriptStore, "readSegments" | "readState">;
  llm: AnalysisLlm;
  /** Where the facts about participants are kept; without it no analysis keeps any. */
  memories?: Memories;
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

interface Memories {
  base(key: MemoryKey): Promise<KeptMemory | undefined>;
  keep(key: MemoryKey, base: KeptMemory | undefined, facts: readonly string[]): Promise<unknown>;
}

/** The participant an attempt keeps facts about, and where. */
type Remembered = { key: MemoryKey; memories: Memories };

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
    const run = this.attempt(accountId, sessionId, claim.analysis, claim.memory)
      .catch((error) => this.deps.onBackgroundError?.(error, "analysis attempt"))
      .finally(() => this.running.delete(sessionId));
    this.running.set(sessionId, run);
  }

  /** Stops every attempt running here; each gives its lease back, so another replica takes it over at once. */
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
    await changeAnalysis(this.deps, this.now, accountId, sessionId, (analysis) =>
      analysis.status === "deleted" ? undefined : { analysis: erased(analysis) },
    );
  }

  /**
   * Settles a pending analysis with `outcome` if `token` holds it (undefined: whoever holds it, the test
   * helper's way), with its event. Returns the analysis as settled, or undefined when it was not pending.
   */
  async settle(accountId: string, sessionId: string, outcome: AnalysisOutcome, token?: string): Promise<SessionAnalysis | undefined> {
    let shown: SessionAnalysis | undefined;
    await changeAnalysis(this.deps, this.now, accountId, sessionId, (analysis, record, now) => {
      if (analysis.status !== "pending" || (token !== undefined && analysis.lease?.token !== token)) return undefined;
      const next = settled(analysis, outcome, now);
      shown = analysisView(record.id, next, false);
      const event = outboundEvent("session.analysis_ready", modeOfOwner(record.account_id), now, shown, this.deps.eventRetainMs);
      return { analysis: next, events: [event], cancel: true };
    });
    if (shown) this.deps.onEventsQueued?.(sessionId);
    return shown;
  }

  private async claim(accountId: string, sessionId: string): Promise<{ analysis: StoredAnalysis; memory?: Remembered } | undefined> {
    let claimed: { analysis: StoredAnalysis; memory?: Remembered } | undefined;
    const { memories } = this.deps;
    await changeAnalysis(this.deps, this.now, accountId, sessionId, (analysis, record, now) => {
      if (analysis.status !== "pending" || !TERMINAL.has(record.status) || record.transcript_ready_at === undefined) return undefined;
      // A test session without an LLM waits for setTestSessionAnalysis rather than failing.
      if (!this.deps.llm.model && modeOfOwner(record.account_id) === "test") return undefined;
      const nowMs = now.getTime();
      if (leased(analysis, nowMs)) return { analysis, atMs: analysis.lease?.until_ms };
      if (this.running.size >= this.deps.maxRunning) return { analysis, atMs: nowMs + BUSY_RETRY_MS };
      const untilMs = nowMs + this.deps.leaseMs;
      const next = { ...analysis, attempts: analysis.attempts + 1, lease: { token: randomUUID(), until_ms: untilMs } };
      claimed = { analysis: next, ...(analysis.memory && memories ? { memory: { key: memoryKeyOf(record), memories } } : {}) };
      return { analysis: next, atMs: untilMs };
    });
    return claimed;
  }

  private async attempt(accountId: string, sessionId: string, analysis: StoredAnalysis, memory?: Remembered): Promise<void> {
    const started = Date.now();
    const token = analysis.lease?.token as string;
    const segments = await this.segments(sessionId);
    if (!segments) return this.erase(accountId, sessionId);
    let outcome: AnalysisOutcome;
    if (analysis.attempts > this.deps.maxAttempts) {
      // Every attempt's runner died before it could settle: not tried forever.
      outcome = unavailable(this.deps.maxAttempts, "the analysis was interrupted on every try");
    } else {
      let result: AttemptResult;
      let base: KeptMemory | undefined;
      try {
        base = memory && (await memory.memories.base(memory.key));
        result = await runAnalysis(analysis, segments, this.deps.llm, this.abort.signal, memory && { facts: base?.facts ?? [] });
        // Kept before the analysis settles: a runner that dies between the two leaves both to the next attempt.
        if (memory && result.kind === "outcome" && result.memoryFacts) await memory.memories.keep(memory.key, base, result.memoryFacts);
      } catch (error) {
        // This replica is stopping (a deploy): the lease is given back now, and the try with it, so another
        // replica takes the analysis over at once rather than at the lease's end.
        if (this.abort.signal.aborted) return this.release(accountId, sessionId, token, 0, true);
        // The memory store down, or too many writers of one participant's memory at once: tried later.
        const contended = error instanceof AppError && error.code === "concurrent_changes";
        if (!(error instanceof DependencyUnavailableError) && !contended) throw error;
        const why = contended ? "too many analyses kept facts about the participant at once" : (error as Error).message;
        result = { kind: "retry", reason: `the participant's memory could not be read or kept: ${why}` };
      }
      if (result.kind === "retry" && analysis.attempts < this.deps.maxAttempts) {
        return this.release(accountId, sessionId, token, this.deps.retryMs * 3 ** (analysis.attempts - 1), false);
      }
      outcome = result.kind === "retry" ? unavailable(analysis.attempts, result.reason) : result.outcome;
    }
    if (await this.settle(accountId, sessionId, outcome, token)) this.deps.onSettled?.(sessionId, outcome, Date.now() - started);
  }

  /** Lets go of the lease `token` holds, the analysis tried again after `waitMs`. */
  private release(accountId: string, sessionId: string, token: string, waitMs: number, giveBackTry: boolean): Promise<void> {
    return changeAnalysis(this.deps, this.now, accountId, sessionId, (stored, _record, now) => {
      if (stored.status !== "pending" || stored.lease?.token !== token) return undefined;
      const { lease: _lease, ...free } = stored;
      return { analysis: giveBackTry ? { ...free, attempts: free.attempts - 1 } : free, atMs: now.getTime() + waitMs };
    });
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
}
