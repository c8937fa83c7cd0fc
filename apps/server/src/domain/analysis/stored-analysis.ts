/**
 * A session's analysis as its record keeps it (contract guide, "Analysis"), pure. It lives in the
 * session's own record, so that its state, its result and its `session.analysis_ready` event change in
 * one compare-and-set of the session (one result, one event, whatever the races), and it goes wherever
 * the session goes: the history database's copy, the retention, the reads that ask Redis then PostgreSQL.
 * While an attempt runs it holds a lease (a token and an end): another replica takes the analysis over
 * only once the lease has ended, and only the attempt that holds it can settle it.
 */
import type { AnalysisError, CriterionOutcome, SessionAnalysis } from "@dhs/contract";
import { shownReason, shownSummary } from "./analysis-answer.js";
import type { AnalysisSettings } from "./analysis-settings.js";

export interface StoredAnalysis {
  settings: AnalysisSettings;
  /** The persona's model when it named one; null: the deployment's analysis model. */
  model: string | null;
  /** How the digital human is named in the transcript the LLM reads. */
  digital_human_name: string;
  /**
   * Whether the analysis also keeps facts about the participant (contract guide, "Memory"): its digital
   * human has memory and the customer named the participant. The facts go to the memory store, never here.
   */
  memory?: boolean;
  status: "pending" | "complete" | "failed" | "deleted";
  /** Attempts started so far (each may have asked the LLM twice: the answer and one repair). */
  attempts: number;
  /** While an attempt runs: its token and when it is taken for dead (ms). */
  lease?: { token: string; until_ms: number };
  summary?: string | null;
  data?: Record<string, unknown> | null;
  success_criteria?: CriterionOutcome[];
  error?: AnalysisError;
  completed_at?: string;
}

/** What an attempt came to. */
export type AnalysisOutcome =
  | { status: "complete"; summary: string | null; data: Record<string, unknown> | null; success_criteria: CriterionOutcome[] }
  | { status: "failed"; error: AnalysisError };

/** A new session's analysis, when its persona asks for one. */
export function pendingAnalysis(
  settings: AnalysisSettings | null | undefined,
  model: string | null,
  digitalHumanName: string,
  memory = false,
): StoredAnalysis | undefined {
  if (!settings) return undefined;
  return { settings, model, digital_human_name: digitalHumanName, status: "pending", attempts: 0, ...(memory ? { memory } : {}) };
}

/** The analysis with its outcome: the lease let go, the result or the error kept. */
export function settled(analysis: StoredAnalysis, outcome: AnalysisOutcome, at: Date): StoredAnalysis {
  const { lease: _lease, ...rest } = analysis;
  return { ...rest, ...outcome, completed_at: at.toISOString() };
}

/** Erased with its transcript: whatever it was, only that it was asked for stays. */
export function erased(analysis: StoredAnalysis): StoredAnalysis {
  return {
    settings: analysis.settings,
    model: analysis.model,
    digital_human_name: analysis.digital_human_name,
    ...(analysis.memory ? { memory: analysis.memory } : {}),
    status: "deleted",
    attempts: analysis.attempts,
  };
}

/** Whether an attempt holds the analysis now. */
export function leased(analysis: StoredAnalysis, nowMs: number): boolean {
  return analysis.lease !== undefined && analysis.lease.until_ms > nowMs;
}

/**
 * As getSessionAnalysis answers it. `transcriptDeleted`: the transcript was erased, so whatever was
 * derived from it is shown deleted even before the record itself was changed.
 */
export function analysisView(sessionId: string, analysis: StoredAnalysis | undefined, transcriptDeleted: boolean): SessionAnalysis {
  const empty: SessionAnalysis = {
    session_id: sessionId,
    status: "not_requested",
    summary: null,
    data: null,
    success_criteria: [],
    error: null,
    completed_at: null,
  };
  if (!analysis) return empty;
  if (transcriptDeleted || analysis.status === "deleted") return { ...empty, status: "deleted" };
  if (analysis.status === "pending") return { ...empty, status: "pending" };
  if (analysis.status === "failed") {
    return { ...empty, status: "failed", error: analysis.error ?? null, completed_at: analysis.completed_at ?? null };
  }
  return {
    ...empty,
    status: "complete",
    // Shown as an answer is read today: one stored before that rule (an LLM's empty reason) would otherwise
    // break the contract's patterns, and every read of it would answer 500.
    summary: analysis.summary == null ? null : shownSummary(analysis.summary),
    data: analysis.data ?? null,
    success_criteria: (analysis.success_criteria ?? []).map((c) => ({ ...c, reason: shownReason(c.reason) })),
    completed_at: analysis.completed_at ?? null,
  };
}
